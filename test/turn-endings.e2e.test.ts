import { RuntimeClient as BusClient, lastSessionSequence } from '@agentwire/bus';
import type { SessionEvent, SessionProjection } from '@agentwire/contracts';
import { openSse, type SseConnection } from '@agentwire/gateway/testing';
import type { Follow, WireDriver } from '@agentwire/runtime/testing';
import {
  durableEvents,
  loadTranscriptEntries,
  otherAnswers,
  type RuntimeStack,
  startRuntimeStack,
  transcriptView,
  wireSettlement,
} from '@agentwire/runtime/testing';
import { waitUntil } from '@agentwire/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

/**
 * Issue 20: whatever ends a turn, at whatever point, leaves no ghost. Each case parks a
 * turn at one point (proved by the event that shows it, never by a duration), ends it by
 * interrupt or by SIGKILL of its runtime, then runs another turn (through another runtime
 * after a kill) and checks the wire, the projection service, a rebuild, the tool parts in
 * Postgres, hydration, an SSE frontend and a late answer.
 */

let stack: RuntimeStack;
let client: WireDriver;
let reader: BusClient;
let gateway: string;
let spawned = 0;

beforeAll(async () => {
  stack = await startRuntimeStack(
    {
      name: 'turn-endings-e2e',
      runtimeEnv: { AW_PERMISSION_TIMEOUT_MS: '60000' },
      projection: true,
      gateway: true,
    },
    ['rtA', 'rtB'],
  );
  client = stack.client;
  reader = new BusClient(stack.bus, stack.names);
  gateway = stack.gatewayUrl ?? '';
});

afterAll(async () => {
  await stack?.stop();
});

type Point = 'model_streaming' | 'tool_running' | 'permission_waiting' | 'between_steps';
type Ending = 'interrupt' | 'sigkill';

interface PointSpec {
  readonly prompt: string;
  /** Answer permission requests with allow (the command must start). */
  readonly allow: boolean;
  /** True once the events prove the turn is at the point. */
  readonly reached: (events: readonly SessionEvent[]) => boolean;
}

const POINTS: Readonly<Record<Point, PointSpec>> = {
  model_streaming: {
    prompt: '[scenario:held_stream] think it over',
    allow: false,
    reached: (es) =>
      es.some((e) => e.type === 'model_streaming' && e.payload.kind === 'text_delta'),
  },
  tool_running: {
    prompt: '[scenario:long_command] run the long command',
    allow: true,
    reached: (es) =>
      es.some((e) => e.type === 'tool_call_started' && e.payload.toolName === 'run_command'),
  },
  permission_waiting: {
    prompt: '[scenario:two_tools] read and write',
    allow: false,
    reached: (es) => es.some((e) => e.type === 'permission_requested'),
  },
  between_steps: {
    prompt: '[scenario:held_second_step] read, then think',
    allow: false,
    reached: (es) => es.some((e) => e.type === 'tool_batch_complete'),
  },
};

/** The projection service's row once it applied `seq` (R10). */
async function projectionAt(sid: string, seq: number): Promise<SessionProjection> {
  let projection: SessionProjection | undefined;
  await waitUntil(
    async () => {
      const reply = await reader.projection(sid);
      if (!reply.ok || reply.asOfSeq < seq) return false;
      projection = reply.projection as SessionProjection;
      return true;
    },
    { timeoutMs: 15_000, what: `projection of ${sid} at ${seq}` },
  );
  return projection as SessionProjection;
}

/** Every persistence command the runtimes sent is committed (the work queue is empty). */
async function commandsDrained(): Promise<void> {
  await waitUntil(
    async () => (await stack.bus.jsm.streams.info(stack.names.commandsStream)).state.messages === 0,
    { timeoutMs: 15_000, what: 'the persistence worker to drain its commands' },
  );
}

/** The projection a frontend shows (the service's), checked against rebuild and hydration. */
async function checkReadSide(sid: string, events: readonly SessionEvent[]) {
  const durable = durableEvents(events);
  const last = durable.at(-1)?.sequenceNumber ?? 0;
  const projection = await projectionAt(sid, last);
  expect(projection).toMatchObject({ pendingPermissions: [], activeToolCalls: [] });
  await commandsDrained();
  const transcript = await loadTranscriptEntries(stack.db, sid);
  const { rebuilt, hydrated } = otherAnswers(sid, events, transcript);
  // R10.3: a rebuild from the stream is the same projection, field for field.
  expect(rebuilt).toEqual(projection);
  // R10.4: hydrating the persisted transcript agrees on what the transcript determines.
  expect(hydrated).toEqual(transcriptView(projection));
  return { projection, transcript };
}

