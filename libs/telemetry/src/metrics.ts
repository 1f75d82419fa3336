import type { Attributes, Counter, Histogram, Meter, ObservableGauge } from '@opentelemetry/api';
import { PrometheusExporter, PrometheusSerializer } from '@opentelemetry/exporter-prometheus';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { MeterProvider } from '@opentelemetry/sdk-metrics';

/** Content type of the Prometheus text exposition format. */
const PROMETHEUS_CONTENT_TYPE = 'text/plain; version=0.0.4; charset=utf-8';

/**
 * A service's metrics: a meter backed by a Prometheus reader that never opens its own HTTP
 * server (`preventServerStart`); the service's Fastify `/metrics` route returns
 * {@link MetricsRegistry.render}.
 */
export interface MetricsRegistry {
  readonly meter: Meter;
  /** Content type to send with {@link MetricsRegistry.render}'s text. */
  readonly contentType: string;
  /** Collects every instrument now and returns the Prometheus exposition text. */
  render(): Promise<string>;
  shutdown(): Promise<void>;
}

/** Options of {@link createMetricsRegistry}. */
export interface MetricsRegistryOptions {
  readonly serviceName: string;
}

/**
 * Creates a {@link MetricsRegistry}. Independent of the global meter provider, so it works
 * whether or not {@link startTelemetry} ran and never clashes with `OTEL_METRICS_EXPORTER`.
 */
export function createMetricsRegistry(options: MetricsRegistryOptions): MetricsRegistry {
  const exporter = new PrometheusExporter({ preventServerStart: true });
  const provider = new MeterProvider({
    resource: resourceFromAttributes({ 'service.name': options.serviceName }),
    readers: [exporter],
  });
  const serializer = new PrometheusSerializer();
  return {
    meter: provider.getMeter(options.serviceName),
    contentType: PROMETHEUS_CONTENT_TYPE,
    async render() {
      const { resourceMetrics } = await exporter.collect();
      return serializer.serialize(resourceMetrics);
    },
    shutdown: () => provider.shutdown(),
  };
}

/** A monotonic counter named by a {@link METRICS} constant. */
export function counter(meter: Meter, name: string, description: string): Counter {
  return meter.createCounter(name, { description });
}

/** Bucket bounds (seconds) of {@link secondsHistogram}: 1 ms to 10 s. */
const SECONDS_BUCKETS: readonly number[] = [
  0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10,
];

/** A histogram of seconds (durations, lags) named by a {@link METRICS} constant. */
export function secondsHistogram(meter: Meter, name: string, description: string): Histogram {
  return meter.createHistogram(name, {
    description,
    unit: 's',
    advice: { explicitBucketBoundaries: [...SECONDS_BUCKETS] },
  });
}

/**
 * A gauge read at collection time: `read` returns the current values, one per attribute set
 * (for example the pending count of each consumer).
 */
export function observedGauge(
  meter: Meter,
  name: string,
  description: string,
  read: () => ReadonlyArray<{ readonly value: number; readonly attributes?: Attributes }>,
): ObservableGauge {
  const gauge = meter.createObservableGauge(name, { description });
  gauge.addCallback((result) => {
    for (const sample of read()) result.observe(sample.value, sample.attributes);
  });
  return gauge;
}
