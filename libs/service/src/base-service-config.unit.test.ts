import { describe, expect, it } from 'vitest';
import { BaseServiceConfig, DatabaseConfig, DEFAULT_DATABASE_URL } from './base-service-config.ts';
import { ConfigError, loadConfig } from './load-config.ts';

const ServiceConfig = BaseServiceConfig.extend(DatabaseConfig.shape);

describe('BaseServiceConfig', () => {
  it('gives every shared variable its default', () => {
    expect(loadConfig(ServiceConfig, {})).toEqual({
      NATS_URL: 'nats://127.0.0.1:4222',
      DATABASE_URL: DEFAULT_DATABASE_URL,
      AW_PREFIX: 'aw',
      HTTP_PORT: 0,
      HTTP_HOST: '0.0.0.0',
      LOG_LEVEL: 'info',
      AW_DRAIN_TIMEOUT_MS: 30_000,
      AW_REPLICAS: 1,
    });
    expect(DEFAULT_DATABASE_URL).toBe('postgres://postgres@127.0.0.1:5432/agentwire');
  });

  it('rejects a bad level, prefix, port, URL and drain timeout by name', () => {
    let error: unknown;
    try {
      loadConfig(ServiceConfig, {
        LOG_LEVEL: 'loud',
        AW_PREFIX: 'a.b',
        HTTP_PORT: '-1',
        DATABASE_URL: 'mysql://x',
        AW_DRAIN_TIMEOUT_MS: '0',
      });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).problems.map((p) => p.variable).sort()).toEqual([
      'AW_DRAIN_TIMEOUT_MS',
      'AW_PREFIX',
      'DATABASE_URL',
      'HTTP_PORT',
      'LOG_LEVEL',
    ]);
  });

  it('lets a service override a default while keeping the validation', () => {
    const Public = BaseServiceConfig.extend({
      HTTP_PORT: BaseServiceConfig.shape.HTTP_PORT.removeDefault().default(8080),
    });
    expect(loadConfig(Public, {}).HTTP_PORT).toBe(8080);
    expect(loadConfig(Public, { HTTP_PORT: '0' }).HTTP_PORT).toBe(0);
    expect(() => loadConfig(Public, { HTTP_PORT: '70000' })).toThrow(ConfigError);
  });
});
