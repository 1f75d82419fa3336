import {
  BLOBS_HEADER,
  type BlobOffload,
  readSessionTip,
  resolveBlobs,
  type SessionFence,
} from '@agentwire/bus';
import { decodeSessionEvent, type Names, type SessionEvent } from '@agentwire/contracts';
import { ModelRequestChain, ModelRequestChainError } from '@agentwire/domain';
import {
  type LastRequest,
  type RuntimeLogger,
  recoveryTypes,
  type SessionFeature,
  type SessionStart,
  type TranscriptRow,
  type TurnScan,
  TurnScanner,
} from '@agentwire/engine';
import { type createDatabase, getLastSequence, getSession, listInputs } from '@agentwire/store';
import type { JetStreamClient, JetStreamManager } from '@nats-io/jetstream';
import { countUserTurns, loadTranscriptRows } from './load-transcript-rows.ts';

/** Database handle type of `@agentwire/store`. */
export type StoreDb = ReturnType<typeof createDatabase>;

/** Everything known about a session when it becomes resident (flow 5). */
export interface SessionFacts {
  /** True when the session left any trace: a session row or events in the stream. */
  readonly exists: boolean;
  readonly persisted: boolean;
  readonly title: string | null;
  readonly titleSource: NonNullable<SessionStart['titleSource']> | null;
  /**
   * The rows the model's history is built from, along the active chain (after a
   * compaction, its tail only; docs/decisions/0239).
   */
  readonly transcript: readonly TranscriptRow[];
  /** The session tree's current leaf and its parent; absent before the first message. */
  readonly leaf?: { readonly id: string; readonly parentId: string | null };
  /** The session's real user turns in Postgres, summarised ones included. */
  readonly userTurns: number;
  /**
   * Numbering continues after this (R2.3, DESIGN.md first invariant): the larger of the
   * stream's highest number across `ev` and every `tx` subject (read with the fences, in
   * the order of docs/decisions/0110) and the durable mark `sessions.last_sequence`.
   */
  readonly lastSequence: number;
  /**
   * The number of the last event on `ev` (the next publish's `Aw-Prev-Seq`): the larger of
   * the stream's last `ev` message and `sessions.last_sequence`, which the worker raises
   * from every `ev` event (docs/decisions/0036), so the chain of `Aw-Prev-Seq` stays
   * unbroken for the projection after the age limit emptied the session's `ev` subject.
   */
  readonly lastDurableSequence: number;
  readonly fence: SessionFence;
  readonly scan: TurnScan;
  /**
   * Inputs still `admitted` that will never start by themselves (R14.2): the ledger's
   * admitted rows plus admissions the worker has not written yet, minus those the stream
   * shows started or closed. Crash reconciliation discards them (`session_resumed`).
   */
  readonly leftoverInputIds: readonly string[];
  /**
   * The last main-turn `model_request` on `ev`, rebuilt from its chain of bases
   * (docs/decisions/0161): the first request after the load extends it. Absent when the
   * chain cannot be rebuilt (its start aged out of the stream).
   */
  readonly lastRequest?: LastRequest;
  /** The last event of each type the features recover from, in stream order (0223). */
  readonly featureEvents: readonly SessionEvent[];
}

/** Dependencies of {@link loadSessionFacts}. */
export interface SessionLoaderDeps {
  readonly js: JetStreamClient;
  readonly jsm: JetStreamManager;
  readonly names: Names;
  readonly db: StoreDb;
  readonly logger: RuntimeLogger;
  /** Where offloaded fields are read back from (docs/decisions/0162). */
  readonly offload?: BlobOffload;
  /** The engine's features: the loader keeps the events they recover from. */
  readonly features?: readonly SessionFeature[];
}

/**
 * Cold recovery's reads (R10.4, DESIGN.md flow 5): the session row and transcript from
 * Postgres, the stream's fences and numbers from JetStream ({@link readSessionTip}), and a
 * replay of the `ev` subject for an unsealed turn (flow 6), read after the fences so that it
 * sees at least what they cover. Any failed read rejects: a takeover never numbers from
 * Postgres alone (issue 21). The runtime only reads Postgres.
 */
