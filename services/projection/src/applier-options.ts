import type { Logger } from '@agentwire/telemetry';
import type { ProjectionStore } from './projection-store.ts';
import type { Reduce } from './reduce.ts';
import type { WriteCoalescer } from './write-coalescer.ts';

/** Tunables of {@link ProjectionApplier} (see `ProjectionConfig`). */
export interface ApplierOptions<P> {
  readonly reader: Pick<ProjectionStore, 'get'>;
  readonly writer: WriteCoalescer;
  readonly reduce: Reduce<P>;
  readonly now: () => number;
  /**
   * Hold an out-of-order event at most this long before naking it. While held, the event's
   * ack deadline is extended every `keepAliveMs`, so the broker does not redeliver it.
   */
  readonly holdMs: number;
  /** How often held events are marked as in progress (below the consumer's ack wait). */
  readonly keepAliveMs: number;
  /** Most events held in memory; beyond it the newest held events are naked. */
  readonly maxHeld: number;
  readonly gapNakDelayMs: number;
  /** Re-read a waiting session's row after this long without progress. */
  readonly recheckMs: number;
  readonly stuckAfterMs: number;
  /** Deliveries before a retryable failure is dead-lettered. */
  readonly maxDeliver: number;
  /**
   * Whether this instance applies a session (docs/decisions/0063). For a session it does not
   * own it only holds the deliveries, acks them once the owner's commit notice covers them,
   * and takes over (re-reads and applies itself) after `recheckMs` without progress.
   * Absent: this instance applies every session.
   */
  readonly owns?: (sessionId: string) => boolean;
  /** Told after each commit; the service publishes it for other instances and benches. */
  readonly onCommitted?: (sessionId: string, lastSequence: number) => void;
  readonly logger?: Logger;
}
