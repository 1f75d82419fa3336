import { z } from 'zod';

/**
 * The projection service's environment (DESIGN.md "Processes": zod-validated). Defaults suit
 * a developer machine with the servers of the README's Quick start.
 */
export const ProjectionConfig = z.object({
  NATS_URL: z.string().min(1).default('nats://127.0.0.1:4222'),
  DATABASE_URL: z.string().min(1).default('postgres://postgres@127.0.0.1:5432/postgres'),
  /** Subject prefix (DESIGN.md "Names"). */
  AW_PREFIX: z
    .string()
    .regex(/^[A-Za-z0-9_-]+$/)
    .default('aw'),
  /** Port of `/healthz`, `/readyz`, `/metrics` and the projection routes; 0 = ephemeral. */
  HTTP_PORT: z.coerce.number().int().min(0).max(65535).default(8083),
  /** Durable consumer name shared by all competing instances. */
  PROJECTION_CONSUMER: z
    .string()
    .regex(/^[A-Za-z0-9_-]+$/)
    .default('projection'),
  /** Identifies this instance in logs and metrics. */
  INSTANCE_ID: z.string().min(1).default(`projection-${process.pid}`),
  /** Deliveries the consumer may hold unacked across all instances (JetStream max_ack_pending). */
  MAX_ACK_PENDING: z.coerce.number().int().min(1).default(50_000),
  /** Most out-of-order events one instance holds in memory; beyond it the newest are naked. */
  MAX_HELD: z.coerce.number().int().min(1).default(50_000),
  /** How long the broker waits for an ack before redelivering (ms). */
  ACK_WAIT_MS: z.coerce.number().int().min(1_000).default(30_000),
  /**
   * How long an instance holds an out-of-order event before naking it (ms). While held, its
   * ack deadline is extended, so holding is cheaper than a nak, which would make the broker
   * redeliver it ahead of new messages.
   */
  HOLD_MS: z.coerce.number().int().min(10).default(60_000),
  /** Delay of a nak for an event still waiting for its predecessor (ms). */
  GAP_NAK_DELAY_MS: z.coerce.number().int().min(0).default(1_000),
  /**
   * How often a session with held events re-reads its row (ms): the fallback for a lost
   * commit notice, which normally wakes the instance holding the next event at once.
   */
  RECHECK_MS: z.coerce.number().int().min(5).default(1_000),
  /** A session waiting longer than this is reported stuck in metrics and logs (ms). */
  STUCK_AFTER_MS: z.coerce.number().int().min(100).default(30_000),
  /** Deliveries of an event that keeps failing for a retryable reason before dead-lettering. */
  MAX_DELIVER: z.coerce.number().int().min(1).default(10),
  /** Sessions applied and written concurrently by one instance. */
  CONCURRENCY: z.coerce.number().int().min(1).default(8),
  /** Postgres pool size. */
  DB_POOL_SIZE: z.coerce.number().int().min(1).default(10),
  /**
   * Session affinity (docs/decisions/0063): `on` applies each session in one live instance
   * (others forward it their deliveries); `off` lets whichever instance received an event
   * apply it, handing sessions over through commit notices and row re-reads.
   */
  SESSION_AFFINITY: z.enum(['on', 'off']).default('on'),
  /** How often an instance announces itself to the others (ms). */
  MEMBER_HEARTBEAT_MS: z.coerce.number().int().min(10).default(500),
  /** An instance not heard from for this long loses its sessions to the others (ms). */
  MEMBER_EXPIRE_MS: z.coerce.number().int().min(50).default(2_000),
  /** Sessions written per transaction by a rebuild. */
  REBUILD_BATCH_SESSIONS: z.coerce.number().int().min(1).default(200),
});
/** Parsed {@link ProjectionConfig}. */
export type ProjectionConfig = z.infer<typeof ProjectionConfig>;
