import type { HistoryMessage, SessionProjection } from '@agentwire/contracts';
import { initialProjection } from '@agentwire/domain';
import { GatewayError, historyPage, readProjection } from '../api/gateway-api.ts';
import { type SessionView, viewOfBase } from './session-view.ts';

const wait = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * The newest history page exact for `asOfSeq`, asked again while the read side has not
 * caught up with it (`not_caught_up`, docs/decisions/0181), for at most `deadlineMs`.
 */
async function historyAsOf(
  sessionId: string,
  asOfSeq: number,
  deadlineMs: number,
): Promise<{ messages: readonly HistoryMessage[]; older: string | null }> {
  if (asOfSeq === 0) return { messages: [], older: null };
  const until = Date.now() + deadlineMs;
  for (;;) {
    try {
      return await historyPage(sessionId, { asOfSeq });
    } catch (error) {
      const behind = error instanceof GatewayError && error.code === 'not_caught_up';
      if (!behind || Date.now() > until) throw error;
      await wait(200);
    }
  }
}

/**
 * The view of a projection exact for `asOfSeq` with the history exact for the same number:
 * what a session opens with, and what a snapshot frame (R15.1) replaces the view with.
 * Also returns the cursor of the page before, for "earlier messages".
 */
export async function baseAt(
  sessionId: string,
  projection: SessionProjection,
  asOfSeq: number,
  deadlineMs = 15_000,
): Promise<{ view: SessionView; older: string | null }> {
  const page = await historyAsOf(sessionId, asOfSeq, deadlineMs);
  return { view: viewOfBase(projection, page.messages, asOfSeq), older: page.older };
}

/**
 * Loads what a session shows before it is followed: the projection (its `asOfSeq` is N),
 * then the history exact for N. The feed then follows from N, so nothing is missing
 * between the page and the first live event, and nothing is twice.
 */
export async function loadBase(
  sessionId: string,
): Promise<{ view: SessionView; older: string | null }> {
  const { projection, asOfSeq } = await readProjection(sessionId);
  return baseAt(sessionId, projection ?? initialProjection(sessionId, Date.now()), asOfSeq);
}
