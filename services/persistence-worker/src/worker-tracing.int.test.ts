import { eventHeaders, publishCommand } from '@agentwire/bus';
import { isDurableEventType, names } from '@agentwire/contracts';
import { ATTRS } from '@agentwire/telemetry';
import { installContextPropagation } from '@agentwire/telemetry/testing';
import { createTestEnvironment, type TestEnvironment, waitUntil } from '@agentwire/testing';
import { SpanKind } from '@opentelemetry/api';
import {
  InMemorySpanExporter,
  type ReadableSpan,
  SimpleSpanProcessor,
  TracerProvider,
} from '@opentelemetry/sdk-trace';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WorkerConfig } from './config.ts';
import { startWorkerRuntime, type WorkerRuntime } from './start-worker-runtime.ts';
import { disposeWithStreams } from './testing/dispose-with-streams.ts';
import { generateWorkload } from './testing/workload.ts';

const exporter = new InMemorySpanExporter();
const provider = new TracerProvider({ spanProcessors: [new SimpleSpanProcessor({ exporter })] });
const TRACE_ID = '0af7651916cd43dd8448eb211c80319c';
const CALLER_SPAN = 'b7ad6b7169203331';
let env: TestEnvironment;
let runtime: WorkerRuntime;
let uninstallPropagation: () => void = () => {};

beforeAll(async () => {
  // What the service's entry point gets from startTelemetry: the W3C propagator.
  uninstallPropagation = installContextPropagation();
  env = await createTestEnvironment();
  const config = WorkerConfig.parse({
    DATABASE_URL: env.databaseUrl,
    NATS_URL: env.natsUrl,
    AW_PREFIX: env.prefix,
  });
  runtime = await startWorkerRuntime({ config, tracer: provider.getTracer('test') });
});

afterAll(async () => {
  await runtime?.stop();
  await disposeWithStreams(env);
  await provider.shutdown();
  uninstallPropagation();
});

/** Waits until a finished span matches, then returns it. */
async function spanWhere(match: (s: ReadableSpan) => boolean): Promise<ReadableSpan> {
  const find = () => exporter.getFinishedSpans().find(match);
  await waitUntil(() => find() !== undefined, { timeoutMs: 15_000, what: 'a matching span' });
  const span = find();
  if (span === undefined) throw new Error('the matching span went missing');
  return span;
}

describe('persistence worker tracing (issue 4 item 4)', () => {
  const items = generateWorkload({ seed: 5, items: 200, sessions: 1, sessionPrefix: 'trace' });

  it('opens a consumer span per event, parented on the message traceparent', async () => {
    const item = items.find((i) => i.kind === 'event' && isDurableEventType(i.event.type));
    if (item?.kind !== 'event') throw new Error('the workload has no durable event');
    const { event } = item;
    const headers = eventHeaders(event, 0);
    headers.set('traceparent', `00-${TRACE_ID}-${CALLER_SPAN}-01`);
    await runtime.bus.js.publish(
      names(env.prefix).eventSubject(event.sessionId),
      JSON.stringify(event),
      { headers },
    );

    const span = await spanWhere((s) => s.attributes[ATTRS.sessionId] === event.sessionId);
    expect(span.kind).toBe(SpanKind.CONSUMER);
    expect(span.spanContext().traceId).toBe(TRACE_ID);
    expect(span.parentSpanContext?.spanId).toBe(CALLER_SPAN);
    expect(span.attributes).toMatchObject({
      [ATTRS.messagingSystem]: 'nats',
      [ATTRS.eventType]: event.type,
      [ATTRS.sequenceNumber]: event.sequenceNumber,
      [ATTRS.deliveryCount]: 1,
    });
    expect(span.ended).toBe(true);
  });

  it('opens a span per command too, a root span when the message carries no traceparent', async () => {
    const item = items.find((i) => i.kind === 'command' && i.command.kind === 'save_part');
    if (item?.kind !== 'command') throw new Error('the workload has no save_part command');
    const { command } = item;
    await publishCommand(runtime.bus.js, names(env.prefix), command);

    const span = await spanWhere(
      (s) =>
        s.attributes['agentwire.command.kind'] === 'save_part' &&
        s.attributes[ATTRS.messagingDestination] ===
          names(env.prefix).commandSubject(command.sessionId),
    );
    expect(span.kind).toBe(SpanKind.CONSUMER);
    expect(span.parentSpanContext).toBeUndefined();
  });
});
