import type { SessionEvent } from '@agentwire/contracts';
import { waitUntil } from '@agentwire/testing';
import { describe, expect, it } from 'vitest';
import { FakeTitles, titleReply as reply } from '../testing/fake-titles.ts';
import { createSessionHarness, type SessionHarnessOptions } from '../testing/session-harness.ts';

function setup(extra: SessionHarnessOptions = {}) {
  const { session, events, writer, logger } = createSessionHarness({
    maxInputBytes: 1_000,
    ...extra,
  });
  const permissions = () =>
    events.flatMap((e) =>
      e.type === 'permission_requested' && e.payload.requestId !== undefined
        ? [e.payload.requestId]
        : [],
    );
  return { session, events, writer, logger, permissions };
}

/** Polling of {@link waitUntil} for the in-memory session: fine-grained, bounded. */
const quickly = { timeoutMs: 2_000, intervalMs: 2 } as const;

const types = (events: SessionEvent[]) =>
  events.map((e) => e.type).filter((t) => t !== 'model_streaming');

describe('input admission while a turn runs (R12, R14)', () => {
  it('queues inputs by default; each starts its own turn after the current one, in order', async () => {
    const { session, events, permissions } = setup();
    const first = await session.submit('[scenario:run_command] go');
    await waitUntil(() => permissions().length === 1, quickly);
    const a = await session.submit('second');
    const b = await session.submit('third');
    expect(a).toMatchObject({ ok: true, delivery: 'queue', queueLength: 1 });
    expect(b).toMatchObject({ ok: true, delivery: 'queue', queueLength: 2 });
    expect(session.pendingInputIds).toHaveLength(2);
    session.answerPermission(permissions()[0] ?? '', { decision: 'allow' });
    if (!a.ok || !('settled' in a) || !b.ok || !('settled' in b)) throw new Error('not queued');
    const started = await a.settled;
    expect(started.kind).toBe('started');
    const last = await b.settled;
    if (last.kind !== 'started') throw new Error('b did not start');
    await last.done;
    if (!first.ok || first.delivery !== 'startNow') throw new Error('first did not start');
    await first.done;
    const turns = events.filter((e) => e.type === 'turn_started');
    expect(turns.map((e) => e.payload.input)).toEqual([
      '[scenario:run_command] go',
      'second',
      'third',
    ]);
    expect(turns.map((e) => e.payload.inputId)).toEqual([first.inputId, a.inputId, b.inputId]);
    const queued = events.filter((e) => e.type === 'turn_steer_queued');
    expect(queued[1]?.payload).toMatchObject({
      pendingInputId: a.inputId,
      delivery: 'queue',
      targetTurnId: first.turnId,
      inputSize: 6,
      queueLength: 1,
    });
    // Each queued input is promoted before its own turn starts (R7.3).
    const t = types(events);
    const promotedA = events.findIndex(
      (e) => e.type === 'session_input_promoted' && e.payload.pendingInputId === a.inputId,
    );
    expect(events[promotedA + 1]?.type).toBe('turn_started');
    expect(t.filter((x) => x === 'turn_complete')).toHaveLength(3);
    expect(session.pendingInputIds).toEqual([]);
  });

  it('guides an input into the running turn at the next step boundary', async () => {
    const { session, events, permissions, writer } = setup();
    const first = await session.submit('[scenario:run_command] go');
    await waitUntil(() => permissions().length === 1, quickly);
    const g = await session.submit('also say hello', { delivery: 'guide' });
    expect(g).toMatchObject({ ok: true, delivery: 'guide' });
    session.answerPermission(permissions()[0] ?? '', { decision: 'allow' });
    if (!g.ok || !('settled' in g) || !first.ok || first.delivery !== 'startNow')
      throw new Error('unexpected admission');
    const settlement = await g.settled;
    expect(settlement).toMatchObject({ kind: 'drained', turnId: first.turnId });
    await first.done;
    const drained = events.find((e) => e.type === 'turn_steer_drained');
    expect(drained?.turnId).toBe(first.turnId);
    expect(drained?.payload).toMatchObject({
      pendingInputIds: [g.inputId],
      inputs: [{ pendingInputId: g.inputId, input: 'also say hello' }],
    });
    expect(events.filter((e) => e.type === 'turn_started')).toHaveLength(1);
    const userWrites = writer.calls.filter((c) => c.kind === 'save_user_message');
    expect(userWrites).toHaveLength(2);
    // The model's next step sees the guided message.
    const requests = events.filter((e) => e.type === 'model_request');
    expect(requests.at(-1)?.payload.messages.at(-1)).toMatchObject({
      role: 'user',
      content: 'also say hello',
    });
  });

  it('rejects empty, oversized and mismatched inputs with turn_steer_rejected', async () => {
    const { session, events, permissions } = setup();
    const first = await session.submit('[scenario:run_command] go');
    await waitUntil(() => permissions().length === 1, quickly);
    const replies = await Promise.all([
      session.submit('   '),
      session.submit('x'.repeat(1_001)),
      session.submit('hi', { expectedTurnId: 'turn_other' }),
    ]);
    expect(replies.map((r) => (r.ok ? 'ok' : r.reason))).toEqual([
      'empty_input',
      'input_too_large',
      'expected_turn_mismatch',
    ]);
    expect(
      events.filter((e) => e.type === 'turn_steer_rejected').map((e) => e.payload.reason),
    ).toEqual(['empty_input', 'input_too_large', 'expected_turn_mismatch']);
    expect(session.pendingInputIds).toEqual([]);
    session.interrupt();
    if (first.ok && first.delivery === 'startNow') await first.done;
  });

  it('removes and reorders queued inputs; a removed one never runs', async () => {
    const { session, events, permissions } = setup();
    const first = await session.submit('[scenario:run_command] go');
    await waitUntil(() => permissions().length === 1, quickly);
    const ids: string[] = [];
    for (const text of ['one', 'two', 'three']) {
      const r = await session.submit(text);
      ids.push(r.inputId);
    }
    await session.removeInput(ids[1] ?? '');
    await expect(session.removeInput(ids[1] ?? '')).rejects.toMatchObject({
      code: 'illegal_transition',
      detail: { from: 'cancelled', to: 'cancelled' },
    });
    expect(await session.reorderInputs([ids[2] ?? ''])).toEqual([ids[2], ids[0]]);
    session.answerPermission(permissions()[0] ?? '', { decision: 'allow' });
    if (!first.ok || first.delivery !== 'startNow') throw new Error('first did not start');
    await first.done;
    await waitUntil(() => events.filter((e) => e.type === 'turn_complete').length === 3, quickly);
    expect(events.filter((e) => e.type === 'turn_started').map((e) => e.payload.input)).toEqual([
      '[scenario:run_command] go',
      'three',
      'one',
    ]);
    expect(events.find((e) => e.type === 'turn_steer_discarded')?.payload).toEqual({
      pendingInputId: ids[1],
      reason: 'user_removed',
    });
    expect(events.find((e) => e.type === 'turn_steer_reordered')?.payload).toEqual({
      orderedPendingInputIds: [ids[2], ids[0]],
    });
  });

  it('close discards what still waits (turn_cancelled) before session_ended', async () => {
    const { session, events, permissions } = setup();
    await session.submit('[scenario:run_command] go');
    await waitUntil(() => permissions().length === 1, quickly);
    const q = await session.submit('later');
    await session.close();
    const t = types(events);
    expect(t.at(-1)).toBe('session_ended');
    expect(t.filter((x) => x === 'turn_started')).toHaveLength(1);
    expect(events.find((e) => e.type === 'turn_steer_discarded')?.payload).toEqual({
      pendingInputId: q.inputId,
      reason: 'turn_cancelled',
    });
  });
});

