import { isTransientEventType, type SessionEvent } from '@agentwire/contracts';
import { createMetricsRegistry, type MetricsRegistry } from '@agentwire/telemetry';
import type { UsageRecorder } from './core/ports.ts';

/** Metric names of the runtime (OpenTelemetry style; Prometheus adds `_total`). */
export const RUNTIME_METRICS = {
  eventsAppended: 'agentwire.runtime.events.appended',
  toolCalls: 'agentwire.runtime.tool.calls',
  modelTokens: 'agentwire.runtime.model.tokens',
} as const;

/** The runtime's metrics and its usage recorder (R5 step 3). */
export interface RuntimeMetrics {
  readonly registry: MetricsRegistry;
  readonly usage: UsageRecorder;
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
  return { registry, usage };
}
