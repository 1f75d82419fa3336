import { BlobStore, lastMessageOn } from '@agentwire/bus';
import type { InputOp } from '@agentwire/contracts';
import {
  EmptyRequest,
  type ErrorReply,
  isInputOp,
  isRuntimeOp,
  OpenRequest,
  type RuntimeOp,
} from '@agentwire/contracts';
import {
  type AppendError,
  RuntimeError,
  type RuntimeSession,
  type SessionEmitter,
  type ToolDefinition,
} from '@agentwire/engine';
import type { Msg, Subscription } from '@nats-io/transport-node';
import { buildResidentSession, type ResidentParts } from './build-resident-session.ts';
import { LeaseManager } from './lease-manager.ts';
import { parseRequest } from './request-body.ts';
import { type Resident, ResidentPool } from './resident-pool.ts';
import type { RuntimeHostOptions } from './runtime-host-options.ts';
import { forkSession } from './session-fork.ts';
import { importSession, transcriptOf } from './session-import.ts';
import { loadSessionFacts, type SessionLoaderDeps } from './session-loader.ts';
import { errorReply, runSessionOp } from './session-ops.ts';
import { type SessionTrace, sessionTrace } from './session-trace.ts';

export type { RuntimeHostOptions } from './runtime-host-options.ts';

/** Why a session is being made resident: `op` requires an existing session. */
type ActivationMode = 'open' | 'create' | 'op';

/** A load in progress, shared by concurrent activations of the same id. */
interface Activation {
  readonly mode: ActivationMode;
  readonly resident: Promise<Resident>;
}

/** Pauses before the second and third attempt of a failed takeover. */
const TAKEOVER_RETRY_DELAYS_MS = [250, 1_000] as const;

function unknown(sessionId: string): RuntimeError {
  return new RuntimeError('unknown_session', `no session ${sessionId}`, { sessionId });
}

function isKnownOp(op: string): op is RuntimeOp | InputOp {
  return isRuntimeOp(op) || isInputOp(op);
}

function unknownOpReply(op: string): ErrorReply {
  return errorReply(new RuntimeError('unknown_op', `unknown operation ${JSON.stringify(op)}`));
}

/**
 * The runtime service's hosting (issue 6, item 1): `aw.rt.open` (queue group) claims and
 * loads a session; the owner answers `aw.rt.<sid>.<op>`; a queue-group fallback on
 * `aw.rt.*.*` loads a session nobody owns (or whose owner died) on its first operation,
 * and stays silent when a live owner exists. Ownership is a lease (R13.1); loading is cold
 * recovery (flow 5) with crash reconciliation (flow 6).
 */
export class RuntimeHost {
  readonly #o: RuntimeHostOptions;
  readonly leases: LeaseManager;
  readonly #pool: ResidentPool;
  readonly #activating = new Map<string, Activation>();
  readonly #subs: Subscription[] = [];
  readonly #toolMap: ReadonlyMap<string, ToolDefinition>;
  #accepting = false;
  #sweep: NodeJS.Timeout | undefined;
  /** Where frontends put a file too large for its request (an import, 0241). */
  #uploads: BlobStore | undefined;

