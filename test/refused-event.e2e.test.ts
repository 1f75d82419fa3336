import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { RuntimeClient as BusClient, lastSessionSequence } from '@agentwire/bus';
import type { SessionProjection } from '@agentwire/contracts';
import { openSse } from '@agentwire/gateway/testing';
import {
  durableEvents,
  type RuntimeStack,
  startRuntimeStack,
  wireSettlement,
} from '@agentwire/runtime/testing';
import { waitUntil } from '@agentwire/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

/**
 * Issue 18, item 3 (docs/decisions/0160): an event the broker refuses for good ends its
 * turn as `turn_error` naming the append phase and the cause, what the turn left open is
 * closed, numbering stays gapless, and the session takes the next prompt. The refusal is
 * real: the events stream is given a `max_msg_size` below one tool result (the output cap
 * raised), so the broker answers the publish with an error.
 */

const LIMIT = 64 * 1024;
let stack: RuntimeStack;
let reader: BusClient;
let gateway: string;

beforeAll(async () => {
  stack = await startRuntimeStack(
    {
      name: 'refused-event-e2e',
      runtimeEnv: { AW_TOOL_OUTPUT_BYTES: String(256 * 1024) },
      projection: true,
      gateway: true,
    },
    ['rtA'],
  );
  reader = new BusClient(stack.bus, stack.names);
  gateway = stack.gatewayUrl ?? '';
  await writeFile(path.join(stack.workspace, 'README.md'), `${'0123456789abcdef'.repeat(6_400)}\n`);
  const info = await stack.bus.jsm.streams.info(stack.names.eventsStream);
  await stack.bus.jsm.streams.update(stack.names.eventsStream, {
    ...info.config,
    max_msg_size: LIMIT,
  });
});

afterAll(async () => {
  await stack?.stop();
});

describe('an event the broker refuses (issue 18)', () => {
  it('ends the turn as turn_error naming it; nothing stays open; the next prompt runs', {
    timeout: 120_000,
  }, async () => {
    const opened = await stack.client.open();
    if (!opened.ok) throw new Error(opened.error.message);
    const sid = String(opened.sessionId);
    const follow = stack.client.follow(sid, 0);
    const sse = await openSse(`${gateway}/sessions/${sid}/events?after=0`);
    try {
      const first = await stack.client.op(sid, 'prompt', {
        text: '[scenario:two_tools] read the big file',
      });
      expect(first).toMatchObject({ ok: true });
      const turnId = String((first as { turnId?: unknown }).turnId);
      await waitUntil(() => follow.events.some((e) => e.type === 'turn_error'), {
        timeoutMs: 30_000,
        what: 'the turn to end',
      });
      const ended = follow.events.find((e) => e.type === 'turn_error');
      expect(ended?.turnId).toBe(turnId);
      expect(ended?.payload).toMatchObject({
        turnPhase: 'event_store.append',
        error: { type: 'event_refused', code: 'event_refused', detail: 'tool_call_result' },
      });
      if (ended?.type !== 'turn_error') throw new Error('no turn_error');
      expect(ended.payload.error.message).toMatch(/tool_call_result refused/);
      expect(ended.payload.error.message).toMatch(/refused by the broker/);

      const next = await stack.client.runTurn(sid, '[scenario:streamed_text] still there?', follow);
      expect(next).toMatchObject({ ok: true, status: 'complete' });

      // Nothing left open on the wire, numbers gapless, the stream's tip is the last event.
      expect(wireSettlement(follow.events)).toMatchObject({
        openRequests: [],
        openCalls: [],
        unbatchedCalls: [],
      });
      const seqs = follow.events.map((e) => e.sequenceNumber);
      expect(seqs).toEqual(seqs.map((_, i) => i + 1));
      const last = seqs.at(-1) ?? 0;
      expect((await lastSessionSequence(stack.bus.jsm, stack.names, sid))?.sequenceNumber).toBe(
        last,
      );
      // The projection service and an SSE frontend saw the turn end and the next one.
      const lastDurable = durableEvents(follow.events).at(-1)?.sequenceNumber ?? 0;
      let projection: SessionProjection | undefined;
      await waitUntil(
        async () => {
          const reply = await reader.projection(sid);
          if (!reply.ok || reply.asOfSeq < lastDurable) return false;
          projection = reply.projection as SessionProjection;
          return true;
        },
        { timeoutMs: 15_000, what: 'the projection' },
      );
      expect(projection).toMatchObject({ status: 'idle', turnCount: 2, activeToolCalls: [] });
      await waitUntil(() => (sse.events.at(-1)?.sequenceNumber ?? 0) >= last, {
        timeoutMs: 15_000,
        what: 'the SSE frontend to catch up',
      });
      expect(sse.events.some((e) => e.type === 'turn_error' && e.turnId === turnId)).toBe(true);
    } finally {
      sse.abort();
      await follow.stop();
    }
  });
});
