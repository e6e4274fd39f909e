import { getTokenizer } from '@grag/core/kit';
import type { Candidate } from '../src/pack.js';

/** A candidate community for packing tests: `members` counted by the default tokenizer, the rest empty. */
export function candidate(over: Partial<Candidate> & Pick<Candidate, 'id' | 'layer'>): Candidate {
  const members = over.members ?? 'members';
  return {
    ks: [],
    nodes: [],
    edges: [],
    qrScore: 0,
    initialQrScore: null,
    members,
    memberTokens: getTokenizer().count(members),
    chunks: [],
    chunkIds: [],
    docIds: [],
    score: 0,
    report: '',
    ...over,
  };
}
