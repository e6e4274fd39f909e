import { generateText, InvalidArgumentError, ProviderError } from '@grag/core';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createOpenAI, mapFinishReason, OPENAI_CHAT_DEFAULTS } from '../src/index.js';
import { type FakeOpenAIServer, rejection, useFakeServer } from './fake-server.js';

let server: FakeOpenAIServer;
const provider = useFakeServer((fresh) => {
  server = fresh;
});

afterEach(() => {
  vi.unstubAllEnvs();
});

describe('OpenAIChatModel', () => {
  it('reports provider openai, the model id and the contract version', () => {
    const model = provider().chat('gpt-4o-mini');
    expect([model.specificationVersion, model.provider, model.modelId]).toEqual([
      'v1',
      'openai',
      'gpt-4o-mini',
    ]);
    expect(model.settings).toEqual(OPENAI_CHAT_DEFAULTS);
  });

  it('sends messages, temperature, max_tokens, stop, seed and a JSON response format', async () => {
    const messages = [
      { role: 'system' as const, content: 'Answer in JSON.' },
      { role: 'user' as const, content: 'hello' },
    ];
    const model = provider().chat('gpt-4o-mini');
    const result = await model.doGenerate({
      messages,
      temperature: 0.3,
      maxOutputTokens: 64,
      stop: ['END'],
      seed: 7,
      responseFormat: 'json',
    });
    const [request] = server.requestsTo('chat');
    expect(request?.method).toBe('POST');
    expect(request?.path).toBe('/v1/chat/completions');
    expect(request?.body).toEqual({
      model: 'gpt-4o-mini',
      messages,
      temperature: 0.3,
      max_tokens: 64,
      stop: ['END'],
      seed: 7,
      response_format: { type: 'json_object' },
    });
    expect(result).toEqual({
      text: 'echo: hello',
      usage: { inputTokens: 11, outputTokens: 7 },
      finishReason: 'stop',
    });
  });

  it('leaves out every option the call did not set', async () => {
    await provider()
      .chat('m')
      .doGenerate({ messages: [{ role: 'user', content: 'hi' }], stop: [] });
    expect(server.requests[0]?.body).toEqual({ model: 'm', messages: [{ role: 'user', content: 'hi' }] });
  });

  it('omits response_format when jsonResponseFormat is off and can name max_completion_tokens', async () => {
    const model = provider().chat('o3-mini', {
      jsonResponseFormat: false,
      maxTokensParam: 'max_completion_tokens',
    });
    await model.doGenerate({
      messages: [{ role: 'user', content: 'x' }],
      responseFormat: 'json',
      maxOutputTokens: 5,
    });
    const body = server.requests[0]?.body;
    expect(body.response_format).toBeUndefined();
    expect(body.max_tokens).toBeUndefined();
    expect(body.max_completion_tokens).toBe(5);
  });

  it('works through generateText from core', async () => {
    const result = await generateText(provider().chat('m'), { system: 'be brief', user: 'ping' });
    expect(result.text).toBe('echo: ping');
    expect(server.requests[0]?.body.temperature).toBe(0);
  });

  it('sends the API key as a bearer token, the organization and custom headers', async () => {
    const model = provider({ apiKey: 'sk-abc', organization: 'org-1', headers: { 'x-extra': 'yes' } }).chat(
      'm',
    );
    await model.doGenerate({ messages: [{ role: 'user', content: 'x' }] });
    const headers = server.requests[0]?.headers;
    expect(headers?.authorization).toBe('Bearer sk-abc');
    expect(headers?.['openai-organization']).toBe('org-1');
    expect(headers?.['x-extra']).toBe('yes');
  });

  it('maps finish reasons onto the contract and returns empty text for null content', async () => {
    server.script('chat', {
      json: { choices: [{ message: { role: 'assistant', content: null }, finish_reason: 'content_filter' }] },
    });
    const result = await provider()
      .chat('m')
      .doGenerate({ messages: [{ role: 'user', content: 'x' }] });
    expect(result).toEqual({ text: '', finishReason: 'content-filter' });
    expect(
      ['stop', 'length', 'content_filter', 'tool_calls', 'function_call', 'eos', null, undefined].map(
        mapFinishReason,
      ),
    ).toEqual(['stop', 'length', 'content-filter', 'other', 'other', 'other', undefined, undefined]);
  });

  it('rejects an empty message list without sending a request', async () => {
    const error = await rejection(provider().chat('m').doGenerate({ messages: [] }));
    expect(InvalidArgumentError.isInstance(error) && error.argument).toBe('messages');
    expect(server.requests).toHaveLength(0);
  });
});

