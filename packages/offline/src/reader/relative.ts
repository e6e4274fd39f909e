/**
 * A wh-phrase inside a clause about a noun of the main clause ("… married a composer who conducted
 * which orchestra?", "… directed by a man born in which city?", "… produced the debut album of
 * which band?"): the noun is found first, then the clause is asked of it.
 */
import { spanText, type Token } from '../nlp.js';
import { asksInside, capitalise, isCapital, RELATIVE } from './decompose.js';

/**
 * "Petra Lune married a composer who conducted which orchestra?": the wh-phrase inside a relative
 * clause about a noun of the main clause. The noun is found first ("Petra Lune married which
 * composer?"), then the clause is asked of it ("<found> conducted which orchestra?"). null when the
 * question has no such clause.
 */
export function askedRelative(
  tokens: readonly Token[],
): { first: string; ask: (found: string) => string } | null {
  for (let k = 2; k < tokens.length - 2; k++) {
    const t = tokens[k]!;
    const head = tokens[k - 1]!;
    // "… directed by a man born in which city?": a participle opens the clause without "who".
    // (An inflected form that is no -s or -ing form: "based", "held", "built", "born".)
    const participle = t.pos === 'VERB' && t.normal !== t.lemma && !/(s|ing)$/.test(t.normal);
    // "… produced the debut album of which band?", "… written by a screenwriter of what
    // nationality?": the noun's owner or attribute is asked at the question's end.
    // "… recorded by a band from which town?": where the noun is from.
    const ofAsked =
      (t.normal === 'of' || t.normal === 'from') &&
      /^(which|what)$/.test(tokens[k + 1]?.normal ?? '') &&
      tokens[k + 2]?.pos === 'NOUN' &&
      tokens.slice(k + 3).every((x) => x.type === 'punctuation');
    if (!(RELATIVE.has(t.normal) || participle || ofAsked) || head.pos !== 'NOUN' || isCapital(head))
      continue;
    let end = tokens.length - 1;
    while (end > k && tokens[end]!.type === 'punctuation') end--;
    if (!asksInside(tokens, k + 1, end)) continue;
    let start = k - 1;
    while (start > 0 && /^(ADJ|NOUN)$/.test(tokens[start - 1]!.pos) && !isCapital(tokens[start - 1])) start--;
    // "a TV series": a short capitalised modifier after a determiner.
    if (start > 1 && /^\p{Lu}{2,4}$/u.test(tokens[start - 1]!.value) && tokens[start - 2]!.pos === 'DET')
      start--;
    if (start > 0 && tokens[start - 1]!.pos === 'DET') start--;
    // The main clause before the noun must say something of it (a verb or a preposition).
    const verbal = (i: number): boolean =>
      tokens[i]!.pos === 'VERB' || tokens[i]!.pos === 'AUX' || pastAsNoun(tokens, i);
    if (start < 2 || !(/^(ADP|ADJ)$/.test(tokens[start - 1]!.pos) || verbal(start - 1))) continue;
    if (!tokens.slice(0, start).some((_, i) => verbal(i))) continue;
    let modifiers = start;
    while (modifiers < k - 1 && tokens[modifiers]!.pos === 'DET') modifiers++;
    const headPhrase = spanText(tokens, modifiers, k - 1);
    const before = spanText(tokens, 0, start - 1);
    const first = `${before} which ${headPhrase}?`;
    // "became mayor of which city": a bare role noun and its "of" are one phrase.
    // "X was the son of which woman?": after a copula the "of" phrase is itself what is asked.
    if (ofAsked && (tokens[start]!.pos !== 'DET' || tokens[start - 1]!.lemma === 'be')) continue;
    if (ofAsked) {
      // "the album of which band": the band the album is of; "a screenwriter of what nationality":
      // what the screenwriter is.
      const asked = tokens[k + 2]!.value;
      if (t.normal === 'from') return { first, ask: (found) => `Which ${asked} is ${found} from?` };
      const definite = tokens[start]!.normal === 'the';
      return {
        first,
        ask: (found) =>
          definite ? `${found} is the ${headPhrase} of which ${asked}?` : `What ${asked} is ${found}?`,
      };
    }
    // "… a company based where?": where or when the found one was based.
    const bareWh = /^(where|when)$/.test(tokens[end]!.normal) ? tokens[end]!.normal : null;
    if (participle && bareWh)
      return { first, ask: (found) => `${capitalise(bareWh)} was ${found} ${spanText(tokens, k, end - 1)}?` };
    // "… a playwright whose first play was called what?": what the found one's play was called.
    if (t.normal === 'whose') return { first, ask: (found) => `${found}'s ${spanText(tokens, k + 1, end)}?` };
    const clause = participle ? `was ${spanText(tokens, k, end)}` : spanText(tokens, k + 1, end);
    // "who (later) became mayor of which city": the clause opens with its verb.
    const v = tokens[k + 1]!.pos === 'ADV' ? k + 2 : k + 1;
    const verbFirst = participle || tokens[v]?.pos === 'VERB' || tokens[v]?.pos === 'AUX';
    if (!verbFirst) continue;
    return { first, ask: (found) => `${found} ${clause}?` };
  }
  return null;
}

/**
 * A past verb the tagger read as a noun: "-ed" right after a name and before a determiner ("Tin
 * Harbor *starred* an actress …").
 */
function pastAsNoun(tokens: readonly Token[], i: number): boolean {
  const t = tokens[i]!;
  return t.pos === 'NOUN' && /ed$/.test(t.normal) && isCapital(tokens[i - 1]) && tokens[i + 1]?.pos === 'DET';
}
