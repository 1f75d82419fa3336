import { createLogger, startTelemetry } from '@agentwire/telemetry';
import type { z } from 'zod';
import { type BaseServiceConfig, LOG_LEVELS } from './base-service-config.ts';
import { ConfigError, loadConfig } from './load-config.ts';
import { type RunningService, runService, type ServiceHost } from './run-service.ts';

/** The logger a service main gets: a pino logger at the configured `LOG_LEVEL`. */
type ServiceMainLogger = ReturnType<typeof createLogger>;

/** What {@link runServiceMain} hands a service's `setup`. */
interface ServiceMainContext<C> {
  readonly config: C;
  readonly logger: ServiceMainLogger;
}

/** A service's own start and drain, as {@link runService} runs them. */
interface ServiceLifecycle {
  readonly start: () => Promise<void>;
  readonly stop: () => Promise<void>;
}

/** Options of {@link runServiceMain}. */
export interface ServiceMainOptions<S extends z.ZodType<BaseServiceConfig>> {
  /** Service name: telemetry `service.name`, logger name, lifecycle log lines. */
  readonly name: string;
  /** The service's configuration schema, an extension of `BaseServiceConfig`. */
  readonly config: S;
  /** Builds the service from its configuration (called once, before `start`). */
  readonly setup: (context: ServiceMainContext<z.infer<S>>) => ServiceLifecycle;
  /** Defaults to `process.env`. */
  readonly env?: Readonly<Record<string, string | undefined>>;
  /** Defaults to `process`. */
  readonly host?: ServiceHost;
}

/**
 * The start-up every service's `main.ts` shares (DESIGN.md "Processes"): validate the
 * environment (a {@link ConfigError} is logged and exits 1), start telemetry, create the
 * logger at `LOG_LEVEL`, then {@link runService} with `AW_DRAIN_TIMEOUT_MS`; telemetry is shut down
 * last, after the service's own `stop`.
 */
export async function runServiceMain<S extends z.ZodType<BaseServiceConfig>>(
  options: ServiceMainOptions<S>,
): Promise<RunningService | undefined> {
  const host: ServiceHost = options.host ?? process;
  let config: z.infer<S>;
  try {
    config = loadConfig(options.config, options.env);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    const level = (options.env ?? process.env).LOG_LEVEL;
    const valid = LOG_LEVELS.find((known) => known === level) ?? 'info';
    createLogger({ name: options.name, level: valid }).error({ err: error }, error.message);
    host.exit(1);
    return undefined;
  }
  const telemetry = startTelemetry({ serviceName: options.name });
  const logger = createLogger({ name: options.name, level: config.LOG_LEVEL });
  const service = options.setup({ config, logger });
  return runService({
    name: options.name,
    logger,
    host,
    drainTimeoutMs: config.AW_DRAIN_TIMEOUT_MS,
    start: service.start,
    stop: async () => {
      try {
        await service.stop();
      } finally {
        await telemetry.shutdown();
      }
    },
  });
}
