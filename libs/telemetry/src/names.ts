/**
 * Metric names (OpenTelemetry style, dot-separated; the Prometheus exporter turns dots into
 * underscores and adds `_total` to counters). Kept as constants so that dashboards and code
 * never drift apart (STYLE.md "Observability").
 */
export const METRICS = {
  /** Counter: messages a consumer finished, by consumer and outcome. */
  messagesProcessed: 'agentwire.consumer.messages.processed',
  /** Counter: messages a consumer parked on its dead-letter subject, by consumer and code. */
  messagesDeadLettered: 'agentwire.consumer.messages.dead_lettered',
  /** Histogram (seconds): handler run time per message, by consumer and outcome. */
  handlerDuration: 'agentwire.consumer.handler.duration',
  /** Gauge: messages pending for a consumer (its lag), by consumer. */
  consumerLag: 'agentwire.consumer.lag',
  /** Counter: events published, by result kind (ok, duplicate, fenced). */
  eventsPublished: 'agentwire.bus.events.published',
  /** Histogram (seconds): publish-to-commit latency measured by the persistence worker. */
  commitLag: 'agentwire.persistence.commit.lag',
} as const;

/** Attribute (label) names used on spans, metrics and log lines. */
export const ATTRS = {
  consumer: 'agentwire.consumer',
  outcome: 'agentwire.outcome',
  sessionId: 'agentwire.session.id',
  eventType: 'agentwire.event.type',
  sequenceNumber: 'agentwire.event.sequence',
  deadLetterCode: 'agentwire.dlq.code',
  publishResult: 'agentwire.publish.result',
  /** OpenTelemetry semantic convention for the subject a message travels on. */
  messagingDestination: 'messaging.destination.name',
  /** OpenTelemetry semantic convention for the messaging system (`nats`). */
  messagingSystem: 'messaging.system',
  /** OpenTelemetry semantic convention for a delivery attempt count. */
  deliveryCount: 'messaging.message.delivery_count',
} as const;
