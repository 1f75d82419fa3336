/** States of a queued action (R12.3). */
export const ACTION_STATES = [
  'queued',
  'selected',
  'preparing',
  'committing',
  'running',
  'completed',
  'failed',
  'cancelled',
] as const;

/** One state of R12.3. */
export type ActionState = (typeof ACTION_STATES)[number];

/**
 * Proof that a rollback from `committing` to `queued` is safe (R12.3): the dispatch has
 * settled and the message did not reach the transcript.
 */
export interface CommitRollbackProof {
  readonly dispatchSettled: boolean;
  readonly reachedTranscript: boolean;
}

/**
 * The transition table of R12.3. Beyond the main line
 * queued -> selected -> preparing -> committing -> running -> completed | failed | cancelled:
 * - `selected` and `preparing` may go back to `queued` (stale epoch, R12.5: re-queued, not
 *   failed);
 * - `committing` may go back to `queued` only with a {@link CommitRollbackProof};
 * - an action not yet committing may be cancelled (deleted from the queue, R12.4);
 * - `preparing`, `committing` and `running` may fail.
 * Once committing, the message may be in the transcript, so cancellation waits for
 * `running`. Terminal states have no way out.
 */
export const ACTION_TRANSITIONS: { readonly [S in ActionState]: readonly ActionState[] } = {
  queued: ['selected', 'cancelled'],
  selected: ['preparing', 'queued', 'cancelled'],
  preparing: ['committing', 'queued', 'failed', 'cancelled'],
  committing: ['running', 'queued', 'failed'],
  running: ['completed', 'failed', 'cancelled'],
  completed: [],
  failed: [],
  cancelled: [],
};

/** Why a transition is refused. */
export type ActionTransitionRefusal = 'illegal_transition' | 'rollback_needs_proof';

/** Outcome of {@link transitionAction}. */
export type ActionTransition =
  | { readonly ok: true; readonly state: ActionState }
  | { readonly ok: false; readonly reason: ActionTransitionRefusal };

/** True for `completed`, `failed` and `cancelled`. */
export function isTerminalActionState(state: ActionState): boolean {
  return ACTION_TRANSITIONS[state].length === 0;
}

/**
 * Moves an action from `from` to `to` if the table of R12.3 allows it; the rollback from
 * `committing` to `queued` also needs proof that the dispatch settled and the message did
 * not reach the transcript.
 */
export function transitionAction(
  from: ActionState,
  to: ActionState,
  proof?: CommitRollbackProof,
): ActionTransition {
  if (!ACTION_TRANSITIONS[from].includes(to)) return { ok: false, reason: 'illegal_transition' };
  if (from === 'committing' && to === 'queued') {
    if (!proof?.dispatchSettled || proof.reachedTranscript) {
      return { ok: false, reason: 'rollback_needs_proof' };
    }
  }
  return { ok: true, state: to };
}
