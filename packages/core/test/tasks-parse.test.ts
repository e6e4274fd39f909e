import { describe, expect, it } from 'vitest';
import {
  codeFenceBlocks,
  extractJson,
  fieldNumber,
  fieldStringList,
  getRecordField,
  normalizeFieldName,
  parseLenientJson,
  parseYesNo,
  splitTupleRecords,
  stripCodeFences,
} from '../src/tasks/index.js';

describe('parseLenientJson', () => {
  it('reads strict JSON exactly as JSON.parse does', () => {
    const value = { a: [1, 2.5, -3e2], b: { c: 'x\n"y"\u00e9', d: null, e: true } };
    const text = JSON.stringify(value);
    const out = parseLenientJson(text)!;
    expect(out.value).toEqual(JSON.parse(text));
    expect(out).toMatchObject({
      start: 0,
      end: text.length,
      truncated: false,
      malformed: false,
      dropped: [],
    });
  });

  it('accepts single quotes, bare keys, trailing commas, comments and Python literals', () => {
    const text = "{'a': 1, b: [1, 2,], // note\n c: True, d: None, /* x */ 'e': 'it''s',}";
    expect(parseLenientJson(text)!.value).toEqual({ a: 1, b: [1, 2], c: true, d: null, e: "it''s" });
  });

  it('keeps unescaped quotes inside a string when they cannot close it', () => {
    expect(parseLenientJson('{"d": "He said "hi" to me", "n": 1}')!.value).toEqual({
      d: 'He said "hi" to me',
      n: 1,
    });
  });

  it('keeps values such as 8/10 and bare words as text', () => {
    expect(parseLenientJson('{"score": 8/10, "type": PERSON}')!.value).toEqual({
      score: '8/10',
      type: 'PERSON',
    });
  });

  it('tolerates missing commas between members on separate lines', () => {
    expect(parseLenientJson('{"a": 1\n"b": "x"\n"c": [1\n2]}')!.value).toEqual({ a: 1, b: 'x', c: [1, 2] });
  });

  it('drops the array element that was cut off and keeps the partial last object value', () => {
    const out = parseLenientJson('{"items": [{"a": 1}, {"a": 2}, {"a": 3, "b": "xy');
    expect(out!.value).toEqual({ items: [{ a: 1 }, { a: 2 }] });
    expect(out!.truncated).toBe(true);
    expect(out!.dropped).toEqual([{ raw: '{"a": 3, "b": "xy', reason: 'truncated' }]);
    expect(parseLenientJson('{"title": "abc", "description": "de')!.value).toEqual({
      title: 'abc',
      description: 'de',
    });
  });

  it('skips a malformed array element and resumes at the next one', () => {
    const out = parseLenientJson('[{"a": 1}, {"a": ?? broken}, {"a": 3}]')!;
    expect(out.value).toEqual([{ a: 1 }, { a: 3 }]);
    expect(out.malformed).toBe(true);
    expect(out.dropped).toEqual([{ raw: '{"a": ?? broken},', reason: 'malformed' }]);
  });

  it('keeps a __proto__ key as a plain field, as JSON.parse does', () => {
    const value = parseLenientJson('{"__proto__": {"polluted": 1}, "b": 2}')!.value as Record<
      string,
      unknown
    >;
    expect(Object.keys(value)).toEqual(['__proto__', 'b']);
    expect(Object.getPrototypeOf(value)).toBe(Object.prototype);
    expect(value['polluted']).toBeUndefined();
  });

  it('returns undefined when no value starts at the position', () => {
    expect(parseLenientJson('')).toBeUndefined();
    expect(parseLenientJson('   ')).toBeUndefined();
    expect(parseLenientJson(')')).toBeUndefined();
  });
});

describe('extractJson', () => {
  it('finds the JSON of a code fence before anything else', () => {
    const raw = 'Example: {"x": 0}\n```json\n{"x": 1}\n```';
    expect(extractJson(raw)!.value).toEqual({ x: 1 });
  });

  it('skips brackets in prose that do not hold an acceptable value', () => {
    const raw = 'Note [see below]: the answer is {"answer": 42} as requested.';
    const out = extractJson(raw, (v) => typeof v === 'object' && v !== null && 'answer' in v)!;
    expect(out.value).toEqual({ answer: 42 });
    expect(raw.slice(out.start, out.end)).toBe('{"answer": 42}');
  });

  it('reads an unclosed fence (output cut off) to the end', () => {
    expect(codeFenceBlocks('```json\n{"a": [1, 2')).toEqual(['{"a": [1, 2']);
    expect(extractJson('```json\n{"a": [1, 2')!.value).toEqual({ a: [1, 2] });
  });

  it('returns undefined when there is no JSON', () => {
    expect(extractJson('no json here')).toBeUndefined();
    expect(extractJson('[]')).toBeUndefined();
  });
});

