import { createScriptedChatModel } from '@grag/core/test';
import { describe, expect, it } from 'vitest';
import { AbortError, InvalidArgumentError, ModelOutputError } from '../src/contracts/errors.js';
import type { ChatCallOptions } from '../src/contracts/models.js';
import type { TaskSuite } from '../src/contracts/tasks.js';
import {
  createPromptTasks,
  DEFAULT_ENTITY_TYPES,
  GLEANING_CHECK_PROMPT,
  gleaningContinuePrompt,
  NOT_RECOVERED_NOTE,
  outputFormat,
  type ParseIssue,
  PROMPT_TASK_DEFAULTS,
  repairPrompt,
  type TaskName,
  TUPLE_DELIMITER_DEFAULTS,
} from '../src/tasks/index.js';

const FIRST = '("entity"<|>ALICE<|>PERSON<|>A baker)##("entity"<|>BOB<|>PERSON<|>A miller)<|COMPLETE|>';
const MORE = '("relationship"<|>ALICE<|>BOB<|>Alice buys flour from Bob<|>7)<|COMPLETE|>';
const CONTINUE = gleaningContinuePrompt('tuples', PROMPT_TASK_DEFAULTS);

describe('createPromptTasks', () => {
  it('names itself after the provider and model', () => {
    const model = createScriptedChatModel([], { provider: 'openai', modelId: 'gpt-4o-mini' });
    expect(createPromptTasks(model).id).toBe('prompt:openai:gpt-4o-mini');
  });

  it("leaves its judgement undeclared: a model's by default", () => {
    const suite: TaskSuite = createPromptTasks(createScriptedChatModel([]));
    expect(suite.judgement).toBeUndefined();
  });

  it('rejects unusable options with InvalidArgumentError naming the option', () => {
    const model = createScriptedChatModel([]);
    const bad: [Record<string, unknown>, string][] = [
      [{ gleanings: -1 }, 'gleanings'],
      [{ gleanings: 1.5 }, 'gleanings'],
      [{ entityTypes: [] }, 'entityTypes'],
      [{ tupleDelimiter: '' }, 'tupleDelimiter'],
      [{ format: 'xml' }, 'format'],
    ];
    for (const [options, argument] of bad) {
      let error: unknown;
      try {
        createPromptTasks(model, options);
      } catch (e) {
        error = e;
      }
      expect(InvalidArgumentError.isInstance(error) && error.argument).toBe(argument);
    }
  });
});

