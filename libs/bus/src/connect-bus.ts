import { type Logger, noopLogger } from '@agentwire/telemetry';
import {
  type JetStreamClient,
  type JetStreamManager,
  jetstream,
  jetstreamManager,
} from '@nats-io/jetstream';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import {
  connectionAuth,
  type NatsCredentialVariables,
  natsCredentialsFrom,
} from './permissions/nats-credentials.ts';

/** Options of {@link connectBus}. */
export interface ConnectBusOptions {
  /**
   * One URL, several, or a comma-separated list (`NATS_URL=nats://a:4222,nats://b:4222`):
   * every seed of a cluster, so that the client reaches it while any one node is down.
   */
  readonly servers: string | readonly string[];
  /** Connection name shown by the server (`persistence-worker-<pid>`). */
  readonly name: string;
  readonly logger?: Logger;
  /** Skip async stack traces on requests: set it in hot paths (COMMON.md). */
  readonly noAsyncTraces?: boolean;
  /**
   * Base wait between reconnect attempts, ms (default 250): a service is back within half a
   * second of its broker (issue 9: followers resume within 2 s), at four tries a second.
   */
  readonly reconnectTimeWait?: number;
  /** Random jitter added to each wait, ms (default 250). */
  readonly reconnectJitter?: number;
  /**
   * Credentials from the service's environment (`NATS_USER`/`NATS_PASSWORD`,
   * `NATS_NKEY_SEED` or `NATS_CREDS_FILE`, and `NATS_INBOX_PREFIX`); none for an open
   * server (docs/decisions/0145).
   */
  readonly auth?: NatsCredentialVariables;
}

/** A live connection with its JetStream handles. */
export interface BusConnection {
  readonly nc: NatsConnection;
  readonly js: JetStreamClient;
  readonly jsm: JetStreamManager;
  /** False from a disconnect until the reconnect (and once closed): readiness reports it. */
  readonly connected: boolean;
  /** Calls `listener` after every reconnect (followers resume at once); returns the undo. */
  onReconnect(listener: () => void): () => void;
  /** Where this connection's replies arrive (`_INBOX` unless its credentials say otherwise). */
  readonly inboxPrefix: string;
  /** Drains subscriptions and closes the connection (SIGTERM path). */
  close(): Promise<void>;
}

/**
 * Connects to NATS and reconnects forever with jittered waits (`maxReconnectAttempts: -1`),
 * waiting for the first connect too, so a service may start before its broker. Every
 * status change (disconnect, reconnect, errors) is logged.
 */
export async function connectBus(options: ConnectBusOptions): Promise<BusConnection> {
  const logger = (options.logger ?? noopLogger).child({
    component: 'bus',
    connection: options.name,
  });
  const servers = seedUrls(options.servers);
  const auth = options.auth ?? {};
  const credentials = connectionAuth(natsCredentialsFrom(auth), auth.NATS_INBOX_PREFIX);
  const nc = await connect({
    ...credentials,
    servers,
    name: options.name,
    maxReconnectAttempts: -1,
    waitOnFirstConnect: true,
    reconnectTimeWait: options.reconnectTimeWait ?? 250,
    reconnectJitter: options.reconnectJitter ?? 250,
    noAsyncTraces: options.noAsyncTraces ?? false,
  });
  logger.info({ server: nc.getServer(), seeds: servers.length }, 'nats connected');
  const link = { up: true, listeners: new Set<() => void>() };
  void watchStatus(nc, logger, link);
  void nc.closed().then(() => {
    link.up = false;
  });
  const js = jetstream(nc);
  const jsm = await jetstreamManager(nc);
  return {
    nc,
    js,
    jsm,
    get connected() {
      return link.up && !nc.isClosed();
    },
    onReconnect(listener) {
      link.listeners.add(listener);
      return () => link.listeners.delete(listener);
    },
    inboxPrefix: credentials.inboxPrefix ?? '_INBOX',
    async close() {
      if (!nc.isClosed()) await nc.drain();
    },
  };
}

/** The seed list: each entry split on commas, trimmed, empties dropped. */
function seedUrls(servers: string | readonly string[]): string[] {
  const list = typeof servers === 'string' ? [servers] : servers;
  return list
    .flatMap((s) => s.split(','))
    .map((s) => s.trim())
    .filter((s) => s !== '');
}

/** Logs every status change and keeps `link` current; reconnect listeners run after it. */
async function watchStatus(
  nc: NatsConnection,
  logger: Logger,
  link: { up: boolean; readonly listeners: Set<() => void> },
): Promise<void> {
  for await (const status of nc.status()) {
    if (status.type === 'disconnect') link.up = false;
    if (status.type === 'reconnect') {
      link.up = true;
      for (const listener of [...link.listeners]) {
        try {
          listener();
        } catch (err) {
          logger.warn({ err }, 'reconnect listener failed');
        }
      }
    }
    switch (status.type) {
      case 'disconnect':
      case 'reconnect':
      case 'ldm':
        logger.warn({ status: status.type, server: status.server }, `nats ${status.type}`);
        break;
      case 'error':
        logger.error({ status: status.type, err: status.error }, 'nats error');
        break;
      case 'reconnecting':
      case 'staleConnection':
      case 'forceReconnect':
      case 'slowConsumer':
      case 'close':
        logger.info({ status: status.type }, `nats ${status.type}`);
        break;
      case 'update':
      case 'ping':
        logger.debug({ status: status.type }, `nats ${status.type}`);
        break;
      default: {
        const never: never = status;
        logger.debug({ status: never }, 'nats status');
      }
    }
  }
}
