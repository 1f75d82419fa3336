import type { Names, SessionEvent } from '@agentwire/contracts';
import { DeliverPolicy, type JetStreamClient } from '@nats-io/jetstream';
import { decodeDelivery } from './decode-delivery.ts';
import type { CasWrite, ProjectionStore } from './projection-store.ts';
import type { RebuildProgress } from './rebuild-jobs.ts';
import type { Reduce } from './reduce.ts';
import { SessionQueue } from './session-queue.ts';

/** Options of {@link rebuildFromStream}. */
export interface RebuildOptions<P> {
  readonly js: JetStreamClient;
  readonly names: Names;
  readonly store: ProjectionStore;
  readonly reduce: Reduce<P>;
  /** Rebuild this session only; all sessions when undefined. */
  readonly sessionId?: string;
  /** Sessions per compare-and-set statement. */
  readonly batchSessions: number;
  readonly onProgress?: (progress: RebuildProgress) => void;
  /** Told after a session's rebuilt row is stored (live instances drop their cache). */
  readonly onWritten?: (sessionId: string, lastSequence: number) => void;
  /** Catch-up passes before a session that live traffic keeps ahead is given up. */
  readonly maxPasses?: number;
  /**
   * R10.4: the projection of a session whose first events aged out of the stream, from its
   * persisted transcript, given the events the stream still holds; undefined leaves it
   * incomplete. Asked only for a session with no stored projection.
   */
  readonly recover?: (
    sessionId: string,
    retained: readonly SessionEvent[],
  ) => Promise<{ readonly projection: P; readonly lastSequence: number } | undefined>;
}

/** What a rebuild did, beyond {@link RebuildProgress}. */
export interface RebuildResult extends RebuildProgress {
  /**
   * Sessions whose events in the stream do not start at their first event (aged out), and
   * that neither had a stored projection nor could be recovered from their transcript.
   */
  readonly sessionsIncomplete: readonly string[];
  /** Sessions of that kind recovered from their transcript instead (R10.4). */
  readonly sessionsRecovered: readonly string[];
  /** Refused events (schema or headers); the same ones the live path dead-letters. */
  readonly eventsRefused: number;
}

interface Accumulator<P> {
  readonly queue: SessionQueue<SessionEvent>;
  projection: P | undefined;
  last: number;
  /** Every event read while nothing could be applied (the session's start is not there). */
  readonly retained: SessionEvent[];
}

/**
 * Rebuilds projections from the events stream (R10.3, issue 5) while live events keep
 * arriving: one ordered pass over `ev` subjects reduces each session with the same
 * ordering rules as the live path ({@link SessionQueue}), then the results are stored in
 * batches with compare-and-set against the live rows. A session whose live row is ahead of
 * the pass gets a catch-up pass from where the previous one stopped, so the stored result
 * always equals a clean reduction of the session's events, and no live update is lost.
 */
export async function rebuildFromStream<P>(options: RebuildOptions<P>): Promise<RebuildResult> {
  const filter =
    options.sessionId === undefined
      ? options.names.allEventsFilter
      : options.names.eventSubject(options.sessionId);
  const sessions = new Map<string, Accumulator<P>>();
  const progress = {
    eventsRead: 0,
    eventsTotal: 0,
    sessionsWritten: 0,
    sessionsTotal: 0,
    eventsRefused: 0,
  };
  const report = () => options.onProgress?.({ ...progress, sessionsTotal: sessions.size });
  let nextStreamSeq = 1;
  const pass = async () => {
    nextStreamSeq = await scan(options, filter, nextStreamSeq, sessions, progress, report);
  };
  await pass();
  const pending = new Set([...sessions].filter(([, a]) => a.last > 0).map(([id]) => id));
  const aged = [...sessions].filter(([, a]) => a.last === 0).map(([id]) => id);
  progress.sessionsTotal = sessions.size;
  const recovered = await recoverAged(options, sessions, aged, progress);
  const incomplete = aged.filter((id) => !recovered.has(id));
  for (let attempt = 0; pending.size > 0 && attempt < (options.maxPasses ?? 20); attempt++) {
    if (attempt > 0) await pass();
    const ids = [...pending];
    for (let i = 0; i < ids.length; i += options.batchSessions) {
      const batch = ids.slice(i, i + options.batchSessions);
      const rows = await options.store.getMany(batch);
      const writes: CasWrite[] = [];
      for (const id of batch) {
        const acc = sessions.get(id);
        const stored = rows.get(id)?.lastSequence ?? 0;
        if (acc === undefined || acc.projection === undefined || stored > acc.last) continue;
        writes.push({
          sessionId: id,
          expected: stored,
          projection: acc.projection,
          lastSequence: acc.last,
        });
      }
      const written = await options.store.compareAndSet(writes);
      for (const w of writes) {
        if (!written.has(w.sessionId)) continue;
        pending.delete(w.sessionId);
        progress.sessionsWritten += 1;
        options.onWritten?.(w.sessionId, w.lastSequence);
      }
      report();
    }
  }
  if (pending.size > 0) {
    throw new Error(
      `rebuild gave up on ${pending.size} session(s) that live traffic kept ahead: ${[...pending].slice(0, 5).join(', ')}`,
    );
  }
  report();
  return {
    ...progress,
    sessionsTotal: sessions.size,
    sessionsIncomplete: incomplete,
    sessionsRecovered: [...recovered],
  };
}

