import type { TitleReply } from '@agentwire/contracts';
import { SpanStatusCode, TraceFlags } from '@opentelemetry/api';
import {
  InMemorySpanExporter,
  SimpleSpanProcessor,
  TracerProvider,
} from '@opentelemetry/sdk-trace';
import { afterAll, describe, expect, it } from 'vitest';
import { parseTraceparent, TITLE_SPAN, withTitleSpan } from './title-span.ts';

const exporter = new InMemorySpanExporter();
const provider = new TracerProvider({ spanProcessors: [new SimpleSpanProcessor({ exporter })] });
const tracer = provider.getTracer('test');
afterAll(() => provider.shutdown());

const caller = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';
const reply: TitleReply = {
  ok: false,
  sessionId: 's-1',
  error: { code: 'model_timeout', message: 'late', retryable: true },
  durationMs: 1,
};

describe('title spans (R9.7)', () => {
  it('parses a W3C traceparent and rejects malformed or all-zero ones', () => {
    expect(parseTraceparent(caller)).toEqual({
      traceId: '0af7651916cd43dd8448eb211c80319c',
      spanId: 'b7ad6b7169203331',
      traceFlags: TraceFlags.SAMPLED,
      isRemote: true,
    });
    expect(parseTraceparent(undefined)).toBeUndefined();
    expect(parseTraceparent('00-abc-def-01')).toBeUndefined();
    expect(parseTraceparent(`00-${'0'.repeat(32)}-b7ad6b7169203331-01`)).toBeUndefined();
  });

  it('starts a trace of its own that links to the caller span', async () => {
    exporter.reset();
    await withTitleSpan(tracer, parseTraceparent(caller), async () => reply);
    const [span] = exporter.getFinishedSpans();
    expect(span?.name).toBe(TITLE_SPAN.name);
    expect(span?.spanContext().traceId).not.toBe('0af7651916cd43dd8448eb211c80319c');
    expect(span?.parentSpanContext).toBeUndefined();
    expect(span?.links.map((l) => l.context.spanId)).toEqual(['b7ad6b7169203331']);
    expect(span?.attributes[TITLE_SPAN.errorCode]).toBe('model_timeout');
    expect(span?.status.code).toBe(SpanStatusCode.ERROR);
  });

  it('has no link without a caller', async () => {
    exporter.reset();
    await withTitleSpan(tracer, undefined, async () => reply);
    expect(exporter.getFinishedSpans()[0]?.links).toEqual([]);
  });
});
