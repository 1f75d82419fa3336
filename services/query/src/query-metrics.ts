import {
  counter,
  createMetricsRegistry,
  type MetricsRegistry,
  observedGauge,
  secondsHistogram,
} from '@agentwire/telemetry';

/** Metric names of the query service (Prometheus turns dots into underscores). */
const QUERY_METRICS = {
  /** Counter: requests answered, by `op` and `outcome` (`ok` or the error code). */
  requests: 'agentwire.query.requests',
  /** Histogram (seconds): receipt to reply, by `op`. */
  duration: 'agentwire.query.duration',
  /** Gauge: requests being handled now. */
  inFlight: 'agentwire.query.in_flight',
} as const;

/** Label names of {@link QUERY_METRICS}. */
const QUERY_ATTRS = { op: 'op', outcome: 'outcome' } as const;

/** The query service's instruments. */
export interface QueryMetrics {
  readonly registry: MetricsRegistry;
  /** Counts one reply to `op` and its latency. */
  record(op: string, outcome: string, seconds: number): void;
}

/** Creates the query service's metrics on their own registry; `inFlight` is read live. */
export function createQueryMetrics(serviceName: string, inFlight: () => number): QueryMetrics {
  const registry = createMetricsRegistry({ serviceName });
  const { meter } = registry;
  const requests = counter(meter, QUERY_METRICS.requests, 'Query requests answered');
  const duration = secondsHistogram(meter, QUERY_METRICS.duration, 'Query request latency');
  observedGauge(meter, QUERY_METRICS.inFlight, 'Query requests being handled', () => [
    { value: inFlight() },
  ]);
  return {
    registry,
    record(op, outcome, seconds) {
      requests.add(1, { [QUERY_ATTRS.op]: op, [QUERY_ATTRS.outcome]: outcome });
      duration.record(seconds, { [QUERY_ATTRS.op]: op });
    },
  };
}
