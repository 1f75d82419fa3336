import { describe, expect, it } from 'vitest';
import {
  ACTION_STATES,
  ACTION_TRANSITIONS,
  isTerminalActionState,
  transitionAction,
} from './action-lifecycle.ts';

describe('action lifecycle (R12.3)', () => {
  it('given a queued action, when it walks the main line, then every step is allowed', () => {
    const line = ['queued', 'selected', 'preparing', 'committing', 'running', 'completed'] as const;
    for (let i = 1; i < line.length; i++) {
      const from = line[i - 1];
      const to = line[i];
      if (from === undefined || to === undefined) throw new Error('unreachable');
      expect(transitionAction(from, to)).toEqual({ ok: true, state: to });
    }
  });

  it('given a running action, when it ends, then completed, failed and cancelled are allowed', () => {
    for (const end of ['completed', 'failed', 'cancelled'] as const) {
      expect(transitionAction('running', end)).toEqual({ ok: true, state: end });
    }
  });

  it('given a committing action, when rolled back without proof, then it is refused', () => {
    expect(transitionAction('committing', 'queued')).toEqual({
      ok: false,
      reason: 'rollback_needs_proof',
    });
    expect(
      transitionAction('committing', 'queued', {
        dispatchSettled: false,
        reachedTranscript: false,
      }),
    ).toEqual({ ok: false, reason: 'rollback_needs_proof' });
    expect(
      transitionAction('committing', 'queued', { dispatchSettled: true, reachedTranscript: true }),
    ).toEqual({ ok: false, reason: 'rollback_needs_proof' });
  });

  it('given a committing action, when rolled back with proof, then it is queued again', () => {
    expect(
      transitionAction('committing', 'queued', { dispatchSettled: true, reachedTranscript: false }),
    ).toEqual({ ok: true, state: 'queued' });
  });

  it('given a stale preparation, when re-queued, then it is allowed (R12.5)', () => {
    expect(transitionAction('preparing', 'queued')).toEqual({ ok: true, state: 'queued' });
    expect(transitionAction('selected', 'queued')).toEqual({ ok: true, state: 'queued' });
  });

  it('given any state, when skipping ahead or going back, then it is illegal', () => {
    expect(transitionAction('queued', 'running').ok).toBe(false);
    expect(transitionAction('running', 'committing').ok).toBe(false);
    expect(transitionAction('committing', 'cancelled').ok).toBe(false);
  });

  it('given a terminal state, when any transition is tried, then it is illegal', () => {
    for (const from of ACTION_STATES.filter(isTerminalActionState)) {
      for (const to of ACTION_STATES) {
        expect(
          transitionAction(from, to, { dispatchSettled: true, reachedTranscript: false }),
        ).toEqual({ ok: false, reason: 'illegal_transition' });
      }
    }
    expect(ACTION_STATES.filter(isTerminalActionState)).toEqual([
      'completed',
      'failed',
      'cancelled',
    ]);
  });

  it('given the table, when read, then every target is a known state', () => {
    for (const targets of Object.values(ACTION_TRANSITIONS)) {
      for (const t of targets) expect(ACTION_STATES).toContain(t);
    }
  });
});
