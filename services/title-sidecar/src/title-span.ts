import type { TitleReply } from '@agentwire/contracts';
import {
  context,
  type Link,
  type Span,
  type SpanContext,
  SpanKind,
  SpanStatusCode,
  TraceFlags,
  type Tracer,
  trace,
} from '@opentelemetry/api';

const TRACEPARENT = /^([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/;
const INVALID_TRACE = /^0+$/;

/** The span context a W3C `traceparent` names, or `undefined` when absent or malformed. */
export function parseTraceparent(value: string | undefined): SpanContext | undefined {
  const match = value === undefined ? null : TRACEPARENT.exec(value.trim());
  if (match === null) return undefined;
  const [, version, traceId, spanId, flags] = match;
  if (version === 'ff' || traceId === undefined || spanId === undefined || flags === undefined) {
    return undefined;
  }
  if (INVALID_TRACE.test(traceId) || INVALID_TRACE.test(spanId)) return undefined;
  return {
    traceId,
    spanId,
    traceFlags: Number.parseInt(flags, 16) & TraceFlags.SAMPLED,
    isRemote: true,
  };
}

/**
 * Span and attribute names of a title request.
 *
 * @internal Exported for its tests.
 */
export const TITLE_SPAN = {
  name: 'title.generate',
  sessionId: 'agentwire.session.id',
  outcome: 'agentwire.outcome',
  reason: 'agentwire.title.reason',
  errorCode: 'agentwire.title.error_code',
  providerId: 'gen_ai.provider.name',
  modelId: 'gen_ai.request.model',
} as const;

/**
 * Runs `fn` in a span of its own trace that links to the caller's span (R9.7: the title
 * request's trace is separate and links to the span that triggered it). The reply's
 * outcome is recorded on the span; an error reply sets an error status.
 */
export async function withTitleSpan(
  tracer: Tracer,
  caller: SpanContext | undefined,
  fn: (span: Span) => Promise<TitleReply>,
): Promise<TitleReply> {
  const links: Link[] = caller === undefined ? [] : [{ context: caller }];
  const span = tracer.startSpan(TITLE_SPAN.name, { kind: SpanKind.SERVER, root: true, links });
  try {
    const reply = await context.with(trace.setSpan(context.active(), span), () => fn(span));
    span.setAttribute(TITLE_SPAN.sessionId, reply.sessionId ?? '');
    if (reply.model !== undefined) {
      span.setAttribute(TITLE_SPAN.providerId, reply.model.providerId);
      span.setAttribute(TITLE_SPAN.modelId, reply.model.modelId);
    }
    if (reply.ok) {
      span.setAttribute(TITLE_SPAN.outcome, reply.applied ? 'applied' : 'dropped');
      if (reply.reason !== undefined) span.setAttribute(TITLE_SPAN.reason, reply.reason);
    } else {
      span.setAttribute(TITLE_SPAN.outcome, 'error');
      span.setAttribute(TITLE_SPAN.errorCode, reply.error.code);
      span.setStatus({ code: SpanStatusCode.ERROR, message: reply.error.message });
    }
    return reply;
  } catch (error) {
    span.recordException(error instanceof Error ? error : String(error));
    span.setStatus({ code: SpanStatusCode.ERROR, message: String(error) });
    throw error;
  } finally {
    span.end();
  }
}
