import type { SessionEvent } from '@agentwire/contracts';
import type { WireDriver } from '@agentwire/runtime/testing';
import { type RuntimeStack, startRuntimeStack } from '@agentwire/runtime/testing';
import type { createDatabase } from '@agentwire/store';
import { waitUntil } from '@agentwire/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

let stack: RuntimeStack;
let client: WireDriver;
let db: ReturnType<typeof createDatabase>;
const startRuntime = (instanceId: string) => stack.startRuntime(instanceId);

beforeAll(async () => {
  stack = await startRuntimeStack(
    {
      name: 'runtime-inputs-e2e',
      titleSidecar: true,
      runtimeEnv: {
        AW_PERMISSION_TIMEOUT_MS: '60000',
        AW_TITLE_GENERATION: 'on',
        AW_TITLE_REQUEST_TIMEOUT_MS: '10000',
      },
    },
    ['inA', 'inB'],
  );
  ({ client, db } = stack);
});

afterAll(async () => {
  await stack?.stop();
});

async function openSession(): Promise<{ sid: string; owner: string }> {
  const opened = await client.open();
  if (!opened.ok) throw new Error(opened.error.message);
  return { sid: String(opened.sessionId), owner: String(opened.owner) };
}

const ledger = (sid: string) =>
  db
    .selectFrom('session_inputs')
    .select(['id', 'status', 'status_reason', 'delivery', 'message_id'])
    .where('session_id', '=', sid)
    .execute();

const count = (events: SessionEvent[], type: string) =>
  events.filter((e) => e.type === type).length;

