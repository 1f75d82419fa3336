import { createTestEnvironment, type TestEnvironment, waitUntil } from '@agentwire/testing';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openSse, type SseConnection } from '../services/gateway/src/testing/sse-client.ts';
import { type Stack, startStack } from '../services/gateway/src/testing/start-stack.ts';

/**
 * Editing the queue from two clients while turns run (issue 11 item 6, R14.3, R10.3),
 * through the gateway against the real processes: every accepted input ends in exactly one
 * place, both followers see the same events, and the projection and the ledger agree.
 */
let env: TestEnvironment;
let stack: Stack;
let base: string;
let db: pg.Client;

interface Json {
  [k: string]: unknown;
}

async function call(method: string, route: string, body?: unknown) {
  const res = await fetch(`${base}${route}`, {
    method,
    ...(body === undefined
      ? {}
      : { body: JSON.stringify(body), headers: { 'content-type': 'application/json' } }),
  });
  return { status: res.status, json: (await res.json()) as Json };
}

beforeAll(async () => {
  env = await createTestEnvironment();
  stack = await startStack(env, { gateway: true });
  base = stack.gatewayUrl ?? '';
  db = new pg.Client({ connectionString: env.databaseUrl });
  await db.connect();
}, 120_000);

afterAll(async () => {
  await db?.end();
  await stack?.stop();
  await env?.dispose();
});

const pendingRequest = (sse: SseConnection, nth: number): string | undefined => {
  const asked = sse.events.filter((e) => e.type === 'permission_requested');
  return (asked[nth - 1]?.payload as Json | undefined)?.requestId as string | undefined;
};

async function projected(sid: string): Promise<{ waiting: string[]; asOfSeq: number }> {
  const reply = await call('GET', `/sessions/${sid}/projection`);
  const projection = reply.json.projection as { pendingSteerInputs: { pendingInputId: string }[] };
  return {
    waiting: projection.pendingSteerInputs.map((i) => i.pendingInputId),
    asOfSeq: Number(reply.json.asOfSeq),
  };
}

/** Waits until the projection has applied `seq` and answers its waiting inputs. */
async function waitingAsOf(sid: string, seq: number): Promise<string[]> {
  let waiting: string[] = [];
  await waitUntil(
    async () => {
      const p = await projected(sid);
      waiting = p.waiting;
      return p.asOfSeq >= seq;
    },
    { what: `the projection at #${seq}` },
  );
  return waiting;
}

async function ledger(sid: string): Promise<Record<string, string>> {
  const rows = await db.query<{ id: string; status: string }>(
    'select id, status from session_inputs where session_id = $1',
    [sid],
  );
  return Object.fromEntries(rows.rows.map((r) => [r.id, r.status]));
}

