import { initialProjection } from '@agentwire/domain';
import { GatewayError, historyPage, readProjection } from '../api/gateway-api.ts';
import { type SessionView, viewOfBase } from './session-view.ts';

const wait = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Loads what a session shows before it is followed: the projection (its `asOfSeq` is N),
 * then the newest history page exact for N, asked again while the read side has not
 * caught up with N (`not_caught_up`, docs/decisions/0181). The feed then follows from N,
 * so nothing is missing between the page and the first live event, and nothing is twice.
 * Also returns the cursor of the page before, for "earlier messages".
 */
export async function loadBase(
  sessionId: string,
  deadlineMs = 15_000,
): Promise<{ view: SessionView; older: string | null }> {
  const { projection, asOfSeq } = await readProjection(sessionId);
  const base = projection ?? initialProjection(sessionId, Date.now());
  if (asOfSeq === 0) return { view: viewOfBase(base, [], 0), older: null };
  const until = Date.now() + deadlineMs;
  for (;;) {
    try {
      const page = await historyPage(sessionId, { asOfSeq });
      return { view: viewOfBase(base, page.messages, asOfSeq), older: page.older };
    } catch (error) {
      const behind = error instanceof GatewayError && error.code === 'not_caught_up';
      if (!behind || Date.now() > until) throw error;
      await wait(200);
    }
  }
}
