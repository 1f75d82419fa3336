export { buildApp, type GatewayAppOptions } from './build-app.ts';
export { GatewayConfig } from './config.ts';
export { createGatewayMetrics, GATEWAY_METRICS, type GatewayMetrics } from './gateway-metrics.ts';
export type { GatewayBackend } from './gateway-port.ts';
export { type HttpErrorBody, STATUS_OF_CODE, statusOf } from './http-error.ts';
export type { QueryBackend } from './query-port.ts';
export {
  FeedError,
  type FeedErrorCode,
  type FeedItem,
  SessionFeed,
  type SessionFeedOptions,
} from './session-feed.ts';
export { SseHub } from './sse-hub.ts';
export {
  type SseEndReason,
  type SseSource,
  SseStream,
  type SseStreamOptions,
} from './sse-stream.ts';
