import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { ParseIssue } from '../src/contracts/tasks.js';
import {
  parseAnswer,
  parseCommunityAssessment,
  parseGraphExtraction,
  parseLenientJson,
  parseQueryEntities,
  parseQueryGraph,
  parseSemanticUnits,
  parseTitleDescription,
} from '../src/tasks/index.js';

const ISSUE_KINDS = new Set(['skipped-record', 'missing-field', 'truncated', 'no-records', 'invalid-value']);
const KNOWN_IDS = ['c1', 'c2', 'doc#3'];

/** Plain words with no delimiter, quote, bracket or newline in them. */
const word = fc.stringMatching(/^[A-Za-z][A-Za-z0-9 .'-]{0,14}[A-Za-z0-9]$/).filter((s) => !/['"]/.test(s));

const entity = fc.record({
  name: word,
  type: fc.constantFrom('person', 'geo', 'organization', 'event'),
  description: word,
});
const relation = fc.record({
  source: word,
  target: word,
  description: word,
  weight: fc.integer({ min: 1, max: 10 }),
});
const graph = fc.record({
  entities: fc.array(entity, { minLength: 1, maxLength: 4 }),
  relationships: fc.array(relation, { maxLength: 4 }),
});

type Entity = { name: string; type: string; description: string };
type Relation = { source: string; target: string; description: string; weight: number };

function tuples(g: { entities: Entity[]; relationships: Relation[] }): string {
  const records = [
    ...g.entities.map((e) => `("entity"<|>${e.name}<|>${e.type}<|>${e.description})`),
    ...g.relationships.map(
      (r) => `("relationship"<|>${r.source}<|>${r.target}<|>${r.description}<|>${r.weight})`,
    ),
  ];
  return `${records.join('##\n')}<|COMPLETE|>`;
}

/** Valid outputs of every task, in the formats the prompts ask for. */
const validOutput = fc.oneof(
  graph.map(tuples),
  graph.map((g) => JSON.stringify(g)),
  fc
    .array(fc.record({ semantic_unit: word, entities: fc.array(word, { maxLength: 3 }) }), {
      minLength: 1,
      maxLength: 3,
    })
    .map((units) =>
      JSON.stringify({
        units: units.map((u) => ({ ...u, relationships: [`${u.entities[0] ?? 'A'}, rel, B`] })),
      }),
    ),
  fc.record({ title: word, description: word }).map((v) => JSON.stringify(v)),
  fc.array(word, { maxLength: 4 }).map((entities) => JSON.stringify({ entities })),
  fc.record({ score: fc.integer({ min: 0, max: 10 }), report: word }).map((v) => JSON.stringify(v)),
  fc.constant(
    '{"nodes": [{"id": "n1", "label": "UNK", "target": true}, {"id": "n2", "label": "Paris"}], "edges": [{"source": "n1", "target": "n2", "relation": "in"}]}',
  ),
  word.map((w) => `${w} [c1]. More (source: c2) and [doc#3][c9].`),
);

const noise = fc.oneof(
  fc.string({ maxLength: 6 }),
  fc.constantFrom(
    '{',
    '}',
    '[',
    ']',
    '"',
    "'",
    ',',
    ':',
    '\\',
    '<|>',
    '##',
    '<|COMPLETE|>',
    '```',
    '\n',
    '(',
    ')',
    '|',
    '\t',
  ),
);

/** A mutation of a text: cut it, delete a span, insert noise, or several of these. */
const mutated = validOutput.chain((text) =>
  fc
    .array(
      fc.oneof(
        fc.record({ op: fc.constant('cut' as const), at: fc.nat() }),
        fc.record({
          op: fc.constant('delete' as const),
          at: fc.nat(),
          length: fc.integer({ min: 1, max: 8 }),
        }),
        fc.record({ op: fc.constant('insert' as const), at: fc.nat(), text: noise }),
      ),
      { minLength: 1, maxLength: 4 },
    )
    .map((ops) =>
      ops.reduce((s, m) => {
        const at = s.length === 0 ? 0 : m.at % (s.length + 1);
        if (m.op === 'cut') return s.slice(0, at);
        if (m.op === 'delete') return s.slice(0, at) + s.slice(at + m.length);
        return s.slice(0, at) + m.text + s.slice(at);
      }, text),
    ),
);

function checkIssues(issues: ParseIssue[]): void {
  for (const issue of issues) {
    expect(ISSUE_KINDS.has(issue.kind)).toBe(true);
    expect(typeof issue.reason).toBe('string');
    expect(typeof issue.raw).toBe('string');
  }
}

describe('parsers on mutated model output', () => {
  it('never throw and always return well-formed results', () => {
    fc.assert(
      fc.property(mutated, (raw) => {
        const g = parseGraphExtraction(raw);
        checkIssues(g.issues);
        for (const r of g.relations) expect(Number.isFinite(r.weight)).toBe(true);
        for (const e of g.entities) expect(e.name).not.toBe('');

        const units = parseSemanticUnits(raw);
        checkIssues(units.issues);
        for (const u of units.units) expect(u.text).not.toBe('');

        checkIssues(parseTitleDescription(raw).issues);
        checkIssues(parseQueryEntities(raw).issues);

        const qg = parseQueryGraph(raw);
        checkIssues(qg.issues);
        const ids = new Set(qg.nodes.map((n) => n.id));
        expect(ids.size).toBe(qg.nodes.length);
        for (const e of qg.edges) expect(ids.has(e.source) && ids.has(e.target)).toBe(true);

        const c = parseCommunityAssessment(raw);
        checkIssues(c.issues);
        expect(c.score >= 0 && c.score <= 10).toBe(true);

        const a = parseAnswer(raw, KNOWN_IDS);
        checkIssues(a.issues);
        for (const id of a.citations) expect(KNOWN_IDS).toContain(id);
      }),
      { numRuns: 1000 },
    );
  });
});

describe('round trips', () => {
  it('parseLenientJson reads any JSON text as JSON.parse does', () => {
    fc.assert(
      fc.property(fc.jsonValue(), fc.boolean(), (value, pretty) => {
        const text = pretty ? JSON.stringify(value, null, 2) : JSON.stringify(value);
        const out = parseLenientJson(text);
        expect(out?.value).toEqual(JSON.parse(text));
        expect(out?.truncated).toBe(false);
      }),
      { numRuns: 300 },
    );
  });

  it('parseGraphExtraction returns exactly the records of a valid tuple or JSON output', () => {
    fc.assert(
      fc.property(graph, fc.boolean(), (g, asJson) => {
        const out = parseGraphExtraction(asJson ? JSON.stringify(g) : tuples(g));
        expect(out.entities).toEqual(g.entities);
        expect(out.relations).toEqual(g.relationships);
        expect(out.issues).toEqual([]);
      }),
      { numRuns: 300 },
    );
  });
});
