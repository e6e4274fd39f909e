/**
 * What `grag eval` relies on to load a saved index instead of building it, checked for every method
 * on a tiny invented corpus under each of its presets:
 * - `resolveBuildOptions` gives the options the saved manifest records (`params`), so an index in a
 *   store is reused exactly when it was built with the options a build would use now;
 * - `optionKeys.retrieveDefaults` names keys `build` only keeps as the index's defaults for
 *   `retrieve` (`grag eval --set` passes them to `retrieve` alone): built with every such key set to
 *   another valid value, the saved index is the same file for file, but for the options its
 *   manifest records.
 */
import { createHash } from 'node:crypto';
import { mkdtemp, readdir, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import type { Method } from '@grag/core';
import { createBuildContext } from '@grag/core/kit';
import { createOfflineProviders } from '@grag/offline';
import { describe, expect, it } from 'vitest';
import { METHODS } from '../src/registry.js';
import { CORPUS, SMALL } from './tiny-corpus.js';

/** Another valid value of each key a method names (every one of them). */
const OTHER: Record<string, Record<string, unknown>> = {
  e2graphrag: {
    topK: 7,
    hops: 2,
    chunkThreshold: 10,
    preferAdjacentRuns: true,
    denseOnly: true,
    graphFilter: false,
    entityAwareRanking: false,
    denseRetrieval: false,
    occurrenceRanking: false,
    entryPoints: 'hybrid',
    fuseEntryPoints: true,
    graphWeight: 0.5,
    entryEf: 64,
    bridges: 2,
    bridgeSeeds: 3,
    bridgeOrder: 'residual',
    bridgeMaxRank: 5,
    mentionBridges: 1,
    mentionSpread: 3,
    mentionResidualRank: 4,
  },
  'bridge-rag': {
    topK: 7,
    entryPoints: 'lexical',
    entryEf: 64,
    bridges: 0,
    bridgeSeeds: 3,
    bridgeOrder: 'entry',
    bridgeMaxRank: 5,
    mentionBridges: 0,
    mentionSpread: 3,
    mentionResidualRank: 4,
  },
  'ket-rag': { lambda: 0.2, budgetSplit: 'fixed' },
  'da-rag': {
    chunkLayer: false,
    acs: false,
    kMin: 4,
    kMax: 9,
    candidatesPerLayer: 2,
    kSpacing: 'linear',
    anchor: 'union',
    scoring: 'qrscore',
    reports: false,
    communityText: 'members',
    communityTokens: 1000,
    oneHopSeeds: 3,
    relevance: 'lexical',
    maxCommunityNodes: 12,
    querySeeds: 2,
    searchRegion: 100,
    communitySearch: 'local',
    localExactUpTo: 50,
    tieSeed: 2,
    anchors: 2,
    fallbackCommunity: false,
    packing: 'truncate',
    fillBudget: true,
    entryPointsOnly: true,
    memberOrder: 'linked',
  },
};

/** The files of a saved index: path → SHA-256, and its manifest without `params` and `createdAt`. */
async function savedIndex(method: Method<unknown>, options: Record<string, unknown>) {
  const { embedder, tasks, textAnalyzer } = createOfflineProviders();
  const index = await method.build(CORPUS, createBuildContext({ embedder, tasks, textAnalyzer }), options);
  const dir = join(await mkdtemp(join(tmpdir(), 'grag-saved-options-')), 'index');
  await method.save(index, dir);
  const files: Record<string, string> = {};
  for (const entry of await readdir(dir, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile() || entry.name === 'manifest.json') continue;
    const path = join(entry.parentPath, entry.name);
    files[relative(dir, path)] = createHash('sha256')
      .update(await readFile(path))
      .digest('hex');
  }
  const {
    params,
    createdAt: _,
    ...manifest
  } = JSON.parse(await readFile(join(dir, 'manifest.json'), 'utf8'));
  return { files, manifest, params: params as Record<string, unknown> };
}

/** JSON with sorted keys (`undefined` as null), as `runEval` compares option values. */
const canonical = (value: unknown): string =>
  JSON.stringify(value, (_key, v) =>
    v && typeof v === 'object' && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v).sort(([a], [b]) => a.localeCompare(b)))
      : v,
  ) ?? 'null';

const presetsOf = (method: Method<unknown>) =>
  method.optionKeys?.build.includes('preset') ? ['paper', 'offline'] : [undefined];

describe.each(METHODS.map((e) => [e.name, e.method] as const))('%s', (name, method) => {
  it.each(presetsOf(method))('saves the options resolveBuildOptions gives (preset %s)', async (preset) => {
    const options = { ...SMALL[name], ...(preset ? { preset } : {}) };
    const resolved = method.resolveBuildOptions!(options);
    const { params } = await savedIndex(method, options);
    const differing = Object.keys(resolved).filter(
      (key) => key in params && canonical(params[key]) !== canonical(resolved[key]),
    );
    expect(differing).toEqual([]);
    // Every recorded option is compared.
    expect(Object.keys(params).filter((key) => !(key in resolved))).toEqual([]);
  });
});

const named = METHODS.filter((e) => (e.method.optionKeys?.retrieveDefaults?.length ?? 0) > 0);

describe.each(named.map((e) => [e.name, e.method] as const))('%s', (name, method) => {
  const keys = method.optionKeys!.retrieveDefaults!;

  it('names keys that both build and retrieve accept, each with another value here', () => {
    for (const key of keys) {
      expect(method.optionKeys!.build).toContain(key);
      expect(method.optionKeys!.retrieve).toContain(key);
    }
    expect(Object.keys(OTHER[name] ?? {}).sort()).toEqual([...keys].sort());
  });

  it.each(presetsOf(method))(
    'builds and saves the same index whatever their values (preset %s)',
    async (preset) => {
      const base = { ...SMALL[name], ...(preset ? { preset } : {}) };
      const other = OTHER[name]!;
      const [before, after] = [
        await savedIndex(method, base),
        await savedIndex(method, { ...base, ...other }),
      ];
      expect(Object.keys(after.files).length).toBeGreaterThan(0);
      expect(after.files).toEqual(before.files);
      expect(after.manifest).toEqual(before.manifest);
      // The index keeps them as its defaults for retrieve.
      for (const [key, value] of Object.entries(other)) expect(after.params[key], key).toEqual(value);
    },
  );
});
