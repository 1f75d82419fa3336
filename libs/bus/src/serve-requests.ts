import type { Logger } from '@agentwire/telemetry';
import type { Msg, NatsConnection } from '@nats-io/transport-node';

/** Options of {@link serveRequests}. */
export interface ServeRequestsOptions {
  /** The subject or filter answered. */
  readonly subject: string;
  /** The queue group every instance of the service joins, so they share the requests. */
  readonly queue: string;
  /** Names the service in its log lines (`query`, `title`). */
  readonly what: string;
  readonly logger: Logger;
  /** Answers one request; a throw is logged, never takes the subscription down. */
  readonly handle: (msg: Msg) => Promise<void>;
}

/** Requests being answered, and the drain that ends them. */
export interface RequestServer {
  /** The subject the subscription took. */
  readonly subject: string;
  /** Requests being answered now. */
  inFlight(): number;
  /** Stops taking requests and waits for those in flight (a service's drain). */
  drain(): Promise<void>;
}

/**
 * Answers requests on `subject` in a queue group (the query service and the title sidecar,
 * DESIGN.md "The read side" and flow 4): each request runs as its own task, so a slow one
 * holds no other up, and the drain waits for every task it started.
 */
export function serveRequests(nc: NatsConnection, o: ServeRequestsOptions): RequestServer {
  const inFlight = new Set<Promise<void>>();
  const subscription = nc.subscribe(o.subject, {
    queue: o.queue,
    callback: (error, msg) => {
      if (error !== null) {
        o.logger.error({ err: error }, `${o.what} subscription error`);
        return;
      }
      const task = o.handle(msg).catch((err: unknown) => {
        o.logger.error({ err }, `${o.what} request failed unexpectedly`);
      });
      inFlight.add(task);
      void task.finally(() => inFlight.delete(task));
    },
  });
  return {
    subject: subscription.getSubject(),
    inFlight: () => inFlight.size,
    async drain() {
      await subscription.drain();
      while (inFlight.size > 0) await Promise.allSettled([...inFlight]);
    },
  };
}
