import {
  ATTRS,
  counter,
  createMetricsRegistry,
  METRICS,
  type MetricsRegistry,
  observedGauge,
  secondsHistogram,
} from '@agentwire/telemetry';
import type { Counter, Histogram } from '@opentelemetry/api';

/** Counter of messages nak'ed for redelivery after a retryable failure (ours). */
const RETRIED_METRIC = 'agentwire.consumer.messages.retried';
/** Histogram (seconds): time from `BEGIN` to `COMMIT` of one applied batch (ours). */
const COMMIT_DURATION_METRIC = 'agentwire.persistence.commit.duration';

/** The persistence worker's instruments (issue 4: processed, dead-lettered, retried, lag, commit latency). */
export interface WorkerMetrics {
  readonly registry: MetricsRegistry;
  /** Messages finished, by consumer and outcome (`applied`, `skipped`, `dead_lettered`). */
  readonly processed: Counter;
  readonly deadLettered: Counter;
  readonly retried: Counter;
  /** Commit duration of one batch transaction. */
  readonly commitDuration: Histogram;
  /** Publish-to-commit latency per message (from the JetStream message timestamp). */
  readonly commitLag: Histogram;
  /** Records the latest `num_pending` of a consumer, read by the lag gauge. */
  setLag(consumer: string, pending: number): void;
}

/** Creates the worker's metrics on their own Prometheus registry. */
export function createWorkerMetrics(serviceName: string): WorkerMetrics {
  const registry = createMetricsRegistry({ serviceName });
  const { meter } = registry;
  const lag = new Map<string, number>();
  observedGauge(meter, METRICS.consumerLag, 'Messages pending for the consumer (num_pending)', () =>
    [...lag].map(([consumer, value]) => ({ value, attributes: { [ATTRS.consumer]: consumer } })),
  );
  return {
    registry,
    processed: counter(meter, METRICS.messagesProcessed, 'Messages finished by the consumer'),
    deadLettered: counter(
      meter,
      METRICS.messagesDeadLettered,
      'Messages parked on the dead-letter subject',
    ),
    retried: counter(
      meter,
      RETRIED_METRIC,
      'Messages nak-ed for redelivery after a retryable failure',
    ),
    commitDuration: secondsHistogram(meter, COMMIT_DURATION_METRIC, 'Duration of one batch commit'),
    commitLag: secondsHistogram(meter, METRICS.commitLag, 'Publish-to-commit latency per message'),
    setLag: (consumer, pending) => lag.set(consumer, pending),
  };
}