describe('extractGraph', () => {
  it('sends one GraphRAG-style prompt with the entity types and delimiters when gleaning is off', async () => {
    const model = createScriptedChatModel([FIRST]);
    const controller = new AbortController();
    const out = await createPromptTasks(model, { gleanings: 0 }).extractGraph('Alice buys flour from Bob.', {
      abortSignal: controller.signal,
    });
    expect(model.calls).toHaveLength(1);
    const call = model.calls[0]!;
    expect(call.temperature).toBe(0);
    expect(call.abortSignal).toBe(controller.signal);
    expect(call.messages.map((m) => m.role)).toEqual(['system', 'user']);
    const user = call.messages[1]!.content;
    expect(user).toContain(DEFAULT_ENTITY_TYPES.join(', '));
    expect(user).toContain('("entity"<|>NAME<|>TYPE<|>DESCRIPTION)');
    expect(user).toContain('("relationship"<|>SOURCE<|>TARGET<|>DESCRIPTION<|>STRENGTH)');
    expect(user).toContain('<|COMPLETE|>');
    expect(user).toContain('Alice buys flour from Bob.');
    expect(out.entities.map((e) => e.name)).toEqual(['ALICE', 'BOB']);
    expect(out.issues).toEqual([]);
  });

  it('puts per-call entity types and custom delimiters in the prompt', async () => {
    const model = createScriptedChatModel(['(entity;;ACME;;company;;x)~~DONE']);
    const tasks = createPromptTasks(model, {
      gleanings: 0,
      tupleDelimiter: ';;',
      recordDelimiter: '~~',
      completionDelimiter: 'DONE',
    });
    const out = await tasks.extractGraph('ACME makes anvils.', { entityTypes: ['company', 'product'] });
    const user = model.calls[0]!.messages[1]!.content;
    expect(user).toContain('company, product');
    expect(user).not.toContain('organization');
    expect(user).toContain('("entity";;NAME;;TYPE;;DESCRIPTION)');
    expect(out.entities).toEqual([{ name: 'ACME', type: 'company', description: 'x' }]);
  });

  it('gleans once by default: sends the previous answer back, asks for what was missed, merges both', async () => {
    const model = createScriptedChatModel([FIRST, MORE]);
    const out = await createPromptTasks(model).extractGraph('Alice buys flour from Bob.');
    expect(model.calls).toHaveLength(2);
    const second = model.calls[1]!.messages;
    expect(second.slice(0, 2)).toEqual(model.calls[0]!.messages);
    expect(second.slice(2)).toEqual([
      { role: 'assistant', content: FIRST },
      { role: 'user', content: CONTINUE },
    ]);
    expect(out.entities.map((e) => e.name)).toEqual(['ALICE', 'BOB']);
    expect(out.relations).toEqual([
      { source: 'ALICE', target: 'BOB', description: 'Alice buys flour from Bob', weight: 7 },
    ]);
  });

  it('asks "are there more?" between gleaning passes and stops on NO', async () => {
    const model = createScriptedChatModel([FIRST, MORE, 'NO']);
    const out = await createPromptTasks(model, { gleanings: 3 }).extractGraph('text');
    expect(model.calls).toHaveLength(3);
    const check = model.calls[2]!.messages;
    expect(check.slice(-3)).toEqual([
      { role: 'user', content: CONTINUE },
      { role: 'assistant', content: MORE },
      { role: 'user', content: GLEANING_CHECK_PROMPT },
    ]);
    expect(out.relations).toHaveLength(1);
  });

  it('goes on after YES, keeps the check in the conversation, and asks no check after the last pass', async () => {
    const third = '("entity"<|>CAROL<|>PERSON<|>A baker too)<|COMPLETE|>';
    const model = createScriptedChatModel([FIRST, MORE, 'YES', third]);
    const out = await createPromptTasks(model, { gleanings: 2 }).extractGraph('text');
    expect(model.calls).toHaveLength(4);
    expect(model.calls[3]!.messages.slice(2)).toEqual([
      { role: 'assistant', content: FIRST },
      { role: 'user', content: CONTINUE },
      { role: 'assistant', content: MORE },
      { role: 'user', content: GLEANING_CHECK_PROMPT },
      { role: 'assistant', content: 'YES' },
      { role: 'user', content: CONTINUE },
    ]);
    expect(out.entities.map((e) => e.name)).toEqual(['ALICE', 'BOB', 'CAROL']);
  });

  it('skips the check when gleaningCheck is off', async () => {
    const model = createScriptedChatModel([FIRST, MORE, '<|COMPLETE|>']);
    await createPromptTasks(model, { gleanings: 2, gleaningCheck: false }).extractGraph('text');
    expect(model.calls.map((c) => c.messages.at(-1)!.content)).not.toContain(GLEANING_CHECK_PROMPT);
    expect(model.calls).toHaveLength(3);
  });

  it('drops duplicate records from gleaning and reports no-records only when no pass found anything', async () => {
    const model = createScriptedChatModel([FIRST, `${FIRST}`]);
    const dup = await createPromptTasks(model).extractGraph('text');
    expect(dup.entities).toHaveLength(2);
    expect(dup.issues).toEqual([]);

    const empty = createScriptedChatModel(['<|COMPLETE|>', 'Nothing else.']);
    const none = await createPromptTasks(empty).extractGraph('text');
    expect(none.issues).toEqual([{ kind: 'no-records', reason: expect.any(String), raw: '<|COMPLETE|>' }]);
  });

  it('asks for JSON in json format and parses the JSON answer', async () => {
    const model = createScriptedChatModel([
      '{"entities": [{"name": "Alice", "type": "person", "description": "d"}], "relationships": []}',
    ]);
    const out = await createPromptTasks(model, { format: 'json', gleanings: 0 }).extractGraph('Alice.');
    expect(model.calls[0]!.responseFormat).toBe('json');
    expect(model.calls[0]!.messages[1]!.content).toContain('"relationships"');
    expect(out.entities).toEqual([{ name: 'Alice', type: 'person', description: 'd' }]);
  });

  it('reports a truncated issue when the model stops at its token limit', async () => {
    const model = createScriptedChatModel(() => ({ text: FIRST, finishReason: 'length' }));
    const out = await createPromptTasks(model, { gleanings: 0, maxOutputTokens: 50 }).extractGraph('text');
    expect(model.calls[0]!.maxOutputTokens).toBe(50);
    expect(out.issues.map((i) => i.kind)).toEqual(['truncated']);
  });

  it('does not call the model for blank text or after an abort', async () => {
    const model = createScriptedChatModel([]);
    const tasks = createPromptTasks(model);
    expect(await tasks.extractGraph('  ')).toEqual({ entities: [], relations: [], issues: [] });
    const controller = new AbortController();
    controller.abort();
    await expect(tasks.extractGraph('text', { abortSignal: controller.signal })).rejects.toSatisfy(
      AbortError.isInstance,
    );
    expect(model.calls).toHaveLength(0);
  });
});

