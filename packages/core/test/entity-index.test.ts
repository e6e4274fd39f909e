import { describe, expect, it } from 'vitest';
import { changedTitleRecord, planIndexChange, titleRecord } from '../src/kit.js';

describe('changedTitleRecord', () => {
  const docs = [
    { id: 'a', title: 'Alpha', text: 'a' },
    { id: 'b', title: 'Beta', text: 'b' },
    { id: 'c', text: 'c' },
  ];
  const titles = titleRecord(docs);

  it('is the title record of the changed corpus: kept titles, then the added documents’', () => {
    const change = {
      add: [
        { id: 'b', text: 'b, again without a title' },
        { id: 'd', title: 'Delta', text: 'd' },
      ],
      remove: ['c'],
    };
    const plan = planIndexChange(
      'test',
      change,
      docs.map((d) => d.id),
    );
    const changed = changedTitleRecord(titles, plan);
    expect(changed).toEqual({ a: 'Alpha', d: 'Delta' });
    expect(changed).toEqual(titleRecord([docs[0]!, ...change.add]));
    expect(titles).toEqual({ a: 'Alpha', b: 'Beta' });
  });
});
