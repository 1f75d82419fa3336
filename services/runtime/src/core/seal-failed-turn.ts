import type { SessionEmitter } from './session-emitter.ts';

/** The turn whose loop threw, and why. */
export interface FailedTurn {
  readonly turnId: string;
  readonly traceId: string;
  readonly inputId: string;
  readonly err: unknown;
}

/**
 * Seals a turn whose loop threw (a bus or store failure) with `turn_error`
 * (`runtime_error`), so it is not left open (R1.1). Returns whether the event was
 * appended; a broken session or a failing append seals nothing.
 */
export async function sealFailedTurn(
  emitter: SessionEmitter,
  failed: FailedTurn,
): Promise<boolean> {
  if (emitter.appender.broken !== undefined) return false;
  const message = failed.err instanceof Error ? failed.err.message : String(failed.err);
  return emitter
    .emit('turn_error', failed.turnId, failed.traceId, {
      error: {
        type: 'runtime_error',
        message,
        code: 'runtime_error',
        attribution: { source: 'runtime' },
      },
      turnPhase: 'runtime',
      inputId: failed.inputId,
    })
    .then(
      () => true,
      () => false,
    );
}