describe('title generation (R9.4-R9.7, flow 4)', () => {
  it('after the first message is persisted: model_request, model_complete, session_title_updated; in-flight work until it settles', async () => {
    const titles = new FakeTitles();
    titles.result = { kind: 'reply', reply: reply() };
    const { session, events } = setup({ titleGeneration: {}, titleGenerator: titles });
    const first = await session.submit('please fix the flaky build on main');
    if (!first.ok || first.delivery !== 'startNow') throw new Error('not started');
    await first.done;
    expect(session.residencyFacts().inFlightWork).toBe(1);
    expect(titles.requests[0]).toMatchObject({
      sessionId: 's1',
      input: 'please fix the flaky build on main',
      expectedFirstInput: 'please fix the flaky build on main',
    });
    titles.release();
    await waitUntil(
      () =>
        events.some((e) => e.type === 'session_title_updated' && e.payload.source === 'generated'),
      quickly,
    );
    const titleEvents = events.filter(
      (e) =>
        (e.type === 'model_request' || e.type === 'model_complete') &&
        e.payload.querySource === 'session_title',
    );
    expect(titleEvents.map((e) => e.type)).toEqual(['model_request', 'model_complete']);
    expect(titleEvents[1]?.payload).toMatchObject({ usage: { inputTokens: 3 } });
    expect(session.title).toBe('Fix the flaky build');
    expect(session.residencyFacts().inFlightWork).toBe(0);
    // Only once per session (R9.5).
    const second = await session.submit('and now something else entirely');
    if (second.ok && second.delivery === 'startNow') await second.done;
    expect(titles.requests).toHaveLength(1);
  });

  it('a sidecar that does not answer leaves the turn going: model_error, logged', async () => {
    const titles = new FakeTitles();
    titles.release();
    const { session, events, logger } = setup({ titleGeneration: {}, titleGenerator: titles });
    const first = await session.submit('please fix the flaky build on main');
    if (!first.ok || first.delivery !== 'startNow') throw new Error('not started');
    expect((await first.done).status).toBe('complete');
    await waitUntil(() => events.some((e) => e.type === 'model_error'), quickly);
    expect(events.find((e) => e.type === 'model_error')?.payload).toMatchObject({
      querySource: 'session_title',
      error: { code: 'no_responders' },
    });
    expect(logger.lines.some((l) => l.msg?.includes('title generation failed'))).toBe(true);
    expect(events.filter((e) => e.type === 'session_title_updated')).toHaveLength(1);
  });

  it('no request for short inputs, when off, or when not applied', async () => {
    const off = new FakeTitles();
    const a = setup({ titleGenerator: off });
    const r = await a.session.submit('please fix the flaky build on main');
    if (r.ok && r.delivery === 'startNow') await r.done;
    const short = new FakeTitles();
    const b = setup({ titleGeneration: {}, titleGenerator: short });
    const s = await b.session.submit('fix it');
    if (s.ok && s.delivery === 'startNow') await s.done;
    expect(off.requests).toHaveLength(0);
    expect(short.requests).toHaveLength(0);
    const dropped = new FakeTitles();
    dropped.result = {
      kind: 'reply',
      reply: reply({ applied: false, changed: false, reason: 'custom_title' }),
    };
    dropped.release();
    const c = setup({ titleGeneration: {}, titleGenerator: dropped });
    const d = await c.session.submit('please fix the flaky build on main');
    if (d.ok && d.delivery === 'startNow') await d.done;
    await waitUntil(
      () =>
        c.events.some(
          (e) => e.type === 'model_complete' && e.payload.querySource === 'session_title',
        ),
      quickly,
    );
    expect(c.events.filter((e) => e.type === 'session_title_updated')).toHaveLength(1);
  });
});
