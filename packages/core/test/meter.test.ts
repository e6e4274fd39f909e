import { describe, expect, it } from 'vitest';
import { type ChatModel, embedAll, generateText } from '../src/index.js';
import { Meter, meteredChat, meteredEmbedder } from '../src/kit.js';
import { createScriptedChatModel, createScriptedEmbedder } from '../src/test/index.js';

describe('Meter', () => {
  it('counts calls and tokens per stage and in total', async () => {
    const meter = new Meter();
    const chat = meteredChat(
      createScriptedChatModel(() => ({ text: 'ok', usage: { inputTokens: 10, outputTokens: 2 } })),
      meter,
    );
    const embedder = meteredEmbedder(createScriptedEmbedder({ dimensions: 4 }), meter);
    await meter.stage('extract', async () => {
      await generateText(chat, { user: 'a' });
      await generateText(chat, { user: 'b' });
    });
    await meter.stage('embed', () => embedAll(embedder, ['one two', 'three']));
    await generateText(chat, { user: 'outside' });
    const snap = meter.snapshot();
    expect(snap.stages.extract).toMatchObject({ chatCalls: 2, inputTokens: 20, outputTokens: 4 });
    expect(snap.stages.embed).toMatchObject({ embedCalls: 1, embeddedValues: 2, embedTokens: 3 });
    expect(snap.stages.other).toMatchObject({ chatCalls: 1 });
    expect(snap.total).toMatchObject({ chatCalls: 3, inputTokens: 30, outputTokens: 6, embedTokens: 3 });
    expect(snap.total.models['scripted:scripted-chat']).toEqual({
      calls: 3,
      inputTokens: 30,
      outputTokens: 6,
    });
    expect(snap.stages.extract!.wallMs).toBeGreaterThanOrEqual(0);
  });

  it('keeps stages apart across concurrent async work', async () => {
    const meter = new Meter();
    const chat = meteredChat(
      createScriptedChatModel(async () => {
        await new Promise((r) => setTimeout(r, 5));
        return { text: 'x', usage: { inputTokens: 1, outputTokens: 1 } };
      }),
      meter,
    );
    await Promise.all([
      meter.stage('a', () =>
        Promise.all([generateText(chat, { user: '1' }), generateText(chat, { user: '2' })]),
      ),
      meter.stage('b', () => generateText(chat, { user: '3' })),
    ]);
    const snap = meter.snapshot();
    expect(snap.stages.a!.chatCalls).toBe(2);
    expect(snap.stages.b!.chatCalls).toBe(1);
  });

  it('counts tokens with a tokenizer when the provider reports no usage', async () => {
    const meter = new Meter();
    const words = { name: 'words', count: (t: string) => t.split(/\s+/).filter(Boolean).length } as never;
    const chat = meteredChat(createScriptedChatModel(['three word answer']), meter, words);
    await generateText(chat, { system: 'be brief', user: 'what is it' });
    expect(meter.snapshot().total).toMatchObject({ inputTokens: 5, outputTokens: 3 });
  });

  it('keeps a streaming model streaming and records its usage when the stream finishes or stops', async () => {
    const meter = new Meter();
    const words = { name: 'words', count: (t: string) => t.split(/\s+/).filter(Boolean).length } as never;
    const base = createScriptedChatModel(['unused']);
    const streaming: ChatModel = {
      ...base,
      doGenerate: base.doGenerate.bind(base),
      async *doStream() {
        yield { type: 'text-delta', text: 'one two ' };
        yield { type: 'text-delta', text: 'three' };
        yield { type: 'finish', usage: { inputTokens: 7, outputTokens: 3 } };
      },
    };
    const chat = meteredChat(streaming, meter, words);
    expect(chat.doStream).toBeDefined();
    const texts: string[] = [];
    for await (const part of chat.doStream!({ messages: [{ role: 'user', content: 'q' }] })) {
      if (part.type === 'text-delta') texts.push(part.text);
    }
    expect(texts).toEqual(['one two ', 'three']);
    expect(meter.snapshot().total).toMatchObject({ inputTokens: 7, outputTokens: 3 });
    // A caller that stops after the first delta: the text that arrived is counted with the tokenizer.
    for await (const _part of chat.doStream!({ messages: [{ role: 'user', content: 'a b' }] })) break;
    expect(meter.snapshot().total).toMatchObject({ inputTokens: 9, outputTokens: 5 });
    // A model without doStream stays without it.
    expect(meteredChat(base, meter).doStream).toBeUndefined();
  });
});
