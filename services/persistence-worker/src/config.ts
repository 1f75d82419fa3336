import { DEFAULT_PREFIX } from '@agentwire/contracts';
import { z } from 'zod';

const positiveInt = (fallback: number) => z.coerce.number().int().positive().default(fallback);

/**
 * The persistence worker's environment (DESIGN.md "Processes": zod-validated). Every
 * instance with the same `AW_PREFIX` shares the same durable consumers, so any number of
 * them split the work.
 */
export const WorkerConfig = z.object({
  NATS_URL: z.string().min(1).default('nats://127.0.0.1:4222'),
  DATABASE_URL: z.string().regex(/^postgres(ql)?:\/\//, 'must be a postgres:// URL'),
  /** Subject prefix (DESIGN.md "Names"). */
  AW_PREFIX: z
    .string()
    .regex(/^[A-Za-z0-9_-]+$/, 'must be one subject token')
    .default(DEFAULT_PREFIX),
  /** HTTP port of /healthz, /readyz, /metrics; 0 picks an ephemeral port (logged). */
  HTTP_PORT: z.coerce.number().int().min(0).max(65535).default(0),
  HTTP_HOST: z.string().min(1).default('0.0.0.0'),
  /** Messages fetched per pull, and applied in one transaction. */
  AW_PULL_BATCH_SIZE: positiveInt(512),
  /** Deliveries of a failing message before it is dead-lettered. */
  AW_MAX_DELIVER: positiveInt(5),
  /** A message body larger than this is dead-lettered unread. */
  AW_MAX_MESSAGE_BYTES: positiveInt(1024 * 1024),
  /** Time the broker waits for an ack before redelivering (a killed worker's messages). */
  AW_ACK_WAIT_MS: positiveInt(30_000),
  /** Postgres connection pool size. */
  AW_PG_POOL_SIZE: positiveInt(4),
  /** Durable consumer names; change only to run an independent second set. */
  AW_EVENTS_DURABLE: z
    .string()
    .regex(/^[A-Za-z0-9_-]+$/)
    .default('persistence-events'),
  AW_COMMANDS_DURABLE: z
    .string()
    .regex(/^[A-Za-z0-9_-]+$/)
    .default('persistence-commands'),
  /** How long SIGTERM may take to drain before the process exits 1. */
  AW_DRAIN_TIMEOUT_MS: positiveInt(20_000),
});
/** The persistence worker's parsed configuration. */
export type WorkerConfig = z.infer<typeof WorkerConfig>;
