import { describe, expect, it } from 'vitest';
import { counter, createMetricsRegistry, observedGauge, secondsHistogram } from './metrics.ts';
import { ATTRS, METRICS } from './names.ts';
import { tracesExportConfigured } from './start-telemetry.ts';

describe('metrics registry', () => {
  it('renders counters, histograms and gauges in Prometheus text', async () => {
    const registry = createMetricsRegistry({ serviceName: 'test' });
    const processed = counter(registry.meter, METRICS.messagesProcessed, 'processed');
    processed.add(3, { [ATTRS.consumer]: 'w', [ATTRS.outcome]: 'ack' });
    secondsHistogram(registry.meter, METRICS.handlerDuration, 'handler').record(0.02);
    let lag = 7;
    observedGauge(registry.meter, METRICS.consumerLag, 'lag', () => [
      { value: lag, attributes: { [ATTRS.consumer]: 'w' } },
    ]);
    const text = await registry.render();
    expect(text).toMatch(
      /agentwire_consumer_messages_processed_total\{[^}]*agentwire_consumer="w"[^}]*\} 3/,
    );
    expect(text).toContain('agentwire_consumer_handler_duration_count');
    expect(text).toMatch(/agentwire_consumer_handler_duration_bucket\{[^}]*le="0.025"\} 1/);
    expect(text).toMatch(/agentwire_consumer_lag\{[^}]*\} 7/);
    lag = 2;
    expect(await registry.render()).toMatch(/agentwire_consumer_lag\{[^}]*\} 2/);
    await registry.shutdown();
  });
});

describe('tracesExportConfigured', () => {
  it('exports only when OTEL_* asks for it', () => {
    expect(tracesExportConfigured({})).toBe(false);
    expect(tracesExportConfigured({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318' })).toBe(true);
    expect(
      tracesExportConfigured({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://c:4318/v1/traces' }),
    ).toBe(true);
    expect(tracesExportConfigured({ OTEL_TRACES_EXPORTER: 'console' })).toBe(true);
    expect(
      tracesExportConfigured({ OTEL_TRACES_EXPORTER: 'none', OTEL_EXPORTER_OTLP_ENDPOINT: 'x' }),
    ).toBe(false);
  });
});
