/**
 * `optionKeys.retrieveDefaults` names the keys a method's `build` only keeps as the index's defaults
 * for `retrieve`, so `grag eval --set` passes them to `retrieve` alone and loads the saved index.
 * Checked here: each method that names some is built on a tiny invented corpus under each of its
 * presets, with its defaults and with every such key set to another valid value, and both indexes
 * are saved. They must be the same file for file, but for the options their manifests record.
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
  const dir = join(await mkdtemp(join(tmpdir(), 'grag-retrieve-defaults-')), 'index');
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

  const presets = method.optionKeys!.build.includes('preset') ? ['paper', 'offline'] : [undefined];
  it.each(presets)('builds and saves the same index whatever their values (preset %s)', async (preset) => {
    const base = { ...SMALL[name], ...(preset ? { preset } : {}) };
    const other = OTHER[name]!;
    const [before, after] = [await savedIndex(method, base), await savedIndex(method, { ...base, ...other })];
    expect(Object.keys(after.files).length).toBeGreaterThan(0);
    expect(after.files).toEqual(before.files);
    expect(after.manifest).toEqual(before.manifest);
    // The index keeps them as its defaults for retrieve.
    for (const [key, value] of Object.entries(other)) expect(after.params[key], key).toEqual(value);
  });
});
