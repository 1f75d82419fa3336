import type { SessionEvent } from '@agentwire/contracts';
import { waitUntil } from '@agentwire/testing';
import { describe, expect, it } from 'vitest';
import { createSessionHarness } from '../../testing/session-harness.ts';

const quickly = { timeoutMs: 2_000, intervalMs: 2 } as const;

const permissions = (events: readonly SessionEvent[]) =>
  events.flatMap((e) =>
    e.type === 'permission_requested' && e.payload.requestId !== undefined
      ? [e.payload.requestId]
      : [],
  );
const count = (events: readonly SessionEvent[], type: string) =>
  events.filter((e) => e.type === type).length;

/** A session whose first turn waits on its permission request. */
async function running() {
  const h = createSessionHarness({});
  const first = await h.session.submit('[scenario:run_command] go');
  if (!first.ok || first.delivery !== 'startNow') throw new Error('not started');
  await waitUntil(() => permissions(h.events).length === 1, quickly);
  const allow = () =>
    h.session.answerPermission(permissions(h.events)[0] ?? '', { decision: 'allow' });
  return { ...h, allow, firstDone: first.done };
}

describe('queue modes (R12.2, docs/decisions/0236)', () => {
  it('holds the queue while auto-drain is off, then commits the followUp run as one batch', async () => {
    const h = await running();
    for (const id of ['a', 'b', 'c']) await h.session.submit(`input ${id}`, { inputId: id });
    expect(
      await h.session.runOperation('set_queue_modes', { followUpMode: 'all', autoDrain: false }),
    ).toEqual({ steeringMode: 'all', followUpMode: 'all', autoDrain: false, changed: true });
    h.allow();
    // Once the first turn is over (its end handled, the queue consulted), nothing started:
    // the three still wait, queued.
    await h.firstDone;
    await h.appender.idle();
    expect(h.session.activeTurnId).toBeUndefined();
    expect(count(h.events, 'turn_started')).toBe(1);
    expect(h.session.pendingInputIds).toEqual(['a', 'b', 'c']);
    await h.session.runOperation('set_queue_modes', { autoDrain: true });
    await waitUntil(() => count(h.events, 'turn_complete') === 2, quickly);
    // One turn, on `a`; `b` and `c` joined it before its first model request.
    expect(count(h.events, 'turn_started')).toBe(2);
    const types = h.events.map((e) => e.type);
    const drained = h.events.find((e) => e.type === 'turn_steer_drained');
    expect(drained?.payload).toMatchObject({ pendingInputIds: ['b', 'c'] });
    expect(types.lastIndexOf('turn_steer_drained')).toBeLessThan(
      types.lastIndexOf('model_request'),
    );
    const lastRequest = h.events.filter((e) => e.type === 'model_request').at(-1);
    expect(JSON.stringify(lastRequest?.payload)).toContain('input c');
    expect(['a', 'b', 'c'].map((id) => h.session.actionState(id))).toEqual([
      'completed',
      'completed',
      'completed',
    ]);
    expect(
      h.events
        .filter((e) => e.type === 'followup_mode_changed' || e.type === 'queue_auto_drain_changed')
        .map((e) => e.payload),
    ).toEqual([
      {
        steeringMode: 'all',
        followUpMode: 'all',
        previousSteeringMode: 'all',
        previousFollowUpMode: 'one_at_a_time',
      },
      { enabled: false, reason: 'paused by a user' },
      { enabled: true, reason: 'resumed by a user' },
    ]);
  });

  it('steering one_at_a_time drains one guided input per step boundary', async () => {
    const h = await running();
    await h.session.runCommand('queue-mode', 'steering one');
    await h.session.submit('first guide', { inputId: 'g1', delivery: 'guide' });
    await h.session.submit('second guide', { inputId: 'g2', delivery: 'guide' });
    h.allow();
    await waitUntil(() => count(h.events, 'turn_complete') === 1, quickly);
    // Each boundary took one: g1 before the step after the tool, g2 before the next.
    const drained = h.events.filter((e) => e.type === 'turn_steer_drained');
    expect(drained.map((e) => e.payload.pendingInputIds)).toEqual([['g1'], ['g2']]);
    const steps = h.events.filter((e) => e.type === 'model_request').length;
    expect(steps).toBe(3);
  });

  it('answers /queue-mode, refuses bad settings, and rebuilds the modes from the stream', async () => {
    const h = createSessionHarness({});
    expect(await h.session.runCommand('queue-mode', '')).toEqual({
      steeringMode: 'all',
      followUpMode: 'one_at_a_time',
      autoDrain: true,
    });
    await expect(h.session.runCommand('queue-mode', 'followup many')).rejects.toMatchObject({
      code: 'invalid_command',
      detail: { command: 'queue-mode' },
    });
    await expect(h.session.runCommand('queue-mode', 'sideways all')).rejects.toMatchObject({
      code: 'invalid_command',
    });
    expect(await h.session.runCommand('queue-mode', 'followup all autodrain off')).toMatchObject({
      followUpMode: 'all',
      autoDrain: false,
      changed: true,
    });
    expect(await h.session.runCommand('queue-mode', 'followup all')).toMatchObject({
      changed: false,
    });
    const featureEvents = h.events.filter(
      (e) => e.type === 'followup_mode_changed' || e.type === 'queue_auto_drain_changed',
    );
    const again = createSessionHarness({
      start: { persisted: true, title: null, turnCount: 0, history: [], featureEvents },
    });
    expect(await again.session.runCommand('queue-mode', '')).toEqual({
      steeringMode: 'all',
      followUpMode: 'all',
      autoDrain: false,
    });
  });
});
