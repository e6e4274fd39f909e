/**
 * The general English lexicon the reader matches relations with (see meaning.ts): synonym groups of
 * life events, making things, places and belonging, nouns people use for one another, and clipped
 * spellings. Nothing here is keyed on one dataset's phrasing.
 */
/**
 * Synonym groups, head first. Words are lemmas (wink lemmatises "born" as "bear" and "died" as
 * "die"); a phrase is written with underscores and matched as consecutive lemmas ("pass_away").
 */
export const GROUPS: readonly string[] = [
  // Life events.
  'bear birth born birthplace native birthday come_into_the_world hail_from come_from originate',
  'die death dead perish pass_away decease deceased demise',
  'bury burial inter grave',
  'marry wed marriage wedding spouse husband wife married',
  'divorce separate',
  'live reside dwell residence inhabit',
  'grow_up raise bring_up upbringing',
  'move relocate emigrate immigrate settle',
  // Making things.
  'found establish set_up create form foundation founding co-found cofound incorporate',
  // A ship or a product is launched, a firm founded: "launch" is its own relation.
  'launch',
  // A building "dates from" the year it was built.
  'build construct erect construction date_from date_back_to',
  'design architect plan',
  'write author pen novel novella poem memoir',
  'compose score',
  'direct helm director head',
  'lead chair captain leader chief_executive ceo president chairman chairwoman principal',
  'produce producer production',
  'paint',
  'invent devise',
  'publish publication publisher',
  'release premiere debut come_out air issue broadcast put_out bring_out',
  'record',
  'shoot shot',
  'perform sing play role portray depict',
  'star act appear feature cast',
  'translate',
  'illustrate draw',
  'edit',
  'develop',
  'discover find',
  // Places and belonging.
  'locate situate lie sit base headquarter seat home host',
  'own possess owner ownership',
  'acquire buy purchase take_over acquisition',
  // Events.
  'occur happen take_place',
  'operate run manage',
  'cost price charge fare fee',
  'work employ serve',
  'teach lecture',
  'study attend educate graduate alumnus go_to_school go_to_college go_to_university',
  'win award receive earn',
  'nominate',
  'play compete',
  'coach train',
  'sign',
  'join',
  'retire',
  'open inaugurate',
  'close shut',
  'destroy demolish',
  'rename',
  'name call title nickname',
  'represent',
  'elect',
  'succeed',
  'precede',
  'flow run',
  'border neighbour neighbor adjoin',
  'contain include comprise',
  // Nouns people use for one another.
  'country nation state nationality citizenship citizen origin homeland',
  'city town village municipality',
  'occupation job profession career work',
  'film movie picture',
  'song track single tune',
  'album record',
  'book novel',
  'company firm business corporation enterprise',
  'school college',
  'ship vessel boat ferry',
  'child kid offspring',
  'staff people employee worker personnel workforce',
  'percent percentage per_cent',
  'passenger traveller traveler rider',
  'father dad',
  'mother mom mum',
  'start begin',
  'end finish conclude',
  'age old',
  'large big',
  'small little',
  'long lengthy length',
  'tall high height',
  'wide broad width breadth across',
  'deep depth',
  'heavy weight weigh',
  'early first',
  // Clipped and variant spellings.
  'cooperative co-operative co-op coop',
  'laboratory lab',
  'university uni',
  'professor prof',
  'photograph photo',
  'telephone phone',
  'television tv telly',
  'advertisement advert ad',
  'mathematics maths math',
];

/**
 * Second senses: a word that also means another group's relation in common use. A text's "started
 * a yard" founded it, "runs the programme" leads it, "keeps the bakery" runs it. Added to a
 * sentence's concepts beside the word's own, so "When was X founded?" finds "… started X in 1923"
 * and "When did X start?" still finds it as a start.
 */
export const SECOND_SENSES: Readonly<Record<string, readonly string[]>> = {
  start: ['found', 'open'],
  // What a press published it put out, brought out, issued, released (one sense in WordNet:
  // publish, bring out, put out, issue, release).
  publish: ['release'],
  begin: ['found', 'open'],
  open: ['found'],
  launch: ['release', 'open'],
  run: ['lead'],
  // "The institute is directed by Y": Y leads it, runs it; "the film directed by Y": Y made it.
  direct: ['lead', 'operate', 'make'],
  // Who made a thing is who created it, whatever the craft: "Who made Harbour Lights?".
  write: ['make'],
  compose: ['make'],
  paint: ['make'],
  design: ['make'],
  build: ['make'],
  create: ['make'],
  produce: ['make'],
  craft: ['make'],
  manage: ['lead'],
  keep: ['operate'],
  head: ['operate', 'lead'],
  skipper: ['lead'],
  // "What did she make out of oak?" asks what she built.
  make: ['build'],
  come: ['move'],
  // What a ferry or a hall "carries", "holds" or "seats", it takes: "takes 120 passengers".
  carry: ['take'],
  // "The film was shot in Y": it was filmed there.
  shoot: ['film'],
  // "X plays the keeper in Y": Y stars X; a role played is acted.
  play: ['star'],
  hold: ['take'],
  // "served as mayor" held the office of mayor.
  serve: ['hold'],
  seat: ['take', 'hold'],
  // "a capacity of 31,200": what a stadium holds.
  capacity: ['hold', 'take'],
  accommodate: ['hold', 'take'],
  // "60% adhere to the church" follow it; what belongs to someone is owned.
  adhere: ['follow'],
  belong: ['own'],
  // "known locally as the Reed Town": what it is called.
  know: ['name'],
  // The people who work somewhere: "27 staff" answers "how many people work there".
  staff: ['work'],
  employee: ['work'],
  worker: ['work'],
  personnel: ['work'],
  crew: ['work'],
};
