import { APICallError } from 'ai';
import { convertArrayToReadableStream, MockLanguageModelV4 } from 'ai/test';
import { describe, expect, it } from 'vitest';
import { classifyModelError, toSdkMessages } from './ai-sdk-mapping.ts';
import { createAiSdkProvider } from './ai-sdk-provider.ts';
import type { ModelStreamPart } from './model-provider.ts';

type StreamResult = Awaited<ReturnType<MockLanguageModelV4['doStream']>>;
type LanguageModelV4StreamPart = StreamResult['stream'] extends ReadableStream<infer T> ? T : never;

const usage = {
  inputTokens: { total: 10, noCache: 6, cacheRead: 4, cacheWrite: 0 },
  outputTokens: { total: 5, text: 3, reasoning: 2 },
};

function mockModel(chunks: LanguageModelV4StreamPart[]): MockLanguageModelV4 {
  return new MockLanguageModelV4({
    doStream: async () => ({ stream: convertArrayToReadableStream(chunks) }),
  });
}

async function collect(parts: AsyncIterable<ModelStreamPart>): Promise<ModelStreamPart[]> {
  const out: ModelStreamPart[] = [];
  for await (const part of parts) out.push(part);
  return out;
}

const tools = [
  {
    name: 'read_file',
    description: 'Read a file',
    inputSchema: { type: 'object', properties: { path: { type: 'string' } } },
  },
];

describe('AI SDK adapter', () => {
  it('maps text, reasoning, tool calls and the finish with usage', async () => {
    const model = mockModel([
      { type: 'stream-start', warnings: [] },
      { type: 'reasoning-start', id: 'r' },
      { type: 'reasoning-delta', id: 'r', delta: 'think' },
      { type: 'reasoning-end', id: 'r' },
      { type: 'text-start', id: 't' },
      { type: 'text-delta', id: 't', delta: 'Hel' },
      { type: 'text-delta', id: 't', delta: 'lo' },
      { type: 'text-end', id: 't' },
      { type: 'tool-call', toolCallId: 'c1', toolName: 'read_file', input: '{"path":"a.txt"}' },
      { type: 'finish', finishReason: { unified: 'tool-calls', raw: 'tool_calls' }, usage },
    ]);
    const provider = createAiSdkProvider({ model, providerId: 'p', modelId: 'm' });
    const parts = await collect(
      provider.stream({ messages: [{ role: 'user', content: 'hi' }], tools }),
    );
    expect(parts).toEqual([
      { type: 'reasoning-delta', text: 'think' },
      { type: 'text-delta', text: 'Hel' },
      { type: 'text-delta', text: 'lo' },
      { type: 'tool-call', toolCallId: 'c1', toolName: 'read_file', input: { path: 'a.txt' } },
      {
        type: 'finish',
        finishReason: 'tool-calls',
        usage: {
          inputTokens: 10,
          outputTokens: 5,
          totalTokens: 15,
          cacheReadTokens: 4,
          cacheWriteTokens: 0,
          reasoningTokens: 2,
        },
      },
    ]);
    const call = model.doStreamCalls[0];
    expect(call?.tools?.map((t) => t.name)).toEqual(['read_file']);
  });

  it('turns a provider error into one classified error part', async () => {
    const model = new MockLanguageModelV4({
      doStream: async () => {
        throw new APICallError({
          message: 'overloaded',
          url: 'http://x',
          requestBodyValues: {},
          statusCode: 529,
          isRetryable: true,
        });
      },
    });
    const provider = createAiSdkProvider({ model, providerId: 'p', modelId: 'm' });
    const parts = await collect(
      provider.stream({ messages: [{ role: 'user', content: 'hi' }], tools: [] }),
    );
    expect(parts).toEqual([
      {
        type: 'error',
        error: {
          message: 'overloaded',
          code: 'provider_http_529',
          retryable: true,
          statusCode: 529,
        },
      },
    ]);
  });

  it('sends the conversation with tool calls and results in SDK form', async () => {
    const model = mockModel([
      { type: 'finish', finishReason: { unified: 'stop', raw: 'stop' }, usage },
    ]);
    const provider = createAiSdkProvider({ model, providerId: 'p', modelId: 'm' });
    await collect(
      provider.stream({
        messages: [
          { role: 'system', content: 'be brief' },
          { role: 'user', content: 'read a.txt' },
          {
            role: 'assistant',
            content: '',
            toolCalls: [{ toolCallId: 'c1', toolName: 'read_file', input: { path: 'a.txt' } }],
          },
          { role: 'tool', content: 'contents', toolCallId: 'c1', toolName: 'read_file' },
        ],
        tools,
      }),
    );
    const prompt = model.doStreamCalls[0]?.prompt ?? [];
    expect(prompt.map((m) => m.role)).toEqual(['system', 'user', 'assistant', 'tool']);
    expect(JSON.stringify(prompt[3])).toContain('contents');
  });

  it('maps error tool results to error-text and classifies plain errors as non-retryable', () => {
    const [msg] = toSdkMessages([
      { role: 'tool', content: 'boom', toolCallId: 'c', toolName: 't', isError: true },
    ]);
    expect(msg).toMatchObject({
      role: 'tool',
      content: [{ output: { type: 'error-text', value: 'boom' } }],
    });
    expect(classifyModelError(new Error('x'))).toEqual({
      message: 'x',
      code: 'provider_error',
      retryable: false,
    });
  });

  it('sends a reasoning effort as the SDK reasoning option, and none when absent (R9.6)', async () => {
    const stop = { type: 'finish', finishReason: { unified: 'stop', raw: 'stop' }, usage } as const;
    const model = new MockLanguageModelV4({
      doStream: async () => ({ stream: convertArrayToReadableStream([stop]) }),
    });
    const provider = createAiSdkProvider({ model, providerId: 'p', modelId: 'm' });
    const messages = [{ role: 'user', content: 'name this' }] as const;
    await collect(provider.stream({ messages, tools: [], reasoningEffort: 'lowest' }));
    await collect(provider.stream({ messages, tools: [], reasoningEffort: 'high' }));
    await collect(provider.stream({ messages, tools: [] }));
    expect(model.doStreamCalls.map((c) => c.reasoning)).toEqual(['minimal', 'high', undefined]);
  });
});
