import type { RuntimeSession } from '../kernel/runtime-session.ts';
import type { SubmitOptions, TurnTicket } from '../kernel/submission.ts';

/**
 * Submits `input` through admission (R12.1, R14), as a frontend's prompt does, and returns
 * the turn it started; throws when the input was not started at once (rejected, or queued
 * behind a running turn), so a test that expects a turn gets one.
 */
export async function startTurn(
  session: RuntimeSession | undefined,
  input: string,
  options: SubmitOptions = {},
): Promise<TurnTicket> {
  if (session === undefined) throw new Error('no such session');
  const admitted = await session.submit(input, options);
  if (!admitted.ok) throw new Error(`input not admitted: ${JSON.stringify(admitted)}`);
  if (admitted.delivery !== 'startNow') {
    throw new Error(`input was queued (${admitted.delivery}), not started`);
  }
  return { turnId: admitted.turnId, done: admitted.done };
}
