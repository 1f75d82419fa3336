import type { ActionState } from '@agentwire/contracts';
import { waitUntil } from '@agentwire/testing';
import { describe, expect, it } from 'vitest';
import { createSessionHarness } from '../testing/session-harness.ts';
import { ActionLifecycle, canTransition } from './action-lifecycle.ts';

const quickly = { timeoutMs: 2_000, intervalMs: 2 } as const;

describe('the action lifecycle table (R12.3)', () => {
  it('allows the forward path and refuses a skipped or backward step with a typed error', () => {
    const action = new ActionLifecycle('in1', true);
    action.select('rsv1');
    expect(action.reservationId).toBe('rsv1');
    for (const next of ['preparing', 'committing', 'running', 'completed'] as const) {
      action.to(next);
      expect(action.state).toBe(next);
    }
    expect(action.reservationId).toBeNull();
    expect(() => action.to('running')).toThrow(
      expect.objectContaining({
        code: 'illegal_transition',
        detail: { inputId: 'in1', from: 'completed', to: 'running' },
      }),
    );
    const skipping = new ActionLifecycle('in2', true);
    expect(() => skipping.to('running')).toThrow(
      expect.objectContaining({ code: 'illegal_transition' }),
    );
    expect(skipping.state).toBe('queued');
  });

  it('rolls back from committing only with proof that the message is not in the transcript', () => {
    const action = new ActionLifecycle('in1', true);
    action.select('rsv1');
    action.to('preparing');
    action.to('committing');
    expect(() => action.to('queued')).toThrow(
      expect.objectContaining({ code: 'illegal_transition' }),
    );
    expect(action.state).toBe('committing');
    action.to('queued', { dispatchSettled: true, inTranscript: false });
    expect(action.state).toBe('queued');
    expect(action.reservationId).toBeNull();
  });

  it('removes only a queued action; the terminal states lead nowhere', () => {
    const running = new ActionLifecycle('in1', true);
    running.select('r');
    running.to('committing');
    running.to('running');
    expect(() => running.remove()).toThrow(
      expect.objectContaining({
        code: 'illegal_transition',
        detail: { inputId: 'in1', from: 'running', to: 'cancelled' },
      }),
    );
    const terminal: ActionState[] = ['completed', 'failed', 'cancelled'];
    const all: ActionState[] = ['queued', 'selected', 'preparing', 'committing', 'running'];
    for (const from of terminal) {
      for (const to of [...all, ...terminal]) expect(canTransition(from, to)).toBe(false);
    }
  });
});

describe('dispatch and the epoch (R12.3, R12.5)', () => {
  const permissions = (events: { type: string; payload: unknown }[]) =>
    events.flatMap((e) =>
      e.type === 'permission_requested' ? [(e.payload as { requestId: string }).requestId] : [],
    );

  it('reports a queued input reserved, then promoting, then runs it', async () => {
    const h = createSessionHarness({});
    await h.session.submit('[scenario:run_command] go');
    await waitUntil(() => permissions(h.events).length === 1, quickly);
    await h.session.submit('next', { inputId: 'in_next' });
    expect(h.session.actionState('in_next')).toBe('queued');
    h.session.answerPermission(permissions(h.events)[0] ?? '', { decision: 'allow' });
    await waitUntil(() => h.events.filter((e) => e.type === 'turn_complete').length === 2, quickly);
    const dispatch = h.events.filter((e) => e.type === 'turn_steer_dispatch_changed');
    expect(dispatch.map((e) => e.payload)).toEqual([
      { pendingInputId: 'in_next', state: 'reserved', reservationId: expect.any(String) },
      {
        pendingInputId: 'in_next',
        state: 'promoting',
        reservationId: dispatch[0]?.payload.reservationId,
      },
    ]);
    const promoted = h.events.findIndex((e) => e.type === 'session_input_promoted');
    const types = h.events.map((e) => e.type);
    expect(types.indexOf('turn_steer_dispatch_changed')).toBeLessThan(
      types.lastIndexOf('turn_started'),
    );
    expect(promoted).toBeGreaterThan(-1);
    expect(h.session.actionState('in_next')).toBe('completed');
  });

  it('re-queues an input interrupted while it prepares; it runs next, once', async () => {
    const h = createSessionHarness({});
    let release: () => void = () => {};
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    h.writer.beforeConfirm = (kind) => (kind === 'ensure_session' ? held : Promise.resolve());
    const admission = await h.session.submit('hello', { inputId: 'in1' });
    if (!admission.ok || admission.delivery !== 'startNow') throw new Error('not started');
    await waitUntil(() => h.session.actionState('in1') === 'preparing', quickly);
    const interrupted = h.session.interrupt();
    expect(interrupted).toMatchObject({ turnId: admission.turnId, requeued: true });
    release();
    const outcome = await admission.done;
    expect(outcome.status).toBe('complete');
    const types = h.events.map((e) => e.type);
    expect(types.filter((t) => t === 'turn_started')).toHaveLength(1);
    expect(types.filter((t) => t === 'session_input_promoted')).toHaveLength(1);
    expect(types.indexOf('interrupt')).toBeLessThan(types.indexOf('turn_started'));
    expect(
      h.events.filter((e) => e.type === 'turn_steer_dispatch_changed').map((e) => e.payload.state),
    ).toEqual(['queued', 'reserved', 'promoting']);
    expect(h.session.actionState('in1')).toBe('completed');
  });

  it('interrupts a turn that runs as before: it ends cancelled and its input with it', async () => {
    const h = createSessionHarness({});
    const admission = await h.session.submit('[scenario:run_command] go', { inputId: 'in1' });
    await waitUntil(() => permissions(h.events).length === 1, quickly);
    expect(h.session.interrupt()).toMatchObject({ requeued: false });
    if (!admission.ok || admission.delivery !== 'startNow') throw new Error('not started');
    expect((await admission.done).status).toBe('cancelled');
    expect(h.session.actionState('in1')).toBe('cancelled');
  });
});
