import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  parseAnswer,
  parseCommunityAssessment,
  parseGraphExtraction,
  parseQueryEntities,
  parseQueryGraph,
  parseSemanticUnits,
  parseSummary,
  parseTitleDescription,
  parseYesNo,
  renderAnswer,
  renderCommunityAssessment,
  renderGraphExtraction,
  renderQueryEntities,
  renderQueryGraph,
  renderSemanticUnits,
  renderSummary,
  renderTaskOutput,
  renderTitleDescription,
  renderYesNo,
  type TaskName,
  type TupleDelimiters,
  tupleFieldText,
} from '../src/tasks/index.js';

const SETTINGS = { seed: 1234, numRuns: 300 };

/**
 * Text fields: letters (accented too), digits, spaces and the punctuation models write, delimiter
 * characters and brackets included. Trimmed, non-empty, not wrapped in quotes (the parsers strip one
 * layer of wrapping quotes, a documented normalization).
 */
const CHARS = [
  ...'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZéüß0123456789',
  ...' .,;:!?-&/\'"()[]{}<>|#*\n\t',
];
const field = fc
  .string({ unit: fc.constantFrom(...CHARS), minLength: 1, maxLength: 30 })
  .filter((s) => s === s.trim() && s !== '' && !/^["'`].*["'`]$/s.test(s) && !/^["'`]$/.test(s));
/** Names without line breaks (tuple fields have none). */
const name = field.filter((s) => !/[\n\t]/.test(s));

const entity = fc.record({ name, type: field, description: field });
const relation = fc.record({
  source: name,
  target: name,
  description: field,
  weight: fc.oneof(
    fc.integer({ min: 0, max: 100 }),
    fc.integer({ min: 1, max: 19 }).map((n) => n / 2),
  ),
});
const graph = fc.record({
  entities: fc.array(entity, { maxLength: 5 }),
  relations: fc.array(relation, { maxLength: 5 }),
});

const delimiters = fc.oneof(
  fc.constant<Partial<TupleDelimiters>>({}),
  fc.constant<Partial<TupleDelimiters>>({
    tupleDelimiter: ';;',
    recordDelimiter: '@@',
    completionDelimiter: 'DONE',
  }),
);

describe('renderers and parsers round trip', () => {
  it('graph extraction in tuples: the records come back, fields as tupleFieldText makes them', () => {
    fc.assert(
      fc.property(graph, delimiters, (g, d) => {
        const f = (s: string) => tupleFieldText(s, d);
        // Fields that tupleFieldText empties or leaves wrapped in quotes do not come back as written.
        const fields = [
          ...g.entities.flatMap((e) => [e.name, e.type, e.description]),
          ...g.relations.flatMap((r) => [r.source, r.target, r.description]),
        ];
        fc.pre(fields.every((s) => f(s) !== '' && !/^["'`].*["'`]$/s.test(f(s))));
        const text = renderGraphExtraction(g, { format: 'tuples', ...d });
        const out = parseGraphExtraction(text, d);
        expect(out.entities).toEqual(
          g.entities.map((e) => ({
            name: f(e.name),
            type: f(e.type).toLowerCase(),
            description: f(e.description),
          })),
        );
        expect(out.relations).toEqual(
          g.relations.map((r) => ({
            source: f(r.source),
            target: f(r.target),
            description: f(r.description),
            weight: r.weight,
          })),
        );
        // Only an empty extraction is reported (as a well-formed "nothing found").
        const empty = g.entities.length === 0 && g.relations.length === 0;
        expect(out.issues.map((i) => [i.kind, i.repairable])).toEqual(
          empty ? [['no-records', undefined]] : [],
        );
      }),
      SETTINGS,
    );
  });

  it('graph extraction in JSON: the records come back exactly, keywords too', () => {
    const withKeywords = relation.chain((r) =>
      fc
        .uniqueArray(fc.constantFrom('trade', 'alliance', 'war', 'prize money', 'research'), { maxLength: 3 })
        .map((keywords) => (keywords.length ? { ...r, keywords } : r)),
    );
    fc.assert(
      fc.property(
        fc.array(entity, { maxLength: 4 }),
        fc.array(withKeywords, { maxLength: 4 }),
        (entities, relations) => {
          const out = parseGraphExtraction(
            renderGraphExtraction({ entities, relations }, { format: 'json' }),
          );
          expect(out.entities).toEqual(entities.map((e) => ({ ...e, type: e.type.toLowerCase() })));
          expect(out.relations).toEqual(relations);
        },
      ),
      SETTINGS,
    );
  });

  it('tupleFieldText leaves plain text alone and is what the tuple parser reads back', () => {
    expect(tupleFieldText('Marie Curie (born 1867), physicist')).toBe('Marie Curie (born 1867), physicist');
    expect(tupleFieldText('a<|>b##c<|COMPLETE|>d\n e')).toBe('a b c d e');
    expect(tupleFieldText('see (entity, the firm)(x)')).toBe('see [entity, the firm) (x)');
    expect(tupleFieldText('a;;b', { tupleDelimiter: ';;' })).toBe('a b');
  });

  it('semantic units: units, their entities and relationships come back', () => {
    const unit = fc.record({
      text: field,
      entities: fc.uniqueArray(field, { maxLength: 4 }),
      relationships: fc.array(fc.record({ source: field, relation: field, target: field }), { maxLength: 3 }),
    });
    fc.assert(
      fc.property(fc.array(unit, { minLength: 1, maxLength: 3 }), (units) => {
        const out = parseSemanticUnits(renderSemanticUnits({ units }));
        expect(out.units).toEqual(units);
        expect(out.issues).toEqual([]);
      }),
      SETTINGS,
    );
  });

  it('title and description, query entities, community assessment and yes/no come back', () => {
    fc.assert(
      fc.property(field, field, (title, description) => {
        expect(parseTitleDescription(renderTitleDescription({ title, description }))).toEqual({
          title,
          description,
          issues: [],
        });
      }),
      SETTINGS,
    );
    fc.assert(
      fc.property(fc.array(field, { minLength: 1, maxLength: 6 }), (entities) => {
        // Names that repeat case-insensitively are kept once, first spelling.
        const expected = entities.filter(
          (e, i) => entities.findIndex((x) => x.toLowerCase() === e.toLowerCase()) === i,
        );
        expect(parseQueryEntities(renderQueryEntities({ entities }))).toEqual({
          entities: expected,
          issues: [],
        });
      }),
      SETTINGS,
    );
    fc.assert(
      fc.property(
        fc.oneof(
          fc.integer({ min: 0, max: 10 }),
          fc.double({ min: 0, max: 10, noNaN: true }).map((x) => x + 0),
        ),
        field,
        (score, report) => {
          expect(parseCommunityAssessment(renderCommunityAssessment({ score, report }))).toEqual({
            score,
            report,
            issues: [],
          });
        },
      ),
      SETTINGS,
    );
    for (const answer of [true, false]) expect(parseYesNo(renderYesNo(answer))).toBe(answer);
  });

  it('query graph: nodes, unknown labels, target flags and edges come back', () => {
    const UNKNOWN = /^(?:unk|unknown|\?+|none|null|n\/a|<unk>|\[unk\]|_+)$/i;
    const queryGraph = fc.uniqueArray(field, { minLength: 1, maxLength: 5 }).chain((ids) =>
      fc.record({
        nodes: fc.tuple(
          ...ids.map((id) =>
            fc.record({ id: fc.constant(id), label: fc.option(field), isTarget: fc.boolean() }),
          ),
        ),
        edges: fc.array(
          fc.record({ source: fc.constantFrom(...ids), target: fc.constantFrom(...ids), relation: field }),
          { maxLength: 4 },
        ),
      }),
    );
    fc.assert(
      fc.property(queryGraph, (g) => {
        const out = parseQueryGraph(renderQueryGraph(g));
        // A label the parser reads as "unknown" (UNK, ?, none, ...) comes back as null.
        expect(out.nodes).toEqual(
          g.nodes.map((n) => ({ ...n, label: n.label && UNKNOWN.test(n.label) ? null : n.label })),
        );
        expect(out.edges).toEqual(g.edges);
        expect(out.issues).toEqual([]);
      }),
      SETTINGS,
    );
  });

  it('answer: the text with a marker for each citation it does not make itself', () => {
    const id = fc
      .tuple(fc.constantFrom(...'abcd'), fc.string({ unit: fc.constantFrom(...'abc0123#-'), maxLength: 6 }))
      .map(([first, rest]) => first + rest);
    const text = fc
      .string({ unit: fc.constantFrom(...'abcdefghij XYZ.,;:!?-\'"0123'), minLength: 1, maxLength: 60 })
      .filter((s) => s.trim() !== '' && !/^\s*answer/i.test(s));
    fc.assert(
      fc.property(
        text,
        fc.uniqueArray(id, { maxLength: 4 }),
        fc.uniqueArray(id, { maxLength: 3 }),
        (answer, cited, other) => {
          const knownIds = [...new Set([...cited, ...other])];
          const rendered = renderAnswer({ answer, citations: cited });
          expect(rendered.startsWith(answer.trim())).toBe(true);
          expect(parseAnswer(rendered, knownIds)).toEqual({ answer: rendered, citations: cited, issues: [] });
        },
      ),
      SETTINGS,
    );
    // Citations the text already makes are not repeated.
    expect(renderAnswer({ answer: 'Paris [c2].', citations: ['c1', 'c2'] })).toBe('Paris [c2]. [c1]');
  });

  it('summary: the text comes back', () => {
    const sentence = fc
      .string({ unit: fc.constantFrom(..."abcdefghij XYZ.,;!?-'0123"), minLength: 1, maxLength: 80 })
      .filter((s) => s.trim() !== '' && !/^\s*summary/i.test(s));
    fc.assert(
      fc.property(sentence, (summary) => {
        expect(parseSummary(renderSummary(summary))).toBe(summary.trim());
      }),
      SETTINGS,
    );
  });
});

