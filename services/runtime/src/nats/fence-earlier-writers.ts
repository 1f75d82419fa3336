import {
  highestNumberOn,
  lastMessageOn,
  publishFenceMarker,
  type StreamPublisher,
} from '@agentwire/bus';
import type { Names } from '@agentwire/contracts';
import { AppendError, RuntimeError, type SessionEmitter } from '@agentwire/engine';
import type { JetStreamManager } from '@nats-io/jetstream';
import type { SessionFacts } from './session-loader.ts';

/** What the takeover's fences need. */
export interface FenceContext {
  readonly eventPublisher: StreamPublisher;
  readonly jsm: JetStreamManager;
  readonly names: Names;
  readonly instanceId: string;
  readonly newTraceId: () => string;
  /** The instance whose lease was taken over, when one was. */
  readonly tookOverFrom?: string | undefined;
}

/** Where the `tx` fences left the session. */
export interface FencedTransients {
  /** Numbering continues after this: the facts' number, raised by what re-reads found. */
  readonly lastSequence: number;
  /** The turns whose subjects got a marker: purging one of them must keep it. */
  readonly turnIds: ReadonlySet<string>;
}

/** Markers tried per subject while an earlier writer is still writing there. */
const MARKER_ATTEMPTS = 8;

/**
 * The takeover's first writes, part one (docs/decisions/0110): a fence marker on every `tx`
 * subject an earlier writer may still write (each one the stream showed, and the open
 * turn's), before any event or command. Each marker expects the subject's last sequence as
 * read; when the earlier writer stored more in between, the subject is read again (its
 * fence and its highest number) and the marker tried again. Once a marker lands, nobody
 * else can store on that subject; the numbers read before it are all there is.
 */
export async function fenceTransientSubjects(
  ctx: FenceContext,
  sessionId: string,
  facts: SessionFacts,
): Promise<FencedTransients> {
  let lastSequence = facts.lastSequence;
  const turnIds = new Set(facts.fence.turnIds);
  if (facts.scan.open !== undefined) turnIds.add(facts.scan.open.turnId);
  for (const turnId of turnIds) {
    const subject = ctx.names.transientSubject(sessionId, turnId);
    let expected = facts.fence.expectedForTurn(turnId);
    for (let attempt = 1; ; attempt += 1) {
      const marker = await publishFenceMarker(ctx.eventPublisher, subject, {
        expectedLastSubjectSequence: expected,
        owner: ctx.instanceId,
        after: lastSequence,
      });
      if (marker.kind === 'ok') {
        facts.fence.advanceTurn(turnId, marker.streamSequence);
        break;
      }
      if (attempt >= MARKER_ATTEMPTS) {
        throw takeoverFailed(sessionId, `an earlier writer kept writing ${subject}`);
      }
      const last = await lastMessageOn(ctx.jsm, ctx.names.eventsStream, subject);
      if (last === null) {
        expected = 0;
        continue;
      }
      expected = last.seq;
      const number = await highestNumberOn(ctx.jsm, ctx.names.eventsStream, subject, last);
      lastSequence = Math.max(lastSequence, number);
    }
  }
  return { lastSequence, turnIds };
}

/**
 * The takeover's first writes, part two: `session_resumed`, the first event on `ev`, fenced
 * on the `ev` subject as read. If it lands, nobody stored on `ev` since the read, and every
 * earlier writer's next `ev` publish is refused. If it does not, an earlier writer is still
 * writing: `takeover_failed` (retryable), and the caller gives the lease back and retries
 * the whole load. A session with no history has nothing to fence.
 */
export async function announceResumed(
  ctx: FenceContext,
  emitter: SessionEmitter,
  facts: SessionFacts,
): Promise<void> {
  if (facts.lastSequence === 0) return;
  try {
    await emitter.emit('session_resumed', null, ctx.newTraceId(), {
      reason: ctx.tookOverFrom === undefined ? 'cold_recovery' : 'takeover',
      owner: ctx.instanceId,
      ...(ctx.tookOverFrom === undefined ? {} : { previousOwner: ctx.tookOverFrom }),
      ...(facts.leftoverInputIds.length === 0
        ? {}
        : { discardedInputIds: [...facts.leftoverInputIds] }),
    });
  } catch (err) {
    if (err instanceof AppendError && err.code === 'fenced') {
      throw takeoverFailed(
        emitter.sessionId,
        'an earlier writer stored on ev after it was read',
        err,
      );
    }
    throw err;
  }
}

function takeoverFailed(sessionId: string, why: string, cause?: unknown): RuntimeError {
  return new RuntimeError(
    'takeover_failed',
    `session ${sessionId} could not be taken over: ${why}`,
    { sessionId, retryable: true },
    { cause },
  );
}
