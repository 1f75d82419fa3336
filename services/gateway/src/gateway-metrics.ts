import {
  counter,
  createMetricsRegistry,
  type MetricsRegistry,
  observedGauge,
} from '@agentwire/telemetry';
import type { SseHub } from './sse-hub.ts';

/** Metric names of the gateway (OpenTelemetry style; Prometheus adds `_total`). */
const GATEWAY_METRICS = {
  requests: 'agentwire.gateway.requests',
  sseEvents: 'agentwire.gateway.sse.events',
  sseStreams: 'agentwire.gateway.sse.streams',
} as const;

/** The gateway's metrics. */
export interface GatewayMetrics {
  readonly registry: MetricsRegistry;
  /** Counts one answered HTTP request by route pattern, method and status. */
  request(route: string, method: string, status: number): void;
  /** Counts events written to an SSE stream (one frame's). */
  sseEvents(count: number): void;
}

/** Creates the gateway's metrics; the open-stream gauge reads `hub` at collection time. */
export function createGatewayMetrics(serviceName: string, hub: SseHub): GatewayMetrics {
  const registry = createMetricsRegistry({ serviceName });
  const requests = counter(registry.meter, GATEWAY_METRICS.requests, 'HTTP requests answered');
  const events = counter(registry.meter, GATEWAY_METRICS.sseEvents, 'Events sent on SSE streams');
  observedGauge(registry.meter, GATEWAY_METRICS.sseStreams, 'Open SSE streams', () => [
    { value: hub.size },
  ]);
  return {
    registry,
    request: (route, method, status) => requests.add(1, { route, method, status }),
    sseEvents: (count) => events.add(count),
  };
}
