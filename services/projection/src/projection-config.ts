import { BaseServiceConfig, DatabaseConfig, token } from '@agentwire/service';
import { z } from 'zod';

const atLeast = (min: number, fallback: number) =>
  z.coerce.number().int().min(min).default(fallback);

/**
 * The projection service's environment (DESIGN.md "Processes": zod-validated): the shared
 * variables of `BaseServiceConfig` and `DatabaseConfig`, and its own `AW_*` settings.
 * `HTTP_PORT` also serves the projection routes. Defaults suit a developer machine with the
 * servers of the README's Quick start.
 */
export const ProjectionConfig = BaseServiceConfig.extend(DatabaseConfig.shape).extend({
  /** Durable consumer name shared by all competing instances. */
  AW_PROJECTION_DURABLE: token().default('projection'),
  /** Identifies this instance in logs, metrics, its NATS connection and Postgres sessions. */
  AW_INSTANCE_ID: z.string().min(1).default(`projection-${process.pid}`),
  /** Deliveries the consumer may hold unacked across all instances (JetStream max_ack_pending). */
  AW_PROJECTION_MAX_ACK_PENDING: atLeast(1, 50_000),
  /** Most out-of-order events one instance holds in memory; beyond it the newest are naked. */
  AW_PROJECTION_MAX_HELD: atLeast(1, 50_000),
  /**
   * How long the broker waits for an ack before redelivering (ms): a killed instance's
   * deliveries come back after it. Held deliveries are kept in progress three times per
   * wait, so it can be short (issue 9: failover within seconds).
   */
  AW_ACK_WAIT_MS: atLeast(1_000, 3_000),
  /**
   * How long an instance holds an out-of-order event before naking it (ms). While held, its
   * ack deadline is extended, so holding is cheaper than a nak, which would make the broker
   * redeliver it ahead of new messages.
   */
  AW_PROJECTION_HOLD_MS: atLeast(10, 60_000),
  /** Delay of a nak for an event still waiting for its predecessor (ms). */
  AW_PROJECTION_GAP_NAK_DELAY_MS: atLeast(0, 1_000),
  /**
   * How often a session with held events re-reads its row (ms): the fallback for a lost
   * commit notice, which normally wakes the instance holding the next event at once.
   */
  AW_PROJECTION_RECHECK_MS: atLeast(5, 1_000),
  /** A session waiting longer than this is reported stuck in metrics and logs (ms). */
  AW_PROJECTION_STUCK_AFTER_MS: atLeast(100, 30_000),
  /** Deliveries of an event that keeps failing for a retryable reason before dead-lettering. */
  AW_MAX_DELIVER: atLeast(1, 10),
  /** Sessions applied and written concurrently by one instance. */
  AW_PROJECTION_CONCURRENCY: atLeast(1, 8),
  /** Postgres connection pool size. */
  AW_PG_POOL_SIZE: atLeast(1, 10),
  /**
   * Session affinity (docs/decisions/0063): `on` applies each session in one live instance
   * (others forward it their deliveries); `off` lets whichever instance received an event
   * apply it, handing sessions over through commit notices and row re-reads.
   */
  AW_PROJECTION_SESSION_AFFINITY: z.enum(['on', 'off']).default('on'),
  /** How often an instance announces itself to the others (ms). */
  AW_PROJECTION_HEARTBEAT_MS: atLeast(10, 500),
  /** An instance not heard from for this long loses its sessions to the others (ms). */
  AW_PROJECTION_MEMBER_EXPIRE_MS: atLeast(50, 2_000),
  /** Sessions written per transaction by a rebuild. */
  AW_PROJECTION_REBUILD_BATCH_SESSIONS: atLeast(1, 200),
});
export type ProjectionConfig = z.infer<typeof ProjectionConfig>;
