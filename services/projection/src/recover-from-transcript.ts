import {
  Message,
  Part,
  type SessionEvent,
  type SessionProjection,
  TitleSource,
} from '@agentwire/contracts';
import { hydrateTranscript, rebuildProjection, type TranscriptEntry } from '@agentwire/domain';
import { type createDatabase, getLastSequence, getSession, loadTranscript } from '@agentwire/store';

/** What a session's Postgres rows say, read for {@link recoverFromTranscript}. */
export interface PersistedSession {
  /** `sessions.last_sequence`: the highest number the worker made durable. */
  readonly lastSequence: number;
  readonly session: {
    readonly createdAt: number;
    readonly title: string | null;
    readonly titleSource: TitleSource | null;
  };
  readonly transcript: readonly TranscriptEntry[];
}

/** The projection a transcript stands for, and the number it stands at. */
export interface RecoveredProjection {
  readonly projection: SessionProjection;
  readonly lastSequence: number;
}

/** Why a transcript does not stand for the session now (the rebuild leaves it incomplete). */
export type RecoveryRefusal = 'not_persisted' | 'worker_behind' | 'turn_open' | 'transcript_behind';

const SEALS = new Set(['turn_complete', 'turn_error']);

/** The last turn the retained events start, and whether they seal it. */
function lastTurnOf(
  tail: readonly SessionEvent[],
): { turnId: string; sealed: boolean } | undefined {
  let last: { turnId: string; sealed: boolean } | undefined;
  for (const e of [...tail].sort((a, b) => a.sequenceNumber - b.sequenceNumber)) {
    if (e.type === 'turn_started' && e.turnId !== null) last = { turnId: e.turnId, sealed: false };
    else if (SEALS.has(e.type) && last !== undefined && e.turnId === last.turnId)
      last.sealed = true;
  }
  return last;
}

/**
 * R10.4's cold recovery of a session's projection when the stream no longer holds its
 * first events (the age limit, R3): the persisted transcript, hydrated into the equivalent
 * event sequence (`session_created` synthesised, R4.3) and reduced by the same reducer,
 * stands for the session at `sessions.last_sequence`, so the live path applies what comes
 * after it. Only a quiet session is recovered this way, because messages and events are
 * written by separate streams (DESIGN.md flow 2) and may be apart while a turn runs:
 * - `worker_behind`: the stream holds events above the durable mark;
 * - `turn_open`: the transcript's last turn is not sealed;
 * - `transcript_behind`: the retained events start a turn the transcript does not end
 *   with, or do not seal it.
 * Fields the transcript does not determine (queued inputs, mode, permissions) start from
 * their defaults; `transcriptView` lists the ones it does. Pure.
 */
export function recoverFromTranscript(
  sessionId: string,
  persisted: PersistedSession | undefined,
  tail: readonly SessionEvent[],
  traceId: string,
): RecoveredProjection | { readonly refused: RecoveryRefusal } {
  if (persisted === undefined || persisted.lastSequence === 0) return { refused: 'not_persisted' };
  if (tail.some((e) => e.sequenceNumber > persisted.lastSequence)) {
    return { refused: 'worker_behind' };
  }
  const events = hydrateTranscript(sessionId, persisted.transcript, {
    traceId,
    session: persisted.session,
  });
  const projection = rebuildProjection(sessionId, events);
  if (projection.currentTurnId !== null) return { refused: 'turn_open' };
  const retained = lastTurnOf(tail);
  const hydratedLast = lastTurnOf(events);
  if (retained !== undefined && (!retained.sealed || retained.turnId !== hydratedLast?.turnId)) {
    return { refused: 'transcript_behind' };
  }
  return {
    projection: { ...projection, lastSequenceNumber: persisted.lastSequence },
    lastSequence: persisted.lastSequence,
  };
}

/**
 * Reads what {@link recoverFromTranscript} needs: the durable mark first, then the session
 * row and its transcript, parsed back into contracts' shapes. Undefined without a row.
 */
export async function readPersistedSession(
  db: ReturnType<typeof createDatabase>,
  sessionId: string,
): Promise<PersistedSession | undefined> {
  const lastSequence = await getLastSequence(db, sessionId);
  const [row, rows] = await Promise.all([getSession(db, sessionId), loadTranscript(db, sessionId)]);
  if (row === undefined || row.created_at === null) return undefined;
  const source = TitleSource.safeParse(row.title_source);
  return {
    lastSequence,
    session: {
      createdAt: new Date(row.created_at).getTime(),
      title: row.title ?? null,
      titleSource: source.success ? source.data : null,
    },
    transcript: rows.map((r) => ({
      message: Message.parse(r.message.data),
      parts: r.parts.map((p) => Part.parse(p.data)),
    })),
  };
}
