import { Writable } from 'node:stream';
import {
  context,
  propagation,
  ROOT_CONTEXT,
  type SpanContext,
  TraceFlags,
  trace,
} from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import {
  InMemorySpanExporter,
  SimpleSpanProcessor,
  TracerProvider,
} from '@opentelemetry/sdk-trace';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from './logger.ts';
import { extractTraceContext, injectTraceContext } from './trace-context.ts';

const remote: SpanContext = {
  traceId: '0af7651916cd43dd8448eb211c80319c',
  spanId: 'b7ad6b7169203331',
  traceFlags: TraceFlags.SAMPLED,
};

const exporter = new InMemorySpanExporter();
const provider = new TracerProvider({ spanProcessors: [new SimpleSpanProcessor({ exporter })] });
const tracer = provider.getTracer('test');
const manager = new AsyncLocalStorageContextManager();

beforeAll(() => {
  manager.enable();
  context.setGlobalContextManager(manager);
  propagation.setGlobalPropagator(new W3CTraceContextPropagator());
});

afterAll(async () => {
  context.disable();
  propagation.disable();
  await provider.shutdown();
});

describe('trace context in headers', () => {
  it('injects a W3C traceparent and extracts the same span context', () => {
    const headers = new Map<string, string>();
    injectTraceContext(headers, trace.setSpanContext(ROOT_CONTEXT, remote));
    expect(headers.get('traceparent')).toBe(`00-${remote.traceId}-${remote.spanId}-01`);

    const extracted = trace.getSpanContext(extractTraceContext(headers, ROOT_CONTEXT));
    expect(extracted).toMatchObject({ ...remote, isRemote: true });
  });

  it('treats a missing or empty traceparent as no parent (NATS get returns "")', () => {
    const natsLike = { get: () => '', set: () => {} };
    expect(trace.getSpanContext(extractTraceContext(natsLike, ROOT_CONTEXT))).toBeUndefined();
    const empty = new Map<string, string>();
    injectTraceContext(empty, ROOT_CONTEXT);
    expect(empty.size).toBe(0);
  });

  it('log lines inside a span carry its trace_id and span_id', async () => {
    const lines: string[] = [];
    const destination = new Writable({
      write(chunk, _enc, done) {
        lines.push(String(chunk));
        done();
      },
    });
    const logger = createLogger({ name: 't', destination });
    const spanId = tracer.startActiveSpan('log', {}, ROOT_CONTEXT, (span) => {
      logger.info({ k: 1 }, 'inside');
      span.end();
      return span.spanContext().spanId;
    });
    logger.info({ k: 2 }, 'outside');
    const [inside, outside] = lines.map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(inside).toMatchObject({ msg: 'inside', span_id: spanId, k: 1 });
    expect(inside?.trace_id).toMatch(/^[0-9a-f]{32}$/);
    expect(outside).not.toHaveProperty('trace_id');
  });
});