describe('OpenAIChatModel error responses', () => {
  const messages = [{ role: 'user' as const, content: 'x' }];

  it('turns a 401 into a ProviderError that points at OPENAI_API_KEY, after one request', async () => {
    server.script('chat', { status: 401, json: { error: { message: 'Incorrect API key provided' } } });
    const error = await rejection(provider().chat('gpt-4o').doGenerate({ messages }));
    expect(ProviderError.isInstance(error)).toBe(true);
    const e = error as ProviderError;
    expect([e.provider, e.status, e.retryable]).toEqual(['openai', 401, false]);
    expect(e.message).toContain('OPENAI_API_KEY');
    expect(e.message).toContain("'gpt-4o'");
    expect(e.message).toContain('401');
    expect(e.message).toContain('Incorrect API key provided');
    expect(e.message).not.toContain('\n');
    expect(server.requests).toHaveLength(1);
  });

  it('turns a 404 into a ProviderError that names the model and the baseURL', async () => {
    server.script('chat', { status: 404, json: { error: { message: 'model not found' } } });
    const error = (await rejection(provider().chat('llama9').doGenerate({ messages }))) as ProviderError;
    expect([error.status, error.retryable]).toEqual([404, false]);
    expect(error.message).toMatch(/'llama9'.*baseURL/);
    expect(server.requests).toHaveLength(1);
  });

  it('turns a 400 into a ProviderError that mentions jsonResponseFormat', async () => {
    server.script('chat', { status: 400, json: { error: { message: 'response_format is not supported' } } });
    const error = (await rejection(provider().chat('m').doGenerate({ messages }))) as ProviderError;
    expect([error.status, error.retryable]).toEqual([400, false]);
    expect(error.message).toContain('jsonResponseFormat: false');
    expect(server.requests).toHaveLength(1);
  });

  it('does not retry a 429 that reports an exhausted quota', async () => {
    server.script('chat', {
      status: 429,
      json: { error: { message: 'You exceeded your current quota', code: 'insufficient_quota' } },
    });
    const error = (await rejection(provider().chat('m').doGenerate({ messages }))) as ProviderError;
    expect([error.status, error.retryable]).toEqual([429, false]);
    expect(error.message).toContain('quota');
    expect(server.requests).toHaveLength(1);
  });

  it('retries a body that is not JSON, then reports it in a ProviderError', async () => {
    const page = { raw: '<html>Bad Gateway</html>' };
    server.script('chat', page, page);
    const error = (await rejection(
      provider({ maxRetries: 1 }).chat('m').doGenerate({ messages }),
    )) as ProviderError;
    expect(ProviderError.isInstance(error)).toBe(true);
    expect(error.retryable).toBe(true);
    expect(error.message).toContain('failed after 2 attempts (last: returned a malformed response (not JSON');
    expect(error.message).toContain('<html>');
    expect(server.requests).toHaveLength(2);
  });

  it('retries a JSON content type with a broken body and returns the answer of the retry', async () => {
    server.script('chat', { raw: '{"choices": [', headers: { 'content-type': 'application/json' } });
    const result = await provider().chat('m').doGenerate({ messages });
    expect(result.text).toBe('echo: x');
    expect(server.requests).toHaveLength(2);
  });

  it('turns a JSON body without choices into a ProviderError', async () => {
    server.script('chat', { json: { id: 'x', object: 'chat.completion' } });
    const error = (await rejection(provider().chat('m').doGenerate({ messages }))) as ProviderError;
    expect(ProviderError.isInstance(error)).toBe(true);
    expect(error.message).toContain('no `choices` array');
    expect(server.requests).toHaveLength(1);
  });

  it('turns empty choices into a ProviderError', async () => {
    server.script('chat', { json: { choices: [] } });
    const error = (await rejection(provider().chat('m').doGenerate({ messages }))) as ProviderError;
    expect(error.message).toContain('empty `choices`');
  });
});

describe('createOpenAI and the environment', () => {
  it('reads OPENAI_API_KEY and OPENAI_BASE_URL at the first request, not at creation', async () => {
    vi.stubEnv('OPENAI_API_KEY', '');
    vi.stubEnv('OPENAI_BASE_URL', '');
    const lazy = createOpenAI({ retryBaseDelayMs: 1 });
    const model = lazy.chat('m');
    vi.stubEnv('OPENAI_API_KEY', 'sk-from-env');
    vi.stubEnv('OPENAI_BASE_URL', server.baseURL);
    const result = await model.doGenerate({ messages: [{ role: 'user', content: 'env' }] });
    expect(result.text).toBe('echo: env');
    expect(server.requests[0]?.headers.authorization).toBe('Bearer sk-from-env');
  });

  it('throws InvalidArgumentError at the first call when no API key is set for api.openai.com', async () => {
    vi.stubEnv('OPENAI_API_KEY', '');
    vi.stubEnv('OPENAI_BASE_URL', '');
    const model = createOpenAI().chat('gpt-4o-mini');
    const error = await rejection(model.doGenerate({ messages: [{ role: 'user', content: 'x' }] }));
    expect(InvalidArgumentError.isInstance(error) && error.argument).toBe('apiKey');
    expect((error as Error).message).toContain('OPENAI_API_KEY');
  });

  it('sends a placeholder key to a local server when no key is configured', async () => {
    vi.stubEnv('OPENAI_API_KEY', '');
    const model = createOpenAI({ baseURL: server.baseURL }).chat('llama3.1');
    await model.doGenerate({ messages: [{ role: 'user', content: 'x' }] });
    expect(server.requests[0]?.headers.authorization).toBe('Bearer not-needed');
  });

  it('imports the default instance without an API key and validates settings', async () => {
    vi.stubEnv('OPENAI_API_KEY', '');
    const module = await import('../src/index.js');
    expect(module.openai.chat('gpt-4o-mini').modelId).toBe('gpt-4o-mini');
    expect(module.openaiEmbedder('text-embedding-3-large').dimensions).toBe(3072);
    expect(() => createOpenAI({ maxRetries: -1 })).toThrow(/maxRetries must be an integer >= 0/);
    expect(() => createOpenAI({ concurrency: 0 })).toThrow(/concurrency must be a positive integer/);
    expect(() => createOpenAI({ timeoutMs: 0 })).toThrow(/timeoutMs/);
  });
});