  constructor(options: RuntimeHostOptions) {
    this.#o = options;
    this.#toolMap = new Map(options.tools.map((t) => [t.name, t]));
    this.leases = new LeaseManager({
      kv: options.kv,
      nc: options.nc,
      instanceId: options.instanceId,
      host: options.host,
      pid: process.pid,
      ttlMs: options.leaseTtlMs,
      pingSubject: (id) => options.names.runtimeInstancePing(id),
      logger: options.logger,
      onLost: (sessionId, reason) => this.#onLeaseLost(sessionId, reason),
    });
    this.#pool = new ResidentPool({
      leases: this.leases,
      clock: options.clock,
      logger: options.logger,
      residency: options.residency,
      metrics: options.residencyMetrics,
    });
  }

  /** Sessions resident here. */
  get residentSessionIds(): string[] {
    return this.#pool.ids;
  }

  /** The resident session, if any (tests and benches). */
  resident(sessionId: string): RuntimeSession | undefined {
    return this.#pool.get(sessionId)?.session;
  }

  /** The emitter of a resident session: appends outside a turn (benches, tests). */
  residentEmitter(sessionId: string): SessionEmitter | undefined {
    return this.#pool.get(sessionId)?.emitter;
  }

  /** True once subscriptions are live. */
  get accepting(): boolean {
    return this.#accepting;
  }

  /**
   * Subscribes to `open`, the op fallback and the liveness ping (flushed, so the server
   * knows them before the caller announces readiness); starts lease renewal.
   */
  async start(): Promise<void> {
    const { nc, names } = this.#o;
    this.#subs.push(
      nc.subscribe(names.runtimeInstancePing(this.#o.instanceId), {
        callback: (_e, m) => void m.respond('pong'),
      }),
      nc.subscribe(names.runtimeOpen, {
        queue: 'runtime',
        callback: (_e, m) => void this.#onOpen(m),
      }),
      nc.subscribe(names.runtimeOpsFilter, {
        queue: 'runtime',
        callback: (_e, m) => void this.#onFallback(m),
      }),
    );
    this.leases.start();
    this.#sweep = setInterval(() => {
      const now = this.#o.clock.now();
      void this.sweepTransient(now).then(() => this.rebalance(now));
    }, 60_000);
    this.#sweep.unref();
    await nc.flush();
    this.#accepting = true;
  }

  /**
   * SIGTERM (issue 6, item 7): stop accepting, interrupt running turns and wait for them
   * to end cleanly, then release every lease.
   */
  async stop(): Promise<void> {
    this.#accepting = false;
    clearInterval(this.#sweep);
    for (const sub of this.#subs.splice(0)) sub.unsubscribe();
    for (const [, r] of this.#pool.takeAll()) {
      r.sub.unsubscribe();
      if (r.session.activeTurnId !== undefined)
        await r.session.interrupt({ requeuePreparing: false }).done.catch(() => undefined);
      await r.appender.idle();
      r.session.abandon();
      r.writer.close();
    }
    await this.leases.stop();
  }

  /** R3.5: the 60 s tick; evicts turns sealed more than 120 s ago in idle sessions. */
  async sweepTransient(now: number): Promise<void> {
    for (const sessionId of this.#pool.ids) {
      await this.#pool.get(sessionId)?.session.sweepTransient(now);
    }
  }

  /** Residency (R11, R16.6): see {@link ResidentPool.rebalance}. */
  rebalance(now: number): Promise<string[]> {
    return this.#pool.rebalance(now);
  }

  /**
   * Makes a session resident here (lease, cold recovery, reconciliation). With `op`, an id
   * with no trace is refused (`unknown_session`) before any lease is taken (0077). Concurrent
   * `open`s and `op`s of one id share a running `open`, and `op`s an `op`; any other waits
   * for the load to settle and then decides for itself (an `op`'s refusal is no `open`'s
   * answer, and a second `create` must see `session_exists`).
   */
  async activate(sessionId: string, mode: ActivationMode): Promise<Resident> {
    const leaving = this.#pool.leaving(sessionId);
    if (leaving !== undefined) await leaving; // then it is reopened from the stream and Postgres
    const existing = this.#pool.get(sessionId);
    if (existing !== undefined) {
      if (mode === 'create')
        throw new RuntimeError('session_exists', `session ${sessionId} exists`);
      return existing;
    }
    const pending = this.#activating.get(sessionId);
    if (pending !== undefined) {
      if (mode !== 'create' && (pending.mode === mode || pending.mode === 'open'))
        return pending.resident;
      await pending.resident.catch(() => undefined);
      return this.activate(sessionId, mode);
    }
    const resident = this.#load(sessionId, mode).finally(() => this.#activating.delete(sessionId));
    this.#activating.set(sessionId, { mode, resident });
    return resident;
  }

  /** Removes a session from residency: see {@link ResidentPool.deactivate}. */
  deactivate(sessionId: string, releaseLease = true, only?: ResidentParts): Promise<void> {
    return this.#pool.deactivate(sessionId, releaseLease, only);
  }

  /**
   * Loads with bounded retries (docs/decisions/0110): a takeover whose stream read failed,
   * or whose fences found an earlier writer still writing, has written nothing and given its
   * lease back; it is tried again after a pause, and then reported `takeover_failed`.
   */
  async #load(sessionId: string, mode: ActivationMode): Promise<Resident> {
    for (let attempt = 0; ; attempt += 1) {
      try {
        return await this.#loadOnce(sessionId, mode);
      } catch (err) {
        const failed = err instanceof RuntimeError && err.code === 'takeover_failed';
        if (!failed || attempt >= TAKEOVER_RETRY_DELAYS_MS.length) throw err;
        this.#o.logger.warn({ err, sessionId, attempt }, 'takeover failed; retrying');
        await new Promise((r) => setTimeout(r, TAKEOVER_RETRY_DELAYS_MS[attempt]));
      }
    }
  }

  async #loadOnce(sessionId: string, mode: ActivationMode): Promise<Resident> {
    // Reads first: an unknown id must never hold a lease, not even while it is looked up.
    if (mode === 'op' && (await this.#traceOf(sessionId)) === undefined) throw unknown(sessionId);
    const { tookOverFrom } = await this.leases.acquire(sessionId);
    try {
      const deps: SessionLoaderDeps = { ...this.#o, logger: this.#o.logger };
      const facts = await loadSessionFacts(deps, sessionId).catch((cause: unknown) => {
        throw new RuntimeError(
          'takeover_failed',
          `session ${sessionId} could not be loaded: the stream or database read failed`,
          { sessionId, retryable: true },
          { cause },
        );
      });
      if (mode === 'create' && facts.exists)
        throw new RuntimeError('session_exists', `session ${sessionId} exists`);
      // A lease taken over from a dead owner is a session that was opened and said nothing.
      if (mode === 'op' && !facts.exists && tookOverFrom === undefined) throw unknown(sessionId);
      const parts = await buildResidentSession(
        this.#o,
        {
          leases: this.leases,
          tools: this.#toolMap,
          tookOverFrom,
          onBroken: (error) => this.#onBroken(sessionId, error),
          replacements: {
            fork: (request) =>
              forkSession({ o: this.#o, activate: (id) => this.activate(id, 'open') }, request),
          },
        },
        sessionId,
        facts,
      );
      const sub = this.#o.nc.subscribe(this.#o.names.runtimeSessionOpsFilter(sessionId), {
        callback: (_e, m) => void this.#onSessionOp(sessionId, m),
      });
      const resident: Resident = {
        lastUsedAt: this.#o.clock.now(),
        operations: 0,
        ...parts,
        sub,
        ownSinks: parts.appender.sinkCount,
      };
      this.#pool.add(sessionId, resident);
      // The owner's subscription must be known to the server before anyone is told to use it.
      await this.#o.nc.flush();
      return resident;
    } catch (err) {
      await this.leases.release(sessionId);
      throw err;
    }
  }

  /**
   * A `close` reaches the owner and, through the queue group, one instance that may not hold
   * the session: this one. Loading it here only to close it again would hold its lease just
   * when an `open` sent after the owner's answer looks for it (`lease_conflict`). So:
   * - `owner`: another live instance holds it (`LeaseManager.holder`), and answers (it may
   *   be releasing it now);
   * - `closed`: nobody holds it and its last durable event is `session_ended`. An owner
   *   gives the lease back only after that event, so an owner's close that ended since the
   *   lease was read is seen here; nothing is taken, not even for a moment;
   * - `load`: the ordinary way, a session nobody holds that is open, or whose owner is gone
   *   (taken over, then closed), or an unknown id (refused by the load).
   */
  async #closeElsewhere(sessionId: string): Promise<'owner' | 'closed' | 'load'> {
    if (this.#pool.holds(sessionId)) return 'load';
    const holder = await this.leases.holder(sessionId);
    if (holder === 'live') return 'owner';
    if (holder !== 'free') return 'load';
    const last = await lastMessageOn(
      this.#o.jsm,
      this.#o.names.eventsStream,
      this.#o.names.eventSubject(sessionId),
    ).catch(() => null);
    const ended = last !== null && last.json<{ type?: unknown }>().type === 'session_ended';
    return ended ? 'closed' : 'load';
  }

  #traceOf(sessionId: string): Promise<SessionTrace | undefined> {
    return sessionTrace({ ...this.#o, isLeased: (id) => this.leases.isTaken(id) }, sessionId);
  }

  async #onOpen(m: Msg): Promise<void> {
    try {
      const req = parseRequest(OpenRequest, m.data);
      this.#uploads ??= BlobStore.uploads(this.#o.nc, this.#o.names);
      const file = await transcriptOf(req, this.#uploads);
      if (file !== undefined) {
        const imported = await importSession(
          { o: this.#o, activate: (id) => this.activate(id, 'open') },
          file.text,
          file.carried,
        );
        m.respond(
          JSON.stringify({
            ok: true,
            sessionId: imported.sessionId,
            owner: this.#o.instanceId,
            lastSequence: imported.resident.appender.latestSequence,
            imported: imported.messages,
          }),
        );
        return;
      }
      const sessionId = req.sessionId ?? this.#o.ids.newId('ses');
      const r = await this.activate(sessionId, 'open');
      m.respond(
        JSON.stringify({
          ok: true,
          sessionId,
          owner: this.#o.instanceId,
          lastSequence: r.appender.latestSequence,
        }),
      );
    } catch (err) {
      m.respond(JSON.stringify(errorReply(err)));
    }
  }

  async #onFallback(m: Msg): Promise<void> {
    const parsed = this.#o.names.parseRuntimeOpSubject(m.subject);
    if (parsed === undefined) return;
    const { sessionId, op } = parsed;
    // Resident or leaving here: the owner subscription has this request too.
    const ours = this.#pool.holds(sessionId);
    if (ours || sessionId === 'instance' || m.reply === undefined) return;
    if (!isKnownOp(op)) {
      m.respond(JSON.stringify(unknownOpReply(op)));
      return;
    }
    try {
      if (op === 'create') {
        parseRequest(EmptyRequest, m.data);
        await this.activate(sessionId, 'create');
        m.respond(JSON.stringify({ ok: true, sessionId, owner: this.#o.instanceId }));
        return;
      }
      if (op === 'close') {
        const elsewhere = await this.#closeElsewhere(sessionId);
        if (elsewhere === 'owner') return;
        if (elsewhere === 'closed') {
          m.respond(JSON.stringify({ ok: true }));
          return;
        }
      }
      await this.#dispatch(sessionId, await this.activate(sessionId, 'op'), op, m);
    } catch (err) {
      // A live owner answers on its own subscription: stay silent.
      if (err instanceof RuntimeError && err.code === 'lease_conflict') return;
      m.respond(JSON.stringify(errorReply(err)));
    }
  }

  async #onSessionOp(sessionId: string, m: Msg): Promise<void> {
    const op = this.#o.names.parseRuntimeOpSubject(m.subject)?.op ?? '';
    if (!isKnownOp(op)) {
      m.respond(JSON.stringify(unknownOpReply(op)));
      return;
    }
    let r = this.#pool.get(sessionId);
    if (r === undefined) {
      // It arrived while the session was leaving: wait for that, reopen it, then run it.
      try {
        r = await this.activate(sessionId, 'op');
      } catch (err) {
        if (err instanceof RuntimeError && err.code === 'lease_conflict') {
          // Another instance took it meanwhile, and never saw this request: hand it on.
          this.#o.nc.publish(m.subject, m.data, m.reply === undefined ? {} : { reply: m.reply });
          return;
        }
        m.respond(JSON.stringify(errorReply(err)));
        return;
      }
    }
    await this.#dispatch(sessionId, r, op, m);
  }

  async #dispatch(
    sessionId: string,
    found: Resident,
    op: RuntimeOp | InputOp,
    m: Msg,
  ): Promise<void> {
    let r = found;
    // Reclaimed between being found and now (another task ran meanwhile): wait, reopen. The
    // check and the count below run in one synchronous slice, so no rebalance falls between.
    while (this.#pool.get(sessionId) !== r) r = await this.activate(sessionId, 'op');
    r.operations += 1;
    r.lastUsedAt = this.#o.clock.now();
    try {
      const reply = await runSessionOp(r.session, op, m.data, this.#o);
      // A closed session is answered once its lease is given back: an open right after the
      // answer, on any instance, finds it free (not `lease_conflict` with this one).
      if (op === 'close') await this.deactivate(sessionId);
      m.respond(JSON.stringify(reply));
    } catch (err) {
      m.respond(JSON.stringify(errorReply(err)));
      if (r.appender.broken !== undefined) {
        await this.deactivate(sessionId, r.appender.broken.code !== 'fenced', r);
      }
    } finally {
      r.operations -= 1;
      r.lastUsedAt = this.#o.clock.now();
    }
    // R16.6: rebalancing runs when an operation ends (the idle phase always, LRU above high
    // water), not only on the maintenance tick.
    await this.rebalance(this.#o.clock.now());
  }

  /**
   * A session whose append failed leaves residency at once (its in-memory state is no
   * longer the stream's). A fenced one was taken by another instance: its lease is not ours
   * to release. The next operation cold-recovers it wherever it lands.
   */
  #onBroken(sessionId: string, error: AppendError): void {
    const r = this.#pool.get(sessionId);
    if (r === undefined || r.appender.broken !== error) return;
    this.#o.logger.warn({ sessionId, err: error }, 'session cannot append; leaving residency');
    void this.deactivate(sessionId, error.code !== 'fenced', r);
  }

  #onLeaseLost(sessionId: string, reason: string): void {
    this.#o.logger.warn({ sessionId, reason }, 'session lost its lease; leaving residency');
    void this.deactivate(sessionId, false);
  }
}