describe('the other tasks', () => {
  it('decomposes text into NodeRAG semantic units with a JSON prompt', async () => {
    const model = createScriptedChatModel([
      '{"units": [{"semantic_unit": "Alice buys flour.", "entities": ["Alice", "flour"], "relationships": ["Alice, buys, flour"]}]}',
    ]);
    const out = await createPromptTasks(model).decomposeSemanticUnits('Alice buys flour every Monday.');
    expect(model.calls[0]!.responseFormat).toBe('json');
    expect(model.calls[0]!.messages.at(-1)!.content).toContain('Alice buys flour every Monday.');
    expect(model.calls[0]!.messages.at(-1)!.content).toContain('ENTITY_A, RELATION, ENTITY_B');
    expect(out.units).toEqual([
      {
        text: 'Alice buys flour.',
        entities: ['Alice', 'flour'],
        relationships: [{ source: 'Alice', relation: 'buys', target: 'flour' }],
      },
    ]);
  });

  it('summarizes every non-blank text within a word budget and rejects empty input and output', async () => {
    const model = createScriptedChatModel(['Summary: Both bake.', '  ']);
    const tasks = createPromptTasks(model);
    expect(await tasks.summarize(['Alice bakes.', ' ', 'Bob bakes.'], { maxTokens: 100 })).toBe('Both bake.');
    const user = model.calls[0]!.messages.at(-1)!.content;
    expect(user).toContain('[1]\nAlice bakes.');
    expect(user).toContain('[2]\nBob bakes.');
    expect(user).toContain('75 words');
    await expect(tasks.summarize(['x'])).rejects.toSatisfy(ModelOutputError.isInstance);
    await expect(tasks.summarize([' '])).rejects.toSatisfy(InvalidArgumentError.isInstance);
  });

  it('uses the entity-description prompt for purpose "entity"', async () => {
    const model = createScriptedChatModel(['Alice is a baker in Paris.']);
    await createPromptTasks(model).summarize(['A baker.', 'Lives in Paris.'], { purpose: 'entity' });
    expect(model.calls[0]!.messages.at(-1)!.content).toMatch(/same entity/);
  });

  it('gets a DA-RAG title and description', async () => {
    const model = createScriptedChatModel(['{"title": "Bakers", "description": "About bakers."}']);
    expect(await createPromptTasks(model).titleAndDescription('Alice bakes.')).toEqual({
      title: 'Bakers',
      description: 'About bakers.',
      issues: [],
    });
    expect(model.calls[0]!.messages.at(-1)!.content).toContain('Alice bakes.');
  });

  it('extracts query entities and reports their parse issues, also to onIssues', async () => {
    const seen: [TaskName, ParseIssue[]][] = [];
    const model = createScriptedChatModel(['{"entities": ["Paris", "Fra']);
    const tasks = createPromptTasks(model, { onIssues: (task, issues) => seen.push([task, issues]) });
    expect((await tasks.extractQueryEntities('Is Paris in France?')).entities).toEqual(['Paris']);
    expect(model.calls[0]!.messages.at(-1)!.content).toContain('Is Paris in France?');
    expect(seen).toEqual([['extractQueryEntities', [expect.objectContaining({ kind: 'truncated' })]]]);
    expect(
      (
        await createPromptTasks(
          createScriptedChatModel(['{"entities": ["Paris", "Fra']),
        ).extractQueryEntities('Is Paris in France?')
      ).issues,
    ).toEqual([expect.objectContaining({ kind: 'truncated' })]);
  });

  it('extracts an SG-RAG query graph with an unknown target', async () => {
    const model = createScriptedChatModel([
      '{"nodes": [{"id": "n1", "label": "UNK", "target": true}, {"id": "n2", "label": "France"}], "edges": [{"source": "n1", "target": "n2", "relation": "capital of"}]}',
    ]);
    const out = await createPromptTasks(model).extractQueryGraph('What is the capital of France?');
    expect(model.calls[0]!.messages.at(-1)!.content).toContain('"UNK"');
    expect(out).toEqual({
      nodes: [
        { id: 'n1', label: null, isTarget: true },
        { id: 'n2', label: 'France', isTarget: false },
      ],
      edges: [{ source: 'n1', target: 'n2', relation: 'capital of' }],
      issues: [],
    });
  });

  it('scores a community and writes its report in one call', async () => {
    const model = createScriptedChatModel(['{"score": 80, "report": "Paris is the capital."}']);
    const out = await createPromptTasks(model).assessCommunity(
      'Capital of France?',
      'Paris -- capital of --> France',
    );
    const user = model.calls[0]!.messages.at(-1)!.content;
    expect(user).toContain('Capital of France?');
    expect(user).toContain('Paris -- capital of --> France');
    expect(out.score).toBe(8);
    expect(out.report).toBe('Paris is the capital.');
    expect(out.issues.map((i) => i.kind)).toEqual(['invalid-value']);
    await expect(createPromptTasks(model).assessCommunity(' ', 'x')).rejects.toSatisfy(
      InvalidArgumentError.isInstance,
    );
  });

  it('lists the context ids in the answer prompt and checks the citations against them', async () => {
    const model = createScriptedChatModel(['Paris [doc1#0], on the Seine [doc2#4][doc9#9].']);
    const out = await createPromptTasks(model).answer('Where is Paris?', [
      { id: 'doc1#0', text: 'Paris is the capital of France.' },
      { id: 'doc2#4', text: 'The Seine flows through Paris.' },
    ]);
    const user = model.calls[0]!.messages.at(-1)!.content;
    expect(user).toContain('[doc1#0] Paris is the capital of France.');
    expect(user).toContain('[doc2#4] The Seine flows through Paris.');
    expect(user).toContain('Question: Where is Paris?');
    expect(model.calls[0]!.responseFormat).toBe('text');
    expect(out.citations).toEqual(['doc1#0', 'doc2#4']);
    expect(out.issues).toEqual([expect.objectContaining({ kind: 'invalid-value', raw: '[doc9#9]' })]);
  });
});