/** Tool parts in Postgres: none pending or running, each as its call ended on the wire. */
function checkToolParts(
  transcript: Awaited<ReturnType<typeof loadTranscriptEntries>>,
  events: readonly SessionEvent[],
) {
  const ends = wireSettlement(events).callEnds;
  const parts = transcript.flatMap((t) => t.parts.flatMap((p) => (p.type === 'tool' ? [p] : [])));
  expect(parts.map((p) => p.toolCallId).sort()).toEqual([...ends.keys()].sort());
  for (const part of parts) {
    expect(part.state.status, part.toolCallId).toBe(ends.get(part.toolCallId)?.status);
  }
}

/** The questions an SSE frontend still shows once it has seen up to `seq`. */
async function sseQuestions(sse: SseConnection, seq: number): Promise<string[]> {
  await waitUntil(() => (sse.events.at(-1)?.sequenceNumber ?? 0) >= seq, {
    timeoutMs: 15_000,
    what: `the SSE frontend to see ${seq}`,
  });
  return wireSettlement(sse.events as unknown as SessionEvent[]).openRequests as string[];
}

async function endTurn(ending: Ending, sid: string, owner: string, follow: Follow) {
  if (ending === 'interrupt') {
    expect(await client.op(sid, 'interrupt', {})).toMatchObject({ ok: true });
    await waitUntil(() => follow.events.at(-1)?.type === 'turn_complete', {
      timeoutMs: 15_000,
      what: 'the interrupted turn to end',
    });
    return;
  }
  await stack.killRuntime(owner);
  spawned += 1;
  await stack.startRuntime(`rt-spare-${spawned}`);
}

describe('a turn that ends early leaves nothing open (issue 20)', () => {
  const cases = (['interrupt', 'sigkill'] as const).flatMap((ending) =>
    (Object.keys(POINTS) as Point[]).map((point) => [ending, point] as const),
  );

  it.each(cases)('ended by %s while %s', async (ending, point) => {
    const spec = POINTS[point];
    const opened = await client.open();
    if (!opened.ok) throw new Error(opened.error.message);
    const sid = String(opened.sessionId);
    const owner = String(opened.owner);
    const follow = client.follow(sid, 0, spec.allow ? { answer: 'allow' } : {});
    const sse = await openSse(`${gateway}/sessions/${sid}/events?after=0`);
    try {
      expect(await client.op(sid, 'prompt', { text: spec.prompt })).toMatchObject({ ok: true });
      await waitUntil(() => spec.reached(follow.events), { timeoutMs: 15_000, what: point });
      await endTurn(ending, sid, owner, follow);
      const firstTurn = follow.events.find((e) => e.type === 'turn_started')?.turnId;
      if (ending === 'interrupt') {
        // Right after the interrupt, before any other turn: idle, and nothing open.
        const { projection } = await checkReadSide(sid, follow.events);
        expect(projection).toMatchObject({ status: 'idle', turnCount: 1 });
      }

      const next = await client.runTurn(sid, 'and now something else', follow);
      expect(next).toMatchObject({ ok: true, status: 'complete' });

      // The wire settled everything, and nothing mentions it afterwards.
      const wire = wireSettlement(follow.events);
      expect(wire).toMatchObject({
        openRequests: [],
        openCalls: [],
        unbatchedCalls: [],
        laterMentions: [],
      });
      const reason = ending === 'interrupt' ? 'interrupted' : 'runtime_lost';
      const asked = follow.events.flatMap((e) =>
        e.type === 'permission_requested' ? [e.payload.requestId ?? ''] : [],
      );
      for (const id of asked) {
        expect(wire.requestEnds.get(id)).toBe(spec.allow ? 'allow' : reason);
      }
      for (const [id, end] of wire.callEnds) {
        if (end.status === 'error') expect(end.code, id).toBe(reason);
      }
      const firstEnd = follow.events.find(
        (e) => e.turnId === firstTurn && (e.type === 'turn_complete' || e.type === 'turn_error'),
      );
      expect(firstEnd?.type).toBe(ending === 'interrupt' ? 'turn_complete' : 'turn_error');

      const { projection, transcript } = await checkReadSide(sid, follow.events);
      expect(projection).toMatchObject({ status: 'idle', turnCount: 2, currentTurnId: null });
      checkToolParts(transcript, follow.events);
      const last = follow.events.at(-1)?.sequenceNumber ?? 0;
      expect(await sseQuestions(sse, last)).toEqual([]);

      // A late answer to a settled request is refused by type and changes nothing.
      for (const id of asked) {
        const res = await fetch(`${gateway}/sessions/${sid}/permissions/${id}`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ decision: 'allow' }),
        });
        expect(res.status).toBe(404);
        expect(await res.json()).toMatchObject({ error: { code: 'unknown_permission_request' } });
      }
      const tip = await lastSessionSequence(stack.bus.jsm, stack.names, sid);
      expect(tip?.sequenceNumber).toBe(last);
      expect(await projectionAt(sid, last)).toEqual(projection);
    } finally {
      sse.abort();
      await follow.stop();
    }
  });
});
