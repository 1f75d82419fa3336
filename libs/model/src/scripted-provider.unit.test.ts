import { describe, expect, it } from 'vitest';
import type { ModelMessage, ModelStreamPart } from './model-provider.ts';
import { createScriptedProvider, scenarioDirective } from './scripted-provider.ts';
import { LONG_COMMAND, TWO_TOOLS_WRITTEN } from './scripted-scenarios.ts';

async function collect(parts: AsyncIterable<ModelStreamPart>): Promise<ModelStreamPart[]> {
  const out: ModelStreamPart[] = [];
  for await (const part of parts) out.push(part);
  return out;
}

const user = (content: string): ModelMessage => ({ role: 'user', content });
const text = (parts: ModelStreamPart[]) =>
  parts.flatMap((p) => (p.type === 'text-delta' ? [p.text] : [])).join('');

describe('scripted provider', () => {
  it('streams the default scenario word by word and finishes with usage', async () => {
    const parts = await collect(
      createScriptedProvider().stream({ messages: [user('hi')], tools: [] }),
    );
    expect(text(parts)).toBe('Hello from the scripted model.');
    expect(parts.filter((p) => p.type === 'text-delta').length).toBe(5);
    const finish = parts.at(-1);
    expect(finish).toMatchObject({ type: 'finish', finishReason: 'stop' });
    if (finish?.type !== 'finish') throw new Error('no finish');
    expect(finish.usage.outputTokens).toBeGreaterThan(0);
    expect(finish.usage.totalTokens).toBe(
      (finish.usage.inputTokens ?? 0) + (finish.usage.outputTokens ?? 0),
    );
  });

  it('text + two tool calls, then a final step once the tool results are in', async () => {
    const provider = createScriptedProvider();
    const first = await collect(
      provider.stream({ messages: [user('[scenario:two_tools] go')], tools: [] }),
    );
    const calls = first.filter((p) => p.type === 'tool-call');
    expect(calls.map((c) => c.type === 'tool-call' && c.toolName)).toEqual([
      'read_file',
      'write_file',
    ]);
    expect(calls[1]).toMatchObject({ input: { path: 'notes.txt', content: TWO_TOOLS_WRITTEN } });
    expect(new Set(calls.map((c) => c.type === 'tool-call' && c.toolCallId)).size).toBe(2);
    expect(first.at(-1)).toMatchObject({ type: 'finish', finishReason: 'tool-calls' });
    const second = await collect(
      provider.stream({
        messages: [
          user('[scenario:two_tools] go'),
          { role: 'assistant', content: 'x' },
          { role: 'tool', content: 'r' },
        ],
        tools: [],
      }),
    );
    expect(text(second)).toContain('Done');
    expect(second.at(-1)).toMatchObject({ type: 'finish', finishReason: 'stop' });
  });

  it('streams reasoning before text', async () => {
    const parts = await collect(
      createScriptedProvider().stream({ messages: [user('[scenario:reasoning]')], tools: [] }),
    );
    const firstText = parts.findIndex((p) => p.type === 'text-delta');
    const lastReasoning = parts.findLastIndex((p) => p.type === 'reasoning-delta');
    expect(lastReasoning).toBeGreaterThanOrEqual(0);
    expect(lastReasoning).toBeLessThan(firstText);
  });

  it('ends a model error scenario with one error part and no finish', async () => {
    const parts = await collect(
      createScriptedProvider().stream({ messages: [user('[scenario:model_error]')], tools: [] }),
    );
    expect(parts.at(-1)).toMatchObject({
      type: 'error',
      error: { code: 'provider_unavailable', retryable: true },
    });
    expect(parts.some((p) => p.type === 'finish')).toBe(false);
  });

  it('reports an unknown scenario as a non-retryable error part', async () => {
    const parts = await collect(
      createScriptedProvider().stream({ messages: [user('[scenario:nope]')], tools: [] }),
    );
    expect(parts).toEqual([
      {
        type: 'error',
        error: { message: 'unknown scenario nope', code: 'unknown_scenario', retryable: false },
      },
    ]);
  });

  it('rejects an unknown default scenario at construction', () => {
    expect(() => createScriptedProvider({ defaultScenario: 'nope' })).toThrow(
      /unknown default scenario/,
    );
  });

  it('stops streaming when aborted', async () => {
    const controller = new AbortController();
    const provider = createScriptedProvider({ chunkDelayMs: 1 });
    const parts: ModelStreamPart[] = [];
    for await (const part of provider.stream(
      { messages: [user('[scenario:slow_text]')], tools: [] },
      controller.signal,
    )) {
      parts.push(part);
      if (parts.length === 3) controller.abort();
    }
    expect(parts.length).toBe(3);
  });

  it('answers goal verifications from the scenario verdicts, by the goal turns so far', async () => {
    const provider = createScriptedProvider();
    const goal = 'Goal: ship it [scenario:goal_three_turns]';
    const verify = async (turns: number) => {
      const messages: ModelMessage[] = [];
      for (let i = 0; i < turns; i += 1) {
        messages.push(user(`Continue: ${goal}`), { role: 'assistant', content: 'Worked.' });
      }
      messages.push(user(`Verify: ${goal}`));
      const parts = await collect(
        provider.stream({ messages, tools: [], querySource: 'target_completion_verification' }),
      );
      return JSON.parse(text(parts)) as { passed: boolean };
    };
    expect((await verify(1)).passed).toBe(false);
    expect((await verify(2)).passed).toBe(false);
    expect((await verify(3)).passed).toBe(true);
    expect((await verify(7)).passed).toBe(true);
    // A main-turn request of the same conversation gets the scenario's step, not a verdict.
    const main = await collect(provider.stream({ messages: [user(goal)], tools: [] }));
    expect(text(main)).toBe('Worked toward the goal.');
    // A scenario without verdicts passes at once.
    const plain = await collect(
      provider.stream({
        messages: [user('Verify: anything')],
        tools: [],
        querySource: 'target_completion_verification',
      }),
    );
    expect(JSON.parse(text(plain))).toMatchObject({ passed: true });
  });

  it('is deterministic', async () => {
    const provider = createScriptedProvider();
    const request = { messages: [user('[scenario:two_tools]')], tools: [] };
    expect(await collect(provider.stream(request))).toEqual(
      await collect(provider.stream(request)),
    );
  });

  it('parses directives', () => {
    expect(scenarioDirective('please [scenario:two_tools] now')).toBe('two_tools');
    expect(scenarioDirective('nothing')).toBeUndefined();
  });

  it('held_stream streams its words, then holds until aborted and ends without a finish', async () => {
    const controller = new AbortController();
    const stream = createScriptedProvider().stream(
      { messages: [user('[scenario:held_stream] go')], tools: [] },
      controller.signal,
    );
    const parts: ModelStreamPart[] = [];
    const done = (async () => {
      for await (const part of stream) parts.push(part);
    })();
    let settled = false;
    void done.then(() => {
      settled = true;
    });
    while (parts.length < 3) await new Promise((resolve) => setImmediate(resolve));
    await new Promise((resolve) => setImmediate(resolve));
    expect(text(parts)).toBe('Thinking it over');
    expect(settled).toBe(false);
    controller.abort();
    await done;
    expect(parts.map((p) => p.type)).toEqual(['text-delta', 'text-delta', 'text-delta']);
  });

  it('held_second_step reads first, then its second step holds before any word', async () => {
    const provider = createScriptedProvider();
    const first = await collect(
      provider.stream({ messages: [user('[scenario:held_second_step] go')], tools: [] }),
    );
    expect(first[0]).toMatchObject({ type: 'tool-call', toolName: 'read_file' });
    const controller = new AbortController();
    controller.abort();
    const second = await collect(
      provider.stream(
        {
          messages: [
            user('[scenario:held_second_step] go'),
            { role: 'assistant', content: '' },
            { role: 'tool', content: '# readme' },
          ],
          tools: [],
        },
        controller.signal,
      ),
    );
    expect(second).toEqual([]);
  });

  it('a hold without an abort signal fails the step instead of hanging', async () => {
    const parts = await collect(
      createScriptedProvider().stream({ messages: [user('[scenario:held_stream] go')], tools: [] }),
    );
    expect(parts.at(-1)).toMatchObject({ type: 'error', error: { code: 'hold_without_signal' } });
  });

  it('long_command asks to run the command that lasts until interrupted', async () => {
    const parts = await collect(
      createScriptedProvider().stream({
        messages: [user('[scenario:long_command] go')],
        tools: [],
      }),
    );
    expect(parts[0]).toMatchObject({
      type: 'tool-call',
      toolName: 'run_command',
      input: { command: LONG_COMMAND },
    });
  });
});