export async function loadSessionFacts(
  deps: SessionLoaderDeps,
  sessionId: string,
): Promise<SessionFacts> {
  const [tip, row, pgLast, transcript, userTurns, admitted] = await Promise.all([
    readSessionTip(deps.jsm, deps.names, sessionId),
    getSession(deps.db, sessionId),
    getLastSequence(deps.db, sessionId),
    loadTranscriptRows(deps.db, sessionId),
    countUserTurns(deps.db, sessionId),
    listInputs(deps.db, sessionId, { status: ['admitted'] }),
  ]);
  const { scan, lastRequest, featureEvents } =
    tip.lastDurableNumber === 0
      ? { scan: new TurnScanner().result(), lastRequest: undefined, featureEvents: [] }
      : await scanTurns(deps, sessionId);
  const persisted = row !== undefined && row.created_at !== null;
  const leftover = new Set([...admitted.map((r) => r.id), ...scan.waitingInputIds]);
  for (const id of scan.settledInputIds) leftover.delete(id);
  return {
    exists: row !== undefined || tip.lastNumber > 0,
    persisted,
    title: row?.title ?? null,
    titleSource: (row?.title_source ?? null) as SessionFacts['titleSource'],
    transcript: transcript.rows,
    ...(transcript.leaf === undefined ? {} : { leaf: transcript.leaf }),
    userTurns,
    lastSequence: Math.max(tip.lastNumber, pgLast),
    lastDurableSequence: Math.max(tip.lastDurableNumber, pgLast),
    fence: tip.fence,
    scan,
    leftoverInputIds: [...leftover],
    ...(lastRequest === undefined ? {} : { lastRequest }),
    featureEvents,
  };
}

async function scanTurns(
  deps: SessionLoaderDeps,
  sessionId: string,
): Promise<{
  scan: TurnScan;
  lastRequest: LastRequest | undefined;
  featureEvents: SessionEvent[];
}> {
  const scanner = new TurnScanner();
  const kept = recoveryTypes(deps.features ?? []);
  const lastOfType = new Map<string, SessionEvent>();
  const everyOfType: SessionEvent[] = [];
  const requests = new ModelRequestChain();
  let lastRequest: LastRequest | undefined;
  const consumer = await deps.js.consumers.get(deps.names.eventsStream, {
    filter_subjects: deps.names.eventSubject(sessionId),
  });
  for (;;) {
    const m = await consumer.next({ expires: 2000 });
    if (m === null) break;
    const decoded = decodeSessionEvent(m.data);
    if (decoded.ok) {
      scanner.add(decoded.event);
      if (kept.every.has(decoded.event.type)) everyOfType.push(decoded.event);
      else if (kept.last.has(decoded.event.type)) lastOfType.set(decoded.event.type, decoded.event);
      // Only a request's messages are read here: its offloaded ones are read back (0162).
      const blobs = deps.offload?.store;
      const event =
        decoded.event.type === 'model_request' && m.headers?.has(BLOBS_HEADER) && blobs
          ? await resolveBlobs(decoded.event, blobs).catch(() => decoded.event)
          : decoded.event;
      lastRequest = nextLastRequest(requests, event, lastRequest);
    }
    if (m.info.pending === 0) break;
  }
  await consumer.delete().catch(() => undefined);
  const featureEvents = [...everyOfType, ...lastOfType.values()].sort(
    (a, b) => a.sequenceNumber - b.sequenceNumber,
  );
  return { scan: scanner.result(), lastRequest, featureEvents };
}

/** Folds one event into the last main-turn request; a chain that breaks forgets it. */
function nextLastRequest(
  requests: ModelRequestChain,
  event: SessionEvent,
  last: LastRequest | undefined,
): LastRequest | undefined {
  if (event.type !== 'model_request' || (event.payload.querySource ?? 'main_turn') !== 'main_turn')
    return last;
  try {
    const messages = requests.add(event) ?? [];
    return { sequenceNumber: event.sequenceNumber, eventId: event.id, messages };
  } catch (err) {
    if (err instanceof ModelRequestChainError) return undefined;
    throw err;
  }
}