describe('input admission, reconciliation and titles with real processes (R9, R12, R14)', () => {
  it('queues, guides and removes inputs while a turn runs; the ledger ends promoted or cancelled', async () => {
    const { sid } = await openSession();
    const follow = client.follow(sid, 0);
    const first = await client.op(sid, 'prompt', { text: '[scenario:run_command] go' });
    expect(first).toMatchObject({ ok: true, delivery: 'startNow' });
    await waitUntil(() => count(follow.events, 'permission_requested') === 1, {
      timeoutMs: 10_000,
      what: 'permission',
    });
    const queued = await client.op(sid, 'prompt', { text: 'queued follow-up' });
    const guided = await client.op(sid, 'prompt', {
      text: 'also mention tests',
      delivery: 'guide',
    });
    const removed = await client.op(sid, 'prompt', { text: 'never mind this' });
    const mismatch = await client.op(sid, 'prompt', { text: 'x', expectedTurnId: 'turn_nope' });
    expect(queued).toMatchObject({
      ok: true,
      delivery: 'queue',
      targetTurnId: first.ok ? first.turnId : '',
    });
    expect(guided).toMatchObject({ ok: true, delivery: 'guide' });
    expect(mismatch).toMatchObject({ ok: false, error: { code: 'expected_turn_mismatch' } });
    if (!queued.ok || !guided.ok || !removed.ok) throw new Error('not admitted');
    expect(await client.op(sid, 'remove_input', { inputId: removed.inputId })).toMatchObject({
      ok: true,
    });
    expect(await client.op(sid, 'remove_input', { inputId: removed.inputId })).toMatchObject({
      ok: false,
      error: { code: 'illegal_transition', detail: { from: 'cancelled' } },
    });
    const request = follow.events.find((e) => e.type === 'permission_requested');
    if (request?.type !== 'permission_requested') throw new Error('no permission request');
    await client.op(sid, 'answer_permission', {
      requestId: request.payload.requestId,
      decision: 'allow',
    });
    await waitUntil(() => count(follow.events, 'turn_complete') === 2, {
      timeoutMs: 15_000,
      what: 'two turns',
    });
    await follow.stop();

    const events = follow.events;
    const turns = events.filter((e) => e.type === 'turn_started');
    expect(turns.map((e) => (e.type === 'turn_started' ? e.payload.inputId : ''))).toEqual([
      first.ok ? first.inputId : '',
      queued.inputId,
    ]);
    const drained = events.find((e) => e.type === 'turn_steer_drained');
    expect(drained?.turnId).toBe(turns[0]?.turnId);
    expect(drained?.payload).toMatchObject({ pendingInputIds: [guided.inputId] });
    expect(events.find((e) => e.type === 'turn_steer_rejected')?.payload).toMatchObject({
      reason: 'expected_turn_mismatch',
    });
    const numbers = events.map((e) => e.sequenceNumber);
    expect(numbers).toEqual(numbers.map((_, i) => i + 1));

    await waitUntil(
      async () => {
        const rows = await ledger(sid);
        return rows.length === 4 && rows.every((r) => r.status !== 'admitted');
      },
      { timeoutMs: 10_000, what: 'ledger settled' },
    );
    const rows = Object.fromEntries((await ledger(sid)).map((r) => [r.id, r]));
    expect(rows[String(queued.inputId)]).toMatchObject({ status: 'promoted', delivery: 'queue' });
    expect(rows[String(guided.inputId)]).toMatchObject({ status: 'promoted', delivery: 'guide' });
    expect(rows[String(removed.inputId)]).toMatchObject({
      status: 'cancelled',
      status_reason: 'user_removed',
    });
    const users = await db
      .selectFrom('messages')
      .select('id')
      .where('session_id', '=', sid)
      .where('role', '=', 'user')
      .execute();
    expect(users).toHaveLength(3);
  });

  it('generates the title through the sidecar after the first message is persisted (flow 4)', async () => {
    const { sid } = await openSession();
    const follow = client.follow(sid, 0);
    const reply = await client.op(sid, 'prompt', {
      text: 'please tidy the release notes',
      wait: true,
    });
    expect(reply).toMatchObject({ ok: true, status: 'complete' });
    await waitUntil(
      () =>
        follow.events.some(
          (e) => e.type === 'session_title_updated' && e.payload.source === 'generated',
        ),
      { timeoutMs: 15_000, what: 'generated title' },
    );
    await follow.stop();
    const titleEvents = follow.events.filter(
      (e) =>
        (e.type === 'model_request' || e.type === 'model_complete') &&
        e.payload.querySource === 'session_title',
    );
    expect(titleEvents.map((e) => e.type)).toEqual(['model_request', 'model_complete']);
    const generated = follow.events.find(
      (e) => e.type === 'session_title_updated' && e.payload.source === 'generated',
    );
    const row = await db
      .selectFrom('sessions')
      .select(['title', 'title_source'])
      .where('id', '=', sid)
      .executeTakeFirstOrThrow();
    expect(row).toEqual({
      title: generated?.type === 'session_title_updated' ? generated.payload.title : '',
      title_source: 'generated',
    });
  });

  it('after SIGKILL, inputs that never started are discarded as session_resumed (R14.2, flow 6)', async () => {
    const { sid, owner } = await openSession();
    const follow = client.follow(sid, 0);
    await client.op(sid, 'prompt', { text: '[scenario:run_command] go' });
    await waitUntil(() => count(follow.events, 'permission_requested') === 1, {
      timeoutMs: 10_000,
      what: 'permission',
    });
    const waiting = await client.op(sid, 'prompt', { text: 'queued before the crash' });
    if (!waiting.ok) throw new Error('not queued');
    await waitUntil(
      async () =>
        (await ledger(sid)).some((r) => r.id === waiting.inputId && r.status === 'admitted'),
      { timeoutMs: 10_000, what: 'admitted row' },
    );
    await stack.killRuntime(owner);
    const next = await client.runTurn(sid, 'carry on', follow, { inputId: `${sid}-carry-on` });
    expect(next).toMatchObject({ ok: true, status: 'complete' });
    await follow.stop();
    const types = follow.events.map((e) => e.type);
    const lost = types.indexOf('turn_error');
    expect(types[lost + 1]).toBe('turn_steer_discarded');
    expect(follow.events[lost + 1]?.payload).toEqual({
      pendingInputId: waiting.inputId,
      reason: 'session_resumed',
    });
    expect(
      follow.events
        .filter((e) => e.type === 'turn_started')
        .map((e) => e.type === 'turn_started' && e.payload.input),
    ).toEqual(['[scenario:run_command] go', 'carry on']);
    await waitUntil(
      async () =>
        (await ledger(sid)).some(
          (r) =>
            r.id === waiting.inputId &&
            r.status === 'discarded' &&
            r.status_reason === 'session_resumed',
        ),
      { timeoutMs: 10_000, what: 'ledger row discarded' },
    );
    await startRuntime(owner);
  });

  it('two sessions using one input id each get their turn, their ledger row and their message (issue 9)', async () => {
    const [one, two] = [await openSession(), await openSession()];
    const inputId = `shared-${Date.now()}`;
    const [a, b] = await Promise.all([
      client.op(one.sid, 'prompt', { text: 'first session', inputId, wait: true }, 60_000),
      client.op(two.sid, 'prompt', { text: 'second session', inputId, wait: true }, 60_000),
    ]);
    expect(a).toMatchObject({ ok: true, status: 'complete', inputId });
    expect(b).toMatchObject({ ok: true, status: 'complete', inputId });
    for (const [sid, text] of [
      [one.sid, 'first session'],
      [two.sid, 'second session'],
    ] as const) {
      await waitUntil(
        async () => (await ledger(sid)).some((r) => r.id === inputId && r.status === 'promoted'),
        { timeoutMs: 20_000, what: `${sid}'s ledger row promoted` },
      );
      const rows = await ledger(sid);
      expect(rows).toHaveLength(1);
      const message = await db
        .selectFrom('messages')
        .select(['id'])
        .where('session_id', '=', sid)
        .where('role', '=', 'user')
        .execute();
      expect(message.map((m) => m.id)).toEqual([rows[0]?.message_id]);
      const parts = await db
        .selectFrom('parts')
        .select(['data'])
        .where('message_id', '=', rows[0]?.message_id ?? '')
        .execute();
      expect(JSON.stringify(parts.map((p) => p.data))).toContain(text);
    }
  });
});