/** Stores the transcript's projection of each aged-out session that has none (R10.4). */
async function recoverAged<P>(
  options: RebuildOptions<P>,
  sessions: ReadonlyMap<string, Accumulator<P>>,
  aged: readonly string[],
  progress: { sessionsWritten: number },
): Promise<Set<string>> {
  const recovered = new Set<string>();
  const { recover } = options;
  if (recover === undefined) return recovered;
  for (let i = 0; i < aged.length; i += options.batchSessions) {
    const batch = aged.slice(i, i + options.batchSessions);
    const rows = await options.store.getMany(batch);
    const writes: CasWrite[] = [];
    for (const id of batch) {
      if (rows.has(id)) continue;
      const found = await recover(id, sessions.get(id)?.retained ?? []);
      if (found === undefined) continue;
      writes.push({ sessionId: id, expected: 0, ...found });
    }
    const written = await options.store.compareAndSet(writes);
    for (const w of writes) {
      if (!written.has(w.sessionId)) continue;
      recovered.add(w.sessionId);
      progress.sessionsWritten += 1;
      options.onWritten?.(w.sessionId, w.lastSequence);
    }
  }
  return recovered;
}

/** Reads `filter` from `fromSeq` to the stream's current end; returns the next stream sequence. */
async function scan<P>(
  options: RebuildOptions<P>,
  filter: string,
  fromSeq: number,
  sessions: Map<string, Accumulator<P>>,
  progress: { eventsRead: number; eventsTotal: number; eventsRefused: number },
  report: () => void,
): Promise<number> {
  const consumer = await options.js.consumers.get(options.names.eventsStream, {
    filter_subjects: filter,
    deliver_policy: DeliverPolicy.StartSequence,
    opt_start_seq: fromSeq,
  });
  const info = await consumer.info();
  if (info.num_pending === 0) {
    await consumer.delete().catch(() => {});
    return fromSeq;
  }
  progress.eventsTotal += info.num_pending;
  let next = fromSeq;
  const messages = await consumer.consume({ max_messages: 5_000 });
  for await (const msg of messages) {
    next = msg.seq + 1;
    progress.eventsRead += 1;
    const decoded = decodeDelivery(
      {
        subject: msg.subject,
        data: msg.data,
        header: (name) => msg.headers?.get(name) || undefined,
      },
      options.names,
    );
    if (decoded.ok) {
      apply(sessions, decoded.event, decoded.prev, options.reduce);
    } else {
      progress.eventsRefused += 1;
    }
    if (progress.eventsRead % 10_000 === 0) report();
    if (msg.info.pending === 0) break;
  }
  messages.stop();
  await consumer.delete().catch(() => {});
  return next;
}

function apply<P>(
  sessions: Map<string, Accumulator<P>>,
  event: SessionEvent,
  prev: number,
  reduce: Reduce<P>,
): void {
  let acc = sessions.get(event.sessionId);
  if (acc === undefined) {
    acc = { queue: new SessionQueue<SessionEvent>(), projection: undefined, last: 0, retained: [] };
    sessions.set(event.sessionId, acc);
  }
  if (acc.last === 0 && prev !== 0) acc.retained.push(event);
  if (event.sequenceNumber <= acc.last) return;
  if (prev === acc.last && acc.queue.size === 0) {
    acc.projection = reduce(acc.projection, event);
    acc.last = event.sequenceNumber;
    return;
  }
  acc.queue.add({ seq: event.sequenceNumber, prev, heldSince: 0, item: event });
  const drained = acc.queue.drain(acc.last);
  for (const held of drained.apply) acc.projection = reduce(acc.projection, held.item);
  acc.last = drained.last;
}
