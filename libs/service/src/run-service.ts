import { noopServiceLogger, type ServiceLogger } from './service-logger.ts';

/** The parts of `process` that {@link runService} touches; tests pass a fake. */
export interface ServiceHost {
  on(signal: NodeJS.Signals, handler: () => void): unknown;
  off(signal: NodeJS.Signals, handler: () => void): unknown;
  exit(code: number): void;
}

/** Options of {@link runService}. */
export interface RunServiceOptions {
  readonly name: string;
  /** Connects, provisions and starts serving; a rejection exits with code 1. */
  readonly start: () => Promise<void>;
  /** Drains: stop pulling, finish in-flight work, ack, close. Called at most once. */
  readonly stop: () => Promise<void>;
  readonly logger?: ServiceLogger;
  /** How long `stop` may take before the process exits 1 anyway. Default 30 s. */
  readonly drainTimeoutMs?: number;
  /** Signals that trigger the drain. Default SIGTERM and SIGINT. */
  readonly signals?: readonly NodeJS.Signals[];
  /** Defaults to `process`. */
  readonly host?: ServiceHost;
}

/** Handle on a running service. */
export interface RunningService {
  /** Drains as a signal would, exits the host with the code, and resolves with it. */
  shutdown(reason: string): Promise<number>;
}

/**
 * Runs a service's lifecycle (DESIGN.md "Processes"): `start`, then on the first SIGTERM
 * or SIGINT `stop` exactly once; exit 0 when the drain succeeds, 1 when it throws or
 * exceeds `drainTimeoutMs`, 1 when `start` fails. Each step is logged.
 */
export async function runService(options: RunServiceOptions): Promise<RunningService> {
  const logger = options.logger ?? noopServiceLogger;
  const host: ServiceHost = options.host ?? process;
  const signals = options.signals ?? ['SIGTERM', 'SIGINT'];
  const timeoutMs = options.drainTimeoutMs ?? 30_000;
  const base = { service: options.name };
  let draining: Promise<number> | undefined;

  const drain = async (reason: string): Promise<number> => {
    logger.info({ ...base, reason }, `${options.name} draining`);
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<'timeout'>((resolve) => {
      timer = setTimeout(() => resolve('timeout'), timeoutMs);
    });
    try {
      const outcome = await Promise.race([options.stop().then(() => 'stopped' as const), timeout]);
      if (outcome === 'timeout') {
        logger.error({ ...base, timeoutMs }, `${options.name} drain timed out`);
        return 1;
      }
      logger.info(base, `${options.name} stopped`);
      return 0;
    } catch (error) {
      logger.error({ ...base, err: error }, `${options.name} drain failed`);
      return 1;
    } finally {
      clearTimeout(timer);
    }
  };

  const shutdown = (reason: string, failed = false): Promise<number> => {
    if (draining !== undefined) {
      logger.warn({ ...base, reason }, `${options.name} already draining`);
      return draining;
    }
    draining = drain(reason).then((drained) => {
      const code = failed ? 1 : drained;
      for (const signal of signals) host.off(signal, handlers.get(signal) ?? (() => {}));
      host.exit(code);
      return code;
    });
    return draining;
  };

  const handlers = new Map<NodeJS.Signals, () => void>();
  for (const signal of signals) {
    const handler = () => void shutdown(signal);
    handlers.set(signal, handler);
    host.on(signal, handler);
  }

  logger.info(base, `${options.name} starting`);
  try {
    await options.start();
  } catch (error) {
    logger.error({ ...base, err: error }, `${options.name} failed to start`);
    await shutdown('start_failed', true);
    return { shutdown: (reason) => shutdown(reason) };
  }
  logger.info(base, `${options.name} started`);
  return { shutdown: (reason) => shutdown(reason) };
}