describe('repair retry', () => {
  const TEXT = 'Alice buys flour from Bob.';
  const BROKEN = '("entity"<|>ALICE<|>PERSON<|>A baker)##("entity"<|><|>person<|>Bob, a miller)<|COMPLETE|>';
  const BROKEN_RAW = '("entity"<|><|>person<|>Bob, a miller)';
  const FIXED = '("entity"<|>ALICE<|>PERSON<|>A baker)##("entity"<|>BOB<|>PERSON<|>A miller)<|COMPLETE|>';
  const TUPLE_FORMAT = outputFormat('extractGraph', { format: 'tuples', ...TUPLE_DELIMITER_DEFAULTS });

  it('sends one repair turn quoting the unreadable record, merges what it recovers, drops its issue', async () => {
    const model = createScriptedChatModel([BROKEN, FIXED]);
    const out = await createPromptTasks(model, { gleanings: 0 }).extractGraph(TEXT);
    expect(model.calls).toHaveLength(2);
    const [first, repair] = model.calls as [ChatCallOptions, ChatCallOptions];
    const prompt = repairPrompt({
      unreadable: [BROKEN_RAW],
      scope: 'parts',
      format: TUPLE_FORMAT,
      what: 'records',
    });
    expect(repair.messages).toEqual([
      ...first.messages,
      { role: 'assistant', content: BROKEN },
      { role: 'user', content: prompt },
    ]);
    // The prompt quotes the raw record and restates the format.
    expect(prompt).toContain(`<<<\n${BROKEN_RAW}\n>>>`);
    expect(prompt).toContain('("entity"<|>NAME<|>TYPE<|>DESCRIPTION)');
    expect(prompt).toContain('<|COMPLETE|>');
    expect(repair.task).toEqual({
      name: 'extractGraph',
      args: [TEXT, { entityTypes: DEFAULT_ENTITY_TYPES, gleanings: 0 }],
      turn: 1,
      kind: 'repair',
    });
    expect(repair.responseFormat).toBe('text');
    // ALICE, given again by the repair answer, is not duplicated.
    expect(out).toEqual({
      entities: [
        { name: 'ALICE', type: 'person', description: 'A baker' },
        { name: 'BOB', type: 'person', description: 'A miller' },
      ],
      relations: [],
      issues: [],
    });
  });

  it('repairs once, after the last gleaning turn, quoting records of every pass', async () => {
    const brokenRelation = '("relationship"<|>ALICE<|><|>buys flour<|>7)';
    const model = createScriptedChatModel([
      BROKEN,
      `${brokenRelation}<|COMPLETE|>`,
      '("entity"<|>BOB<|>PERSON<|>A miller)##("relationship"<|>ALICE<|>BOB<|>buys flour<|>7)<|COMPLETE|>',
    ]);
    const out = await createPromptTasks(model, { gleanings: 1 }).extractGraph(TEXT);
    expect(model.calls).toHaveLength(3);
    const repair = model.calls[2]!;
    expect(repair.messages.slice(2)).toEqual([
      { role: 'assistant', content: BROKEN },
      { role: 'user', content: CONTINUE },
      { role: 'assistant', content: `${brokenRelation}<|COMPLETE|>` },
      {
        role: 'user',
        content: repairPrompt({
          unreadable: [BROKEN_RAW, brokenRelation],
          scope: 'parts',
          format: TUPLE_FORMAT,
          what: 'records',
        }),
      },
    ]);
    expect(repair.task).toMatchObject({ name: 'extractGraph', turn: 2, kind: 'repair' });
    expect(out.entities.map((e) => e.name)).toEqual(['ALICE', 'BOB']);
    expect(out.relations).toEqual([{ source: 'ALICE', target: 'BOB', description: 'buys flour', weight: 7 }]);
    expect(out.issues).toEqual([]);
  });

  it('keeps an issue with its raw text when the repair does not recover the record, and never loops', async () => {
    const seen: ParseIssue[][] = [];
    const model = createScriptedChatModel([BROKEN, 'Sorry, I cannot tell who that is.']);
    const out = await createPromptTasks(model, {
      gleanings: 0,
      onIssues: (_task, issues) => seen.push(issues),
    }).extractGraph(TEXT);
    expect(model.calls).toHaveLength(2);
    expect(out.entities.map((e) => e.name)).toEqual(['ALICE']);
    expect(out.issues).toEqual([
      {
        kind: 'skipped-record',
        reason: `entity record without a name${NOT_RECOVERED_NOTE}`,
        raw: BROKEN_RAW,
        repairable: true,
      },
    ]);
    expect(seen).toEqual([out.issues]);
  });

  it('sends no repair call with repair: false, and none for cut-off or clean output', async () => {
    const off = createScriptedChatModel([BROKEN]);
    const out = await createPromptTasks(off, { gleanings: 0, repair: false }).extractGraph(TEXT);
    expect(off.calls).toHaveLength(1);
    expect(out.issues).toEqual([
      { kind: 'skipped-record', reason: 'entity record without a name', raw: BROKEN_RAW, repairable: true },
    ]);
    // A record cut off at the end is reported as truncated, not repaired.
    const cut = createScriptedChatModel(['("entity"<|>ALICE<|>PERSON<|>A baker)##("entity"<|>BOB<|>PER']);
    const truncated = await createPromptTasks(cut, { gleanings: 0 }).extractGraph(TEXT);
    expect(cut.calls).toHaveLength(1);
    expect(truncated.issues.map((i) => i.kind)).toEqual(['truncated']);
    expect(() => createPromptTasks(off, { repair: 'yes' as never })).toThrow(/repair must be true or false/);
  });

  it('asks for the whole answer again when the output had no records in it', async () => {
    const prose = 'Alice is a person and Bob is a person.';
    const model = createScriptedChatModel([prose, FIXED]);
    const out = await createPromptTasks(model, { gleanings: 0 }).extractGraph(TEXT);
    expect(model.calls[1]!.messages.at(-1)).toEqual({
      role: 'user',
      content: repairPrompt({ unreadable: [prose], scope: 'whole', format: TUPLE_FORMAT, what: 'records' }),
    });
    expect(out.entities.map((e) => e.name)).toEqual(['ALICE', 'BOB']);
    expect(out.issues).toEqual([]);
    // A well-formed "nothing found" is not repaired.
    const empty = createScriptedChatModel(['<|COMPLETE|>']);
    await createPromptTasks(empty, { gleanings: 0 }).extractGraph(TEXT);
    expect(empty.calls).toHaveLength(1);
  });

  it('merges repaired relationships into their semantic unit', async () => {
    const first =
      '{"units": [{"semantic_unit": "Alice buys flour from Bob.", "entities": ["Alice", "Bob"], "relationships": ["Alice, Bob"]}]}';
    const fixed =
      '{"units": [{"semantic_unit": "Alice buys flour from Bob.", "entities": ["Alice", "Bob", "flour"], "relationships": ["Alice, buys flour from, Bob"]}]}';
    const model = createScriptedChatModel([first, fixed]);
    const out = await createPromptTasks(model).decomposeSemanticUnits(TEXT);
    expect(model.calls).toHaveLength(2);
    expect(model.calls[1]!.task).toEqual({
      name: 'decomposeSemanticUnits',
      args: [TEXT],
      turn: 1,
      kind: 'repair',
    });
    expect(model.calls[1]!.messages.at(-1)!.content).toContain('<<<\nAlice, Bob\n>>>');
    expect(model.calls[1]!.responseFormat).toBe('json');
    expect(out).toEqual({
      units: [
        {
          text: 'Alice buys flour from Bob.',
          entities: ['Alice', 'Bob', 'flour'],
          relationships: [{ source: 'Alice', relation: 'buys flour from', target: 'Bob' }],
        },
      ],
      issues: [],
    });
  });

  it('adds the query entities a repair recovers, without duplicates', async () => {
    const model = createScriptedChatModel([
      '{"entities": ["Paris", {"nom": "France"}]}',
      '{"entities": ["France", "paris"]}',
    ]);
    const out = await createPromptTasks(model).extractQueryEntities('Is Paris in France?');
    expect(model.calls[1]!.messages.at(-1)!.content).toContain('<<<\n{"nom":"France"}\n>>>');
    expect(out).toEqual({ entities: ['Paris', 'France'], issues: [] });
  });

  it('replaces a query graph, a title or a community assessment by a better repair answer', async () => {
    const graph = '{"nodes": [{"id": "n1", "label": "UNK", "target": true}], "edges": []}';
    const qg = createScriptedChatModel(['The unknown is the capital.', graph]);
    const g = await createPromptTasks(qg).extractQueryGraph('What is the capital of France?');
    expect(qg.calls[1]!.task).toMatchObject({ name: 'extractQueryGraph', kind: 'repair' });
    expect(g).toEqual({ nodes: [{ id: 'n1', label: null, isTarget: true }], edges: [], issues: [] });

    const td = createScriptedChatModel(['{}', '{"title": "Bakers", "description": "About bakers."}']);
    expect(await createPromptTasks(td).titleAndDescription('Alice bakes.')).toEqual({
      title: 'Bakers',
      description: 'About bakers.',
      issues: [],
    });

    const ca = createScriptedChatModel([
      '{"score": "high", "report": "Paris is the capital."}',
      '{"score": 9, "report": "Paris is the capital of France."}',
    ]);
    const assessed = await createPromptTasks(ca).assessCommunity(
      'Capital of France?',
      'Paris -- capital of --> France',
    );
    expect(ca.calls).toHaveLength(2);
    expect(ca.calls[1]!.task).toEqual({
      name: 'assessCommunity',
      args: ['Capital of France?', 'Paris -- capital of --> France'],
      turn: 1,
      kind: 'repair',
    });
    expect(assessed).toEqual({ score: 9, report: 'Paris is the capital of France.', issues: [] });

    // A repair answer that is no better leaves the first result, its issue marked.
    const worse = createScriptedChatModel(['{"score": "high", "report": "r"}', 'I cannot say.']);
    const kept = await createPromptTasks(worse).assessCommunity('q', 'c');
    expect(kept.score).toBe(0);
    expect(kept.report).toBe('r');
    expect(kept.issues).toEqual([expect.objectContaining({ kind: 'invalid-value', repairable: true })]);
    expect(kept.issues[0]!.reason.endsWith(NOT_RECOVERED_NOTE)).toBe(true);
  });

  it('retries an empty summary once and throws only when the repair is empty too', async () => {
    const model = createScriptedChatModel(['Summary:', 'Both bake bread.']);
    expect(await createPromptTasks(model).summarize(['Alice bakes.', 'Bob bakes.'])).toBe('Both bake bread.');
    expect(model.calls[1]!.messages.slice(2)).toEqual([
      { role: 'assistant', content: 'Summary:' },
      {
        role: 'user',
        content: repairPrompt({
          unreadable: ['Summary:'],
          scope: 'whole',
          format: outputFormat('summarize'),
        }),
      },
    ]);
    expect(model.calls[1]!.task).toMatchObject({ name: 'summarize', turn: 1, kind: 'repair' });

    const twice = createScriptedChatModel(['Summary:', '```\n```']);
    await expect(createPromptTasks(twice).summarize(['x'])).rejects.toSatisfy(ModelOutputError.isInstance);
    expect(twice.calls).toHaveLength(2);
    const off = createScriptedChatModel(['Summary:']);
    await expect(createPromptTasks(off, { repair: false }).summarize(['x'])).rejects.toSatisfy(
      ModelOutputError.isInstance,
    );
    expect(off.calls).toHaveLength(1);
  });
});
