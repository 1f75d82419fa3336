import { type ForkRequest, RuntimeError } from '@agentwire/engine';
import { CommandWriter } from './command-writer.ts';
import type { Resident } from './resident-pool.ts';
import type { RuntimeHostOptions } from './runtime-host-options.ts';

/** What {@link forkSession} works with: the host's options and its activation. */
export interface ForkDeps {
  readonly o: RuntimeHostOptions;
  readonly activate: (sessionId: string) => Promise<Resident>;
}

/**
 * The replacement skeleton for a fork (issue 12 item 5, docs/decisions/0240). The engine
 * vetoed already (a running turn, an unknown message). Then:
 * 1. build: the new session's row and its copy of the chain, written by the worker and
 *    confirmed (a copy the worker refused, or did not confirm, fails the fork: the new id
 *    was never handed out, so a half-made session is one nobody knows);
 * 2. take the lease and apply: the new session is opened here like any other (lease, cold
 *    open from Postgres); a failed open gives the lease back (the host's `activate`);
 * 3. rebind: the new session is told it was forked (`session_forked` as its event 1, the
 *    notice, the divider); the caller answers with its id and owner.
 */
export async function forkSession(
  deps: ForkDeps,
  request: ForkRequest,
): Promise<{ sessionId: string; owner: string }> {
  const { o } = deps;
  const sessionId = o.ids.newId('ses');
  const traceId = o.ids.newTraceId();
  const writer = new CommandWriter({ ...o, sessionId, confirmTimeoutMs: o.confirmTimeoutMs });
  const refused = (what: string): never => {
    throw new RuntimeError(
      'write_not_confirmed',
      `the fork of ${request.sessionId} failed: the store did not confirm ${what}`,
      { sessionId: request.sessionId, retryable: true },
    );
  };
  try {
    const ctx = { sequence: 0, traceId };
    const row = await writer.ensureSession(
      {
        sessionId,
        parentSessionId: null,
        title: request.title ?? `Fork of ${request.sessionId}`,
        titleSource: 'custom',
        firstInput: null,
        cwd: o.workspaceRoot,
        root: o.workspaceRoot,
        createdAt: o.clock.now(),
      },
      ctx,
    );
    if (!row.confirmed) refused('the new session row');
    const copy = await writer.copyTranscript(
      {
        fromSessionId: request.sessionId,
        messageIds: request.messageIds,
        idSuffix: `_${sessionId.slice(-10)}`,
      },
      ctx,
    );
    if (!copy.confirmed || copy.outcome === 'condition_failed') refused('the copied transcript');
  } finally {
    writer.close();
  }
  const resident = await deps.activate(sessionId);
  await resident.session.runOperation('announce_fork', {
    originalSessionId: request.sessionId,
    targetMessageId: request.targetMessageId,
  });
  return { sessionId, owner: o.instanceId };
}
