import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { ModelRequestMessage, SessionEvent } from '@agentwire/contracts';
import { ModelRequestChain } from '@agentwire/domain';
import { historyFromTranscript } from '@agentwire/engine';
import {
  bytesOfTurn,
  fileOfBytes,
  loadTranscriptRows,
  quantile,
  type RuntimeStack,
  runLongSession,
  startRuntimeStack,
} from '@agentwire/runtime/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

/**
 * Issue 18, "done when": a 100-turn session, each turn reading a 60 KB file, runs to the
 * end with real processes; no message grows with the session (each `model_request` carries
 * what is new, docs/decisions/0161), so the stream grows by the same bytes every turn; a
 * follower and a cold open (R10.4) rebuild the same model history as the live runtime.
 */

const TURNS = 100;
const FILE_BYTES = 60 * 1024;
/** The largest message a turn of this session may publish: the file, once, and change. */
const LARGEST = 64 * 1024;

let stack: RuntimeStack;

beforeAll(async () => {
  // The broker's limits with the whole history kept: no automatic compaction (0229).
  stack = await startRuntimeStack(
    { name: 'long-session-e2e', runtimeEnv: { AW_COMPACT_AT: 'off' } },
    ['rtA'],
  );
  await writeFile(path.join(stack.workspace, 'README.md'), fileOfBytes(FILE_BYTES));
});

afterAll(async () => {
  await stack?.stop();
});

/** Every main-turn request, rebuilt in full by a follower of the stream. */
function rebuiltRequests(events: readonly SessionEvent[]): (readonly ModelRequestMessage[])[] {
  const chain = new ModelRequestChain();
  const out: (readonly ModelRequestMessage[])[] = [];
  for (const e of events) {
    const messages = chain.add(e);
    if (e.type === 'model_request' && e.payload.querySource === 'main_turn' && messages) {
      out.push(messages);
    }
  }
  return out;
}

const shape = (m: { role: string; content: string; toolCallId?: string | undefined }) => ({
  role: m.role,
  content: m.content,
  ...(m.toolCallId === undefined ? {} : { toolCallId: m.toolCallId }),
});

describe('a long session does not outgrow the broker (issue 18)', () => {
  it(`${TURNS} turns of a ${FILE_BYTES / 1024} KB read: flat bytes per turn, bounded messages, one history everywhere`, {
    timeout: 600_000,
  }, async () => {
    const opened = await stack.client.open();
    if (!opened.ok) throw new Error(opened.error.message);
    const sid = String(opened.sessionId);
    const run = await runLongSession({
      bus: stack.bus,
      names: stack.names,
      client: stack.client,
      sessionId: sid,
      turns: TURNS,
      prompt: (n) => `[scenario:read_readme] turn ${n}`,
    });
    const completes = run.events.filter((e) => e.type === 'turn_complete');
    expect(completes).toHaveLength(TURNS);

    const largest = Math.max(...run.wire.map((m) => m.bytes));
    const requests = run.wire.filter((m) => m.type === 'model_request').map((m) => m.bytes);
    const ratio = bytesOfTurn(run, TURNS) / bytesOfTurn(run, 10);
    console.info(
      `long session: turn 10 ${bytesOfTurn(run, 10)} B, turn ${TURNS} ${bytesOfTurn(run, TURNS)} B (ratio ${ratio.toFixed(3)}), largest message ${largest} B, model_request p99 ${quantile(requests, 0.99)} B`,
    );
    expect(largest).toBeLessThan(LARGEST);
    expect(ratio).toBeLessThanOrEqual(1.5);
    expect(quantile(requests, 0.99)).toBeLessThanOrEqual(64 * 1024);

    // A follower rebuilds each request: the last one is the whole conversation so far.
    const rebuilt = rebuiltRequests(run.events);
    expect(rebuilt).toHaveLength(2 * TURNS);
    const last = rebuilt.at(-1) ?? [];
    expect(last).toHaveLength(4 * TURNS - 1);
    expect(last.filter((m) => m.role === 'user').map((m) => m.content)).toEqual(
      Array.from({ length: TURNS }, (_, i) => `[scenario:read_readme] turn ${i + 1}`),
    );
    expect(
      last.filter((m) => m.role === 'tool').every((m) => m.content.length === FILE_BYTES),
    ).toBe(true);

    // A cold open reads the same history from Postgres (R10.4): the last request plus the
    // answer to it, message for message.
    const transcript = historyFromTranscript((await loadTranscriptRows(stack.db, sid)).rows);
    expect(transcript.map(shape)).toEqual(
      [...last, { role: 'assistant', content: 'Read README.md.' }].map(shape),
    );

    // A cold open by another runtime goes on from the stream's last request: its first
    // request names it as base and carries only the answer and the new prompt.
    await stack.killRuntime('rtA');
    await stack.startRuntime('rtB');
    const more = await runLongSession({
      bus: stack.bus,
      names: stack.names,
      client: stack.client,
      sessionId: sid,
      turns: 1,
      prompt: () => '[scenario:streamed_text] after the takeover',
    });
    const lastBefore = run.events.filter((e) => e.type === 'model_request').at(-1);
    const first = more.events.find((e) => e.type === 'model_request');
    if (first?.type !== 'model_request') throw new Error('no request after the takeover');
    expect(first.payload.base).toEqual({
      sequenceNumber: lastBefore?.sequenceNumber,
      eventId: lastBefore?.id,
      messageCount: last.length,
    });
    expect(first.payload.messages.map(shape)).toEqual([
      { role: 'assistant', content: 'Read README.md.' },
      { role: 'user', content: '[scenario:streamed_text] after the takeover' },
    ]);
  });
});
