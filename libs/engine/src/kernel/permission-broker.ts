import type { PermissionDecision } from '@agentwire/contracts';

/** A host's answer to a permission request (R1.4). */
export interface PermissionAnswer {
  readonly decision: PermissionDecision;
  readonly reason?: string;
}

/** Outcome of waiting for an answer. */
export type PermissionOutcome =
  | { readonly kind: 'answered'; readonly answer: PermissionAnswer }
  | { readonly kind: 'timeout' }
  | { readonly kind: 'aborted' };

interface Waiter {
  resolve(outcome: PermissionOutcome): void;
  readonly toolCallId: string;
}

/**
 * Reverse requests of R1.4: the turn asks and waits; a frontend answers through the
 * `answer_permission` op. An unanswered request times out (treated as a denial by the
 * turn) and an interrupted turn aborts its wait.
 */
export class PermissionBroker {
  readonly #waiting = new Map<string, Waiter>();

  /** Waits for the answer to `requestId`, at most `timeoutMs`. */
  request(
    requestId: string,
    toolCallId: string,
    timeoutMs: number,
    signal?: AbortSignal,
  ): Promise<PermissionOutcome> {
    return new Promise((resolve) => {
      const finish = (outcome: PermissionOutcome) => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
        this.#waiting.delete(requestId);
        resolve(outcome);
      };
      const onAbort = () => finish({ kind: 'aborted' });
      const timer = setTimeout(() => finish({ kind: 'timeout' }), timeoutMs);
      if (signal?.aborted === true) return finish({ kind: 'aborted' });
      signal?.addEventListener('abort', onAbort, { once: true });
      this.#waiting.set(requestId, { resolve: finish, toolCallId });
    });
  }

  /** Delivers an answer; `unknown_request` when nothing waits for `requestId`. */
  answer(
    requestId: string,
    answer: PermissionAnswer,
  ): { ok: true } | { ok: false; reason: 'unknown_request' } {
    const waiter = this.#waiting.get(requestId);
    if (waiter === undefined) return { ok: false, reason: 'unknown_request' };
    waiter.resolve({ kind: 'answered', answer });
    return { ok: true };
  }

  /** Request ids still waiting (an unanswered interaction blocks reclaiming, R11.2). */
  pendingRequestIds(): string[] {
    return [...this.#waiting.keys()];
  }
}
