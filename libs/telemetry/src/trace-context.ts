import {
  type Attributes,
  type Context,
  context,
  propagation,
  type Span,
  SpanKind,
  SpanStatusCode,
  type TextMapGetter,
  type TextMapSetter,
  type Tracer,
  trace,
} from '@opentelemetry/api';

/**
 * Anything headers can be read from and written to. NATS `MsgHdrs` fits (its `get` returns
 * `''` for a missing key), so does a `Map<string, string>`.
 */
export interface HeaderCarrier {
  get(key: string): string | null | undefined;
  set(key: string, value: string): void;
  keys?(): Iterable<string>;
}

const setter: TextMapSetter<HeaderCarrier> = {
  set: (carrier, key, value) => carrier.set(key, value),
};

const getter: TextMapGetter<HeaderCarrier> = {
  get: (carrier, key) => {
    const value = carrier.get(key);
    return value === null || value === undefined || value === '' ? undefined : value;
  },
  keys: (carrier) => (carrier.keys === undefined ? [] : [...carrier.keys()]),
};

/**
 * Writes the W3C trace context (`traceparent`, `tracestate`) of `ctx` (the active context by
 * default) into `carrier`, through the globally registered propagator. Nothing is written
 * when no propagator is registered or no span is active.
 */
export function injectTraceContext(carrier: HeaderCarrier, ctx: Context = context.active()): void {
  propagation.inject(ctx, carrier, setter);
}

/**
 * Reads the trace context carried in `carrier` and returns a context whose parent is the
 * remote span, based on `base` (the active context by default).
 */
export function extractTraceContext(
  carrier: HeaderCarrier,
  base: Context = context.active(),
): Context {
  return propagation.extract(base, carrier, getter);
}

/** Options of {@link withSpan}. */
export interface WithSpanOptions {
  readonly kind?: SpanKind;
  readonly attributes?: Attributes;
}

/**
 * Runs `fn` inside a new span named `name`, child of `parent` (for example a context from
 * {@link extractTraceContext}), with the span active so that log lines and nested calls see
 * it. The span records an exception and an error status when `fn` throws, and always ends.
 */
export async function withSpan<T>(
  tracer: Tracer,
  name: string,
  parent: Context,
  fn: (span: Span) => Promise<T> | T,
  options: WithSpanOptions = {},
): Promise<T> {
  const span = tracer.startSpan(
    name,
    { kind: options.kind ?? SpanKind.INTERNAL, attributes: options.attributes ?? {} },
    parent,
  );
  try {
    return await context.with(trace.setSpan(parent, span), () => fn(span));
  } catch (error) {
    span.recordException(error instanceof Error ? error : String(error));
    span.setStatus({
      code: SpanStatusCode.ERROR,
      message: error instanceof Error ? error.message : String(error),
    });
    throw error;
  } finally {
    span.end();
  }
}

/** The trace id of the span in `ctx` (the active context by default), if any. */
export function activeTraceId(ctx: Context = context.active()): string | undefined {
  return trace.getSpanContext(ctx)?.traceId;
}
