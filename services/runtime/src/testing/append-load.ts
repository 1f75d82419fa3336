import type { RuntimeHost } from '../nats/runtime-host.ts';

const TRACE = '5bf92f3577b34da6a3ce929d0e0e4736';

/** One acknowledged append: the event's number and when its `appendEvent` resolved. */
interface AckedAppend {
  readonly sequence: number;
  readonly checkpointId: string;
  readonly at: number;
}

/** A running load of appends through a runtime, counted by what the runtime acknowledged. */
export interface AppendLoad {
  /** Per session, every append whose publish the broker acknowledged, in order. */
  readonly acked: ReadonlyMap<string, readonly AckedAppend[]>;
  /** Appends that failed (the session broke) and were followed by a reopen. */
  readonly failures: number;
  /** The fewest acknowledged appends of any session. */
  minAcked(): number;
  /** The longest pause between two acknowledgements of any sessions, ms. */
  longestStallMs(): number;
  /** Stops every session's loop after its append in flight. */
  stop(): Promise<void>;
}

/**
 * Appends `checkpoint_created` events (durable, so the persistence worker writes each one,
 * and reduced by the projection) to every session in `sessionIds`, one at a time per
 * session, as fast as the runtime acknowledges them. An append that fails breaks its
 * session (R5); the loop then does what a frontend's next request does: the host drops the
 * session and opens it again (cold recovery), retrying until it can. Used by the cluster
 * failover test and `pnpm bench cluster`.
 */
export function startAppendLoad(host: RuntimeHost, sessionIds: readonly string[]): AppendLoad {
  const acked = new Map<string, AckedAppend[]>(sessionIds.map((s) => [s, []]));
  let failures = 0;
  let stopped = false;
  const loop = async (sessionId: string) => {
    const mine = acked.get(sessionId) ?? [];
    let n = 0;
    while (!stopped) {
      const emitter = await reopen(host, sessionId, () => stopped);
      while (!stopped && emitter) {
        const checkpointId = `${sessionId}-cp${++n}`;
        try {
          const event = await emitter.emit('checkpoint_created', null, TRACE, {
            checkpointId,
            messageId: 'msg-load',
            snapshotRef: 'ref',
            scope: 'workspace',
          });
          mine.push({ sequence: event.sequenceNumber, checkpointId, at: performance.now() });
        } catch {
          failures += 1;
          await host.deactivate(sessionId).catch(() => undefined);
          break;
        }
      }
    }
  };
  const loops = Promise.all(sessionIds.map(loop));
  return {
    acked,
    get failures() {
      return failures;
    },
    minAcked: () => Math.min(...[...acked.values()].map((a) => a.length)),
    longestStallMs() {
      const times = [...acked.values()].flatMap((a) => a.map((x) => x.at)).sort((a, b) => a - b);
      let longest = 0;
      for (let i = 1; i < times.length; i++) {
        longest = Math.max(longest, (times[i] ?? 0) - (times[i - 1] ?? 0));
      }
      return longest;
    },
    async stop() {
      stopped = true;
      await loops;
    },
  };
}

/** Opens the session until it works (the broker may be electing a leader), or stops. */
async function reopen(host: RuntimeHost, sessionId: string, stopped: () => boolean) {
  while (!stopped()) {
    try {
      await host.activate(sessionId, 'open');
      const emitter = host.residentEmitter(sessionId);
      if (emitter !== undefined) return emitter;
    } catch {
      // not yet: no leader, a lease still held, Postgres busy
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return undefined;
}
