export { installContextPropagation } from './context-propagation.ts';
export {
  type CreateLoggerOptions,
  createLogger,
  type Logger,
  noopLogger,
  traceFields,
} from './logger.ts';
export {
  counter,
  createMetricsRegistry,
  type MetricsRegistry,
  type MetricsRegistryOptions,
  observedGauge,
  PROMETHEUS_CONTENT_TYPE,
  SECONDS_BUCKETS,
  secondsHistogram,
} from './metrics.ts';
export { ATTRS, METRICS } from './names.ts';
export {
  type StartTelemetryOptions,
  startTelemetry,
  type Telemetry,
  tracesExportConfigured,
} from './start-telemetry.ts';
export {
  activeTraceId,
  extractTraceContext,
  type HeaderCarrier,
  injectTraceContext,
  type WithSpanOptions,
  withSpan,
} from './trace-context.ts';