describe('field helpers', () => {
  it('normalizes key spellings to one form', () => {
    for (const key of ['Entity_Name', 'entityName', 'ENTITY NAME', 'entity-name'])
      expect(normalizeFieldName(key)).toBe('entityname');
  });

  it('finds a field by its first matching alias, ignoring null values', () => {
    expect(getRecordField({ Weight: null, STRENGTH: '7' }, ['weight', 'strength'])).toEqual({
      key: 'STRENGTH',
      value: '7',
    });
    expect(getRecordField({ a: 1 }, ['b'])).toBeUndefined();
  });

  it('reads numbers from numbers and numeric strings only', () => {
    expect([
      fieldNumber(3),
      fieldNumber('8'),
      fieldNumber(' 7.5 '),
      fieldNumber('8/10'),
      fieldNumber('strength: 9'),
    ]).toEqual([3, 8, 7.5, 8, 9]);
    expect([fieldNumber('high'), fieldNumber(Number.NaN), fieldNumber(null), fieldNumber(undefined)]).toEqual(
      [undefined, undefined, undefined, undefined],
    );
  });

  it('makes string lists from arrays or separated strings', () => {
    expect(fieldStringList(['a', ' b ', 3, null, ''])).toEqual(['a', 'b', '3']);
    expect(fieldStringList('a, b; c')).toEqual(['a', 'b', 'c']);
  });

  it('reads yes/no answers, treating unclear ones as no', () => {
    expect(['YES', 'Yes.', '"Y"', 'yes, a few more'].map(parseYesNo)).toEqual([true, true, true, true]);
    expect(['NO', 'No.', 'N', '', 'maybe', '42'].map(parseYesNo)).toEqual([
      false,
      false,
      false,
      false,
      false,
      false,
    ]);
  });
});

describe('splitTupleRecords', () => {
  it('splits on the record delimiter, stops at the completion marker and strips parentheses', () => {
    const out = splitTupleRecords('("entity"<|>A<|>person<|>x)##("entity"<|>B<|>geo<|>y)<|COMPLETE|>ignored');
    expect(out.completed).toBe(true);
    expect(out.records.map((r) => r.fields)).toEqual([
      ['entity', 'A', 'person', 'x'],
      ['entity', 'B', 'geo', 'y'],
    ]);
  });

  it('ignores prose lines and list markers', () => {
    const out = splitTupleRecords(
      'Here is the output:\n1. ("entity"<|>A<|>person<|>x)\n- ("entity"<|>B<|>geo<|>y)\nDone!',
    );
    expect(out.records.map((r) => r.fields[1])).toEqual(['A', 'B']);
    expect(out.completed).toBe(false);
  });

  it('marks the last unclosed record as cut off only when there is no completion marker', () => {
    expect(
      splitTupleRecords('("entity"<|>A<|>person<|>x)##("entity"<|>B<|>pe').records.map((r) => r.cutOff),
    ).toEqual([false, true]);
    expect(splitTupleRecords('("entity"<|>A<|>person<|>x<|COMPLETE|>').records.map((r) => r.cutOff)).toEqual([
      false,
    ]);
  });
});

describe('inputs the fuzz test found (helpers)', () => {
  it('reads yes/no answers inside fences or after an Answer: label', () => {
    expect(['```\nYES\n```', '```text\nYes.\n```', 'Answer: YES', '**Answer:** yes'].map(parseYesNo)).toEqual(
      [true, true, true, true],
    );
    expect(['```\nNO\n```', 'Answer: No', 'I think yes'].map(parseYesNo)).toEqual([false, false, false]);
  });

  it('strips a closing fence cut short, and reads an unclosed record list to its last complete record', () => {
    expect(stripCodeFences('```\nabc\n``')).toBe('abc');
    expect(stripCodeFences('x ``')).toBe('x ``');
    expect(parseLenientJson('[{"a": 1}, {"a": ?}]')!.value).toEqual([{ a: 1 }]);
    expect(parseLenientJson('[{"a": 1}, {"a": ?}, {"a": 3}]')!.value).toEqual([{ a: 1 }, { a: 3 }]);
  });
});
