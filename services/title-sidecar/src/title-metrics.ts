import type { TitleReply } from '@agentwire/contracts';
import {
  counter,
  createMetricsRegistry,
  type MetricsRegistry,
  observedGauge,
  secondsHistogram,
} from '@agentwire/telemetry';
import type { Counter, Histogram } from '@opentelemetry/api';

/** Metric names of the title sidecar (ours; Prometheus turns dots into underscores). */
const TITLE_METRICS = {
  /** Counter: requests answered, by `outcome` (`applied`, `dropped`, `error`). */
  requests: 'agentwire.titles.requests',
  /** Counter: generated titles written back (R9.9). */
  applied: 'agentwire.titles.applied',
  /** Counter: answered requests whose title was not applied, by `reason`. */
  dropped: 'agentwire.titles.dropped',
  /** Counter: failed requests, by `code`. */
  errors: 'agentwire.titles.errors',
  /** Histogram (seconds): receipt to reply, by `outcome`. */
  duration: 'agentwire.titles.duration',
  /** Gauge: requests being handled now. */
  inFlight: 'agentwire.titles.in_flight',
} as const;

/** Label names of {@link TITLE_METRICS}. */
const TITLE_ATTRS = { outcome: 'outcome', reason: 'reason', code: 'code' } as const;

/** The sidecar's instruments. */
export interface TitleMetrics {
  readonly registry: MetricsRegistry;
  /** Counts one reply and its latency. */
  record(reply: TitleReply, seconds: number): void;
}

/** The outcome label of a reply. */
export function outcomeOf(reply: TitleReply): 'applied' | 'dropped' | 'error' {
  if (!reply.ok) return 'error';
  return reply.applied ? 'applied' : 'dropped';
}

/** Creates the sidecar's metrics on their own Prometheus registry; `inFlight` is read live. */
export function createTitleMetrics(serviceName: string, inFlight: () => number): TitleMetrics {
  const registry = createMetricsRegistry({ serviceName });
  const { meter } = registry;
  const requests: Counter = counter(meter, TITLE_METRICS.requests, 'Title requests answered');
  const applied: Counter = counter(meter, TITLE_METRICS.applied, 'Generated titles written back');
  const dropped: Counter = counter(meter, TITLE_METRICS.dropped, 'Titles not applied, by reason');
  const errors: Counter = counter(meter, TITLE_METRICS.errors, 'Failed title requests, by code');
  const duration: Histogram = secondsHistogram(
    meter,
    TITLE_METRICS.duration,
    'Title request latency',
  );
  observedGauge(meter, TITLE_METRICS.inFlight, 'Title requests being handled', () => [
    { value: inFlight() },
  ]);
  return {
    registry,
    record(reply, seconds) {
      const outcome = outcomeOf(reply);
      requests.add(1, { [TITLE_ATTRS.outcome]: outcome });
      duration.record(seconds, { [TITLE_ATTRS.outcome]: outcome });
      if (!reply.ok) errors.add(1, { [TITLE_ATTRS.code]: reply.error.code });
      else if (reply.applied) applied.add(1);
      else dropped.add(1, { [TITLE_ATTRS.reason]: reply.reason ?? 'unknown' });
    },
  };
}
