import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { ModelRequestMessage, SessionEvent } from '@agentwire/contracts';
import { ModelRequestChain } from '@agentwire/domain';
import { type RuntimeStack, startRuntimeStack, type WireDriver } from '@agentwire/runtime/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

/**
 * Microcompaction against real processes (issue 13 item 3, docs/decisions/0232): once more
 * than five tool results stand in the conversation, the bodies of the older large ones are
 * cleared at a turn's start (`microcompact_boundary`), and after the owner's SIGKILL the
 * next owner, which reads every result whole from the transcript, clears the same ones.
 */
let stack: RuntimeStack;
let client: WireDriver;

const BIG = `# a large readme\n${'every tool result takes room in the context '.repeat(80)}`;
const CLEARED = '[tool output cleared from the context';

beforeAll(async () => {
  stack = await startRuntimeStack(
    { name: 'microcompaction-e2e', runtimeEnv: { AW_COMPACT_AT: '0.8' } },
    ['mcA', 'mcB'],
  );
  ({ client } = stack);
  await writeFile(path.join(stack.workspace, 'README.md'), BIG);
}, 120_000);

afterAll(async () => {
  await stack?.stop();
});

/** The tool results of each main-turn request, rebuilt from its bases (0161). */
function toolResults(events: readonly SessionEvent[]): string[][] {
  const chain = new ModelRequestChain();
  const out: string[][] = [];
  for (const e of events) {
    if (e.type !== 'model_request') continue;
    const messages: readonly ModelRequestMessage[] = chain.add(e) ?? [];
    if ((e.payload.querySource ?? 'main_turn') !== 'main_turn') continue;
    out.push(messages.filter((m) => m.role === 'tool').map((m) => m.content));
  }
  return out;
}

describe('microcompaction (issue 13 item 3)', () => {
  it('clears old large tool results at a turn start, and the next owner clears the same ones', async () => {
    const opened = await client.open();
    if (!opened.ok) throw new Error(opened.error.message);
    const sid = String(opened.sessionId);
    const follow = client.follow(sid, 0);
    for (let n = 1; n <= 7; n += 1) {
      const turn = await client.runTurn(sid, `[scenario:read_readme] read ${n}`, follow);
      expect(turn, `turn ${n}`).toMatchObject({ ok: true, status: 'complete' });
    }
    const boundaries = follow.events.filter((e) => e.type === 'microcompact_boundary');
    expect(boundaries).toHaveLength(1);
    const firstCall = follow.events.find((e) => e.type === 'tool_call_started')?.payload as {
      toolCallId: string;
    };
    expect(boundaries[0]?.payload).toMatchObject({ clearedToolCallIds: [firstCall.toolCallId] });
    // Turn 7's first request (turn 6's second one held six whole): the oldest cleared.
    const requests = toolResults(follow.events);
    const turn7 = requests.filter((r) => r.length === 6)[1] ?? [];
    expect(turn7.map((c) => c.startsWith(CLEARED))).toEqual([
      true,
      false,
      false,
      false,
      false,
      false,
    ]);
    expect(turn7.slice(1).every((c) => c === BIG)).toBe(true);

    const killedAt = follow.events.at(-1)?.sequenceNumber ?? 0;
    await stack.killRuntime(String(opened.owner));
    const after = await client.runTurn(sid, '[scenario:read_readme] read 8', follow, {
      inputId: `in-${sid}-8`,
    });
    expect(after).toMatchObject({ ok: true, status: 'complete' });
    const later = follow.events.filter((e) => e.sequenceNumber > killedAt);
    // The next owner cleared the two oldest (the first one again: its history came whole).
    const again = later.filter((e) => e.type === 'microcompact_boundary');
    expect(again).toHaveLength(1);
    expect(again[0]?.payload).toMatchObject({
      clearedToolCallIds: [expect.any(String), expect.any(String)],
    });
    // Turn 8's first request (turn 7's second one held seven, one cleared).
    const turn8 = toolResults(follow.events).filter((r) => r.length === 7)[1] ?? [];
    expect(turn8.map((c) => c.startsWith(CLEARED))).toEqual([
      true,
      true,
      false,
      false,
      false,
      false,
      false,
    ]);
    expect(turn8[0]).toBe(turn7[0]);
    await follow.stop();
  }, 120_000);
});
