export { createLogger, type Logger, noopLogger } from './logger.ts';
export {
  counter,
  createMetricsRegistry,
  type MetricsRegistry,
  observedGauge,
  secondsHistogram,
} from './metrics.ts';
export { ATTRS, METRICS } from './names.ts';
export { startTelemetry } from './start-telemetry.ts';
export { extractTraceContext, type HeaderCarrier, injectTraceContext } from './trace-context.ts';
