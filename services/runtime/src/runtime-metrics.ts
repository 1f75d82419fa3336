import { isTransientEventType, type SessionEvent } from '@agentwire/contracts';
import type { EvictionReason } from '@agentwire/domain';
import type { UsageRecorder } from '@agentwire/engine';
import {
  createMetricsRegistry,
  type MetricsRegistry,
  secondsHistogram,
} from '@agentwire/telemetry';

/** Metric names of the runtime (OpenTelemetry style; Prometheus adds `_total`). */
const RUNTIME_METRICS = {
  eventsAppended: 'agentwire.runtime.events.appended',
  toolCalls: 'agentwire.runtime.tool.calls',
  modelTokens: 'agentwire.runtime.model.tokens',
  resident: 'agentwire.runtime.sessions.resident',
  reclaimed: 'agentwire.runtime.sessions.reclaimed',
  loadSeconds: 'agentwire.runtime.session.load',
} as const;

/** What the host reports about residency (R11, R16.6; issue 19). */
export interface ResidencyMetrics {
  /** A session was reclaimed, for this reason. */
  reclaimed(reason: EvictionReason): void;
  /** A session was made resident (cold recovery: a reopen, a takeover, a first load). */
  loaded(ms: number): void;
}

/** The runtime's metrics, its usage recorder (R5 step 3) and its residency figures. */
export interface RuntimeMetrics {
  readonly registry: MetricsRegistry;
  readonly usage: UsageRecorder;
  readonly residency: ResidencyMetrics;
  /** Reads the number of resident sessions at collection time. */
  observeResident(read: () => number): void;
}

/**
 * Step 3 of R5, `session_event.record_usage`: counts appended events by type class, tool
 * calls by tool and outcome, and model tokens by direction and query source.
 */
export function createRuntimeMetrics(serviceName: string): RuntimeMetrics {
  const registry = createMetricsRegistry({ serviceName });
  const events = registry.meter.createCounter(RUNTIME_METRICS.eventsAppended, {
    description: 'Events appended',
  });
  const tools = registry.meter.createCounter(RUNTIME_METRICS.toolCalls, {
    description: 'Tool calls finished',
  });
  const tokens = registry.meter.createCounter(RUNTIME_METRICS.modelTokens, {
    description: 'Model tokens used',
  });
  const usage: UsageRecorder = {
    recordUsage(event: SessionEvent) {
      events.add(1, { transient: isTransientEventType(event.type) });
      if (event.type === 'tool_call_result')
        tools.add(1, { tool: event.payload.toolName ?? '', outcome: 'success' });
      if (event.type === 'tool_call_error')
        tools.add(1, { tool: event.payload.toolName ?? '', outcome: 'error' });
      if (event.type === 'model_complete') {
        const source = event.payload.querySource ?? 'unknown';
        tokens.add(event.payload.usage.inputTokens ?? 0, { direction: 'input', source });
        tokens.add(event.payload.usage.outputTokens ?? 0, { direction: 'output', source });
      }
    },
  };
  const reclaimed = registry.meter.createCounter(RUNTIME_METRICS.reclaimed, {
    description: 'Sessions reclaimed by the resident pool, by reason',
  });
  const load = secondsHistogram(
    registry.meter,
    RUNTIME_METRICS.loadSeconds,
    'Time to make a session resident (cold recovery)',
  );
  const residency: ResidencyMetrics = {
    reclaimed: (reason) => reclaimed.add(1, { reason }),
    loaded: (ms) => load.record(ms / 1000),
  };
  const observeResident = (read: () => number) =>
    registry.meter
      .createObservableGauge(RUNTIME_METRICS.resident, { description: 'Resident sessions' })
      .addCallback((r) => r.observe(read()));
  return { registry, usage, residency, observeResident };
}