describe('renderTaskOutput', () => {
  it('dispatches every task to its renderer', () => {
    const cases: { [K in TaskName]: [unknown, string] } = {
      extractGraph: [
        { entities: [{ name: 'A', type: 'person', description: 'x' }], relations: [] },
        renderGraphExtraction({ entities: [{ name: 'A', type: 'person', description: 'x' }], relations: [] }),
      ],
      decomposeSemanticUnits: [
        { units: [{ text: 't', entities: ['A'], relationships: [] }] },
        renderSemanticUnits({ units: [{ text: 't', entities: ['A'], relationships: [] }] }),
      ],
      summarize: ['  A summary. ', 'A summary.'],
      titleAndDescription: [{ title: 'T', description: 'D' }, '{"title":"T","description":"D"}'],
      extractQueryEntities: [{ entities: ['Paris'] }, '{"entities":["Paris"]}'],
      extractQueryGraph: [
        { nodes: [{ id: 'n1', label: null, isTarget: true }], edges: [] },
        '{"nodes":[{"id":"n1","label":"UNK","target":true}],"edges":[]}',
      ],
      assessCommunity: [{ score: 7, report: 'R' }, '{"score":7,"report":"R"}'],
      answer: [{ answer: 'Paris.', citations: ['c1'] }, 'Paris. [c1]'],
    };
    for (const [task, [result, expected]] of Object.entries(cases)) {
      expect(renderTaskOutput(task as TaskName, result as never)).toBe(expected);
    }
    // Issues in a result are ignored; options reach graph extraction.
    expect(
      renderTaskOutput(
        'extractGraph',
        { entities: [], relations: [], issues: [{ kind: 'no-records', reason: 'r', raw: '' }] } as never,
        { format: 'json' },
      ),
    ).toBe('{"entities":[],"relationships":[]}');
    expect(renderTaskOutput('extractGraph', { entities: [], relations: [] })).toBe('<|COMPLETE|>');
  });
});