describe('the queue, edited from two clients (issue 11)', () => {
  it('moves, removes and clears waiting inputs; each ends in exactly one place', async () => {
    const sid = String((await call('POST', '/sessions')).json.sessionId);
    const one = await openSse(`${base}/sessions/${sid}/events?after=0`);
    const two = await openSse(`${base}/sessions/${sid}/events?after=0`);
    const submit = async (text: string, inputId: string, delivery?: 'guide') => {
      const reply = await call('POST', `/sessions/${sid}/prompt`, {
        text,
        inputId,
        ...(delivery === undefined ? {} : { delivery }),
      });
      expect(reply.status, JSON.stringify(reply.json)).toBe(202);
      return reply.json;
    };
    // Turn A waits on its permission while the queue is edited.
    await submit('[scenario:run_command] turn A', 'in_a');
    await waitUntil(() => pendingRequest(one, 1) !== undefined, { what: 'the first permission' });
    // Client one queues four, client two queues two.
    for (const [text, id] of [
      ['first', 'in_q1'],
      ['second', 'in_q2'],
      ['[scenario:run_command] third', 'in_q3'],
      ['fourth', 'in_q4'],
      ['fifth', 'in_q5'],
      ['sixth', 'in_q6'],
    ] as const) {
      expect(await submit(text, id)).toMatchObject({
        inputId: id,
        delivery: 'queue',
        queued: true,
      });
    }
    const moved = await call('POST', `/sessions/${sid}/queue/in_q3/move`, { position: 0 });
    expect(moved.json.order).toEqual(['in_q3', 'in_q1', 'in_q2', 'in_q4', 'in_q5', 'in_q6']);
    expect((await call('DELETE', `/sessions/${sid}/queue/in_q2`)).json).toEqual({
      inputId: 'in_q2',
    });
    // The second client's delete of the same input comes too late: the input is cancelled,
    // and its lifecycle refuses a second removal (R12.3).
    const again = await call('DELETE', `/sessions/${sid}/queue/in_q2`);
    expect(again.status).toBe(409);
    expect(again.json.error).toMatchObject({
      code: 'illegal_transition',
      detail: { inputId: 'in_q2', from: 'cancelled', to: 'cancelled' },
    });
    const far = await call('POST', `/sessions/${sid}/queue/in_q6/move`, { position: 99 });
    expect(far.status).toBe(400);
    expect(far.json.error).toMatchObject({
      code: 'position_out_of_range',
      detail: { position: 99, size: 5 },
    });
    // Edited in place: same id, same position; a direct command or no text cannot stand there.
    const edited = await call('PATCH', `/sessions/${sid}/queue/in_q3`, {
      text: '[scenario:run_command] third, edited',
    });
    expect(edited).toEqual({ status: 200, json: { inputId: 'in_q3' } });
    for (const [text, code] of [
      ['/status', 'invalid_command'],
      ['   ', 'empty_input'],
    ] as const) {
      const bad = await call('PATCH', `/sessions/${sid}/queue/in_q1`, { text });
      expect(bad.status, text).toBe(400);
      expect((bad.json.error as Json).code).toBe(code);
    }
    const gone = await call('PATCH', `/sessions/${sid}/queue/in_q2`, { text: 'too late' });
    expect(gone.status).toBe(404);
    const lastSeq = () => one.events.at(-1)?.sequenceNumber ?? 0;
    await waitUntil(() => one.events.some((e) => e.type === 'turn_steer_discarded'), {
      what: 'the removal on the wire',
    });
    expect(await waitingAsOf(sid, lastSeq())).toEqual([
      'in_q3',
      'in_q1',
      'in_q4',
      'in_q5',
      'in_q6',
    ]);
    const inputs = (await call('GET', `/sessions/${sid}/projection`)).json.projection as {
      pendingSteerInputs: { pendingInputId: string; input: string }[];
    };
    expect(inputs.pendingSteerInputs[0]).toMatchObject({
      pendingInputId: 'in_q3',
      input: '[scenario:run_command] third, edited',
    });
    // Steering goes into the running turn at its next step boundary.
    await submit('steer now', 'in_g1', 'guide');
    const first = pendingRequest(one, 1) ?? '';
    expect(
      (await call('POST', `/sessions/${sid}/permissions/${first}`, { decision: 'allow' })).status,
    ).toBe(200);
    // Turn A ends; q3 runs next (it was moved first) and waits on its own permission.
    await waitUntil(() => pendingRequest(one, 2) !== undefined, {
      what: "q3's permission",
      timeoutMs: 30_000,
    });
    const reordered = await call('POST', `/sessions/${sid}/queue/in_q6/move`, { position: 0 });
    expect(reordered.json.order).toEqual(['in_q6', 'in_q1', 'in_q4', 'in_q5']);
    const cleared = await call('POST', `/sessions/${sid}/queue/clear`, {});
    expect(cleared.json).toEqual({ cleared: ['in_q6', 'in_q1', 'in_q4', 'in_q5'] });
    // Clearing an empty queue is a no-op, not an error.
    expect(await call('POST', `/sessions/${sid}/queue/clear`, {})).toEqual({
      status: 200,
      json: { cleared: [] },
    });
    const second = pendingRequest(one, 2) ?? '';
    await call('POST', `/sessions/${sid}/permissions/${second}`, { decision: 'allow' });
    await waitUntil(() => one.events.filter((e) => e.type === 'turn_complete').length === 2, {
      what: 'both turns complete',
      timeoutMs: 30_000,
    });
    const end = lastSeq();
    await waitUntil(() => (two.events.at(-1)?.sequenceNumber ?? 0) >= end, {
      what: 'the second follower',
    });
    one.abort();
    two.abort();
    // Both followers saw the same events, every number once.
    const seen = (s: SseConnection) => s.events.map((e) => `${e.sequenceNumber}:${e.type}`);
    expect(seen(two).slice(0, seen(one).length)).toEqual(seen(one));
    const numbers = one.events.map((e) => e.sequenceNumber);
    expect(numbers).toEqual(numbers.map((_, i) => i + 1));
    const discards = one.events
      .filter((e) => e.type === 'turn_steer_discarded')
      .map((e) => `${(e.payload as Json).pendingInputId}:${(e.payload as Json).reason}`);
    expect(discards).toEqual([
      'in_q2:user_removed',
      'in_q6:user_cleared',
      'in_q1:user_cleared',
      'in_q4:user_cleared',
      'in_q5:user_cleared',
    ]);
    expect(await waitingAsOf(sid, end)).toEqual([]);
    // The ledger: what ran is promoted, everything else cancelled; nothing left admitted.
    await waitUntil(async () => (await ledger(sid)).in_q3 === 'promoted', { what: 'the ledger' });
    expect(await ledger(sid)).toEqual({
      in_a: 'promoted',
      in_g1: 'promoted',
      in_q3: 'promoted',
      in_q1: 'cancelled',
      in_q2: 'cancelled',
      in_q4: 'cancelled',
      in_q5: 'cancelled',
      in_q6: 'cancelled',
    });
    // The transcript holds exactly what ran, in order.
    const history = await call('GET', `/sessions/${sid}/history?from=start&limit=100`);
    const users = (
      history.json.messages as {
        message: { role: string };
        parts: { type: string; text?: string }[];
      }[]
    )
      .filter((m) => m.message.role === 'user')
      .map((m) => m.parts.find((p) => p.type === 'text')?.text);
    expect(users).toEqual([
      '[scenario:run_command] turn A',
      'steer now',
      '[scenario:run_command] third, edited',
    ]);
    const payload = await db.query<{ payload: { text: string } }>(
      'select payload from session_inputs where session_id = $1 and id = $2',
      [sid, 'in_q3'],
    );
    expect(payload.rows[0]?.payload.text).toBe('[scenario:run_command] third, edited');
  });
});
