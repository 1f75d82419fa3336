import { startNodeSdk } from '@opentelemetry/sdk-node';

/** Options of {@link startTelemetry}. */
export interface StartTelemetryOptions {
  /** `service.name` of every span. */
  readonly serviceName: string;
  /** Environment to read; defaults to `process.env`. */
  readonly env?: NodeJS.ProcessEnv;
}

/** Handle returned by {@link startTelemetry}. */
export interface Telemetry {
  /** Whether spans are exported (an exporter was configured through `OTEL_*`). */
  readonly exporting: boolean;
  /** Flushes and stops the SDK; call it last on SIGTERM. */
  shutdown(): Promise<void>;
}

/**
 * Whether the standard `OTEL_*` variables ask for a trace exporter: an OTLP endpoint
 * (`OTEL_EXPORTER_OTLP_ENDPOINT`, `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`) or an explicit
 * `OTEL_TRACES_EXPORTER` other than `none`.

 *
 * @internal Exported for its tests.
 */
export function tracesExportConfigured(env: NodeJS.ProcessEnv): boolean {
  const exporter = env.OTEL_TRACES_EXPORTER?.trim();
  if (exporter !== undefined && exporter !== '') return exporter !== 'none';
  return Boolean(env.OTEL_EXPORTER_OTLP_ENDPOINT || env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT);
}

/**
 * Starts the OpenTelemetry Node SDK. Call it once, first thing in a service's `main.ts`;
 * libraries never call it (STYLE.md). It always installs the AsyncLocalStorage context
 * manager and the W3C propagator, so trace context flows through headers and log lines
 * carry trace ids; spans are exported only when `OTEL_*` configures an exporter, and
 * metrics and logs are exported only when `OTEL_METRICS_EXPORTER` / `OTEL_LOGS_EXPORTER`
 * say so (a service's `/metrics` comes from {@link createMetricsRegistry} instead).
 */
export function startTelemetry(options: StartTelemetryOptions): Telemetry {
  const env = options.env ?? process.env;
  const exporting = tracesExportConfigured(env);
  const sdk = startNodeSdk({
    resourceAttributes: { 'service.name': options.serviceName },
    ...(exporting ? {} : { spanProcessors: [] }),
    ...(env.OTEL_METRICS_EXPORTER ? {} : { metricReaders: [] }),
    ...(env.OTEL_LOGS_EXPORTER ? {} : { logRecordProcessors: [] }),
  });
  return { exporting, shutdown: () => sdk.shutdown() };
}
