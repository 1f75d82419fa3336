import {
  createMetricsRegistry,
  type MetricsRegistry,
  secondsHistogram,
} from '@agentwire/telemetry';
import type { ApplierStats } from './applier-stats.ts';
import type { StuckSession } from './stuck-session.ts';

/** Metric names of the projection service (issue 5: lag, applied/s, gap naks, stuck). */
const PROJECTION_METRICS = {
  applied: 'agentwire.projection.events.applied',
  duplicates: 'agentwire.projection.events.duplicate',
  gapNaks: 'agentwire.projection.gap.naks',
  casConflicts: 'agentwire.projection.cas.conflicts',
  sequenceConflicts: 'agentwire.projection.events.sequence_conflicts',
  deadLettered: 'agentwire.projection.events.dead_lettered',
  storeErrors: 'agentwire.projection.store.errors',
  appliedPerSecond: 'agentwire.projection.applied_per_second',
  lag: 'agentwire.projection.lag',
  held: 'agentwire.projection.held_events',
  stuckSessions: 'agentwire.projection.stuck_sessions',
  stuckSession: 'agentwire.projection.stuck_session_waiting_ms',
  consumerPending: 'agentwire.projection.consumer.pending',
} as const;

/** What the metrics read at collection time. */
export interface ProjectionMetricsSource {
  readonly stats: ApplierStats;
  held(): number;
  stuck(): StuckSession[];
  /**
   * The consumer's lag as this instance sees it: messages still in the stream after its
   * last delivery, plus its own deliveries not settled yet.
   */
  consumerPending(): number;
}

/** A projection instance's metrics; call {@link ProjectionMetrics.sample} periodically. */
export interface ProjectionMetrics {
  readonly registry: MetricsRegistry;
  /** Moves the applier's lag samples into the histogram and updates applied/s. */
  sample(now: number): void;
}

/**
 * Registers the projection's instruments: counters of applied, duplicate, gap-naked,
 * conflicting and dead-lettered events, the store-to-commit lag histogram, applied events
 * per second, held events, consumer pending, and stuck sessions (count and, per session,
 * how long it has waited) so a stuck session is never silently skipped.
 */
export function createProjectionMetrics(
  serviceName: string,
  source: ProjectionMetricsSource,
): ProjectionMetrics {
  const registry = createMetricsRegistry({ serviceName });
  const meter = registry.meter;
  const s = source.stats;
  const counters: [string, string, () => number][] = [
    [PROJECTION_METRICS.applied, 'events applied to projections', () => s.applied],
    [PROJECTION_METRICS.duplicates, 'duplicate deliveries acked and dropped', () => s.duplicates],
    [
      PROJECTION_METRICS.gapNaks,
      'events naked while waiting for their predecessor',
      () => s.gapNaks,
    ],
    [
      PROJECTION_METRICS.casConflicts,
      'compare-and-set writes lost to another writer',
      () => s.casConflicts,
    ],
    [
      PROJECTION_METRICS.sequenceConflicts,
      'second events with a number another event of the session has (two writers)',
      () => s.sequenceConflicts,
    ],
    [PROJECTION_METRICS.deadLettered, 'events dead-lettered by the applier', () => s.deadLettered],
    [PROJECTION_METRICS.storeErrors, 'failed store operations', () => s.storeErrors],
  ];
  for (const [name, description, read] of counters) {
    meter.createObservableCounter(name, { description }).addCallback((r) => r.observe(read()));
  }
  let rate = 0;
  let lastApplied = 0;
  let lastAt: number | undefined;
  const gauge = (name: string, description: string, read: () => number) =>
    meter.createObservableGauge(name, { description }).addCallback((r) => r.observe(read()));
  gauge(PROJECTION_METRICS.appliedPerSecond, 'events applied per second (last sample)', () => rate);
  gauge(PROJECTION_METRICS.held, 'out-of-order events held in memory', () => source.held());
  gauge(
    PROJECTION_METRICS.consumerPending,
    'events not yet acked: left in the stream at the last delivery, plus those this instance holds unsettled',
    () => source.consumerPending(),
  );
  gauge(
    PROJECTION_METRICS.stuckSessions,
    'sessions waiting past AW_PROJECTION_STUCK_AFTER_MS',
    () => source.stuck().length,
  );
  meter
    .createObservableGauge(PROJECTION_METRICS.stuckSession, {
      description: 'how long a stuck session has waited',
    })
    .addCallback((r) => {
      for (const st of source.stuck().slice(0, 50)) {
        r.observe(st.waitingMs, {
          session: st.sessionId,
          awaited_seq: String(st.awaitedSeq ?? st.blockedBy?.seq ?? ''),
          blocked_by: st.blockedBy?.code ?? '',
        });
      }
    });
  const lag = secondsHistogram(
    meter,
    PROJECTION_METRICS.lag,
    'time from stream store to projection commit',
  );
  return {
    registry,
    sample(now) {
      for (const ms of s.lagMs.splice(0)) lag.record(ms / 1000);
      if (lastAt !== undefined && now - lastAt >= 1_000) {
        rate = ((s.applied - lastApplied) * 1000) / (now - lastAt);
        lastApplied = s.applied;
        lastAt = now;
      }
      lastAt ??= now;
    },
  };
}
