import {
  type Context,
  context,
  propagation,
  type TextMapGetter,
  type TextMapSetter,
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
