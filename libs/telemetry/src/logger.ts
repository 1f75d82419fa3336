import { context, isSpanContextValid, trace } from '@opentelemetry/api';
import { pino } from 'pino';

/**
 * The minimal structured logger every library accepts (STYLE.md "Observability"): a pino
 * logger satisfies it, and {@link noopLogger} is the default where none is given.
 * Call shape is pino's: an object of fields first, then the message.
 */
export interface Logger {
  debug(obj: object, msg?: string): void;
  info(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
  error(obj: object, msg?: string): void;
  /** A logger that adds `bindings` to every line. */
  child(bindings: Record<string, unknown>): Logger;
}

/** Options of {@link createLogger}. */
export interface CreateLoggerOptions {
  /** Logger name, usually the service or library (`persistence-worker`). */
  readonly name: string;
  /** pino level; defaults to `LOG_LEVEL` from the environment, else `info`. */
  readonly level?: string;
  /** Where lines go; defaults to stdout. Tests pass a stream to capture lines. */
  readonly destination?: pino.DestinationStream;
}

/**
 * Fields stamped on every line from the active OpenTelemetry span, so that a log line can be
 * joined to its trace (the event's `traceId`, R2.1). Empty when no span is active.
 */
function traceFields(): { trace_id?: string; span_id?: string } {
  const span = trace.getSpanContext(context.active());
  if (span === undefined || !isSpanContextValid(span)) return {};
  return { trace_id: span.traceId, span_id: span.spanId };
}

/** Creates a pino logger whose every line carries `trace_id`/`span_id` of the active span. */
export function createLogger(options: CreateLoggerOptions): pino.Logger {
  const level = options.level ?? process.env.LOG_LEVEL ?? 'info';
  const pinoOptions: pino.LoggerOptions = { name: options.name, level, mixin: traceFields };
  return options.destination === undefined
    ? pino(pinoOptions)
    : pino(pinoOptions, options.destination);
}

const noop = (): void => {};

/** A logger that drops everything: the default of every library taking a {@link Logger}. */
export const noopLogger: Logger = {
  debug: noop,
  info: noop,
  warn: noop,
  error: noop,
  child: () => noopLogger,
};
