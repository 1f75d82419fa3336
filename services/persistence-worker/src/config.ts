import { BaseServiceConfig, DatabaseConfig, positiveInt, token } from '@agentwire/service';
import type { z } from 'zod';

/**
 * The persistence worker's environment (DESIGN.md "Processes": zod-validated): the shared
 * variables of `BaseServiceConfig` and `DatabaseConfig`, and its own `AW_*` settings. Every
 * instance with the same `AW_PREFIX` shares the same durable consumers, so any number of
 * them split the work.
 */
export const WorkerConfig = BaseServiceConfig.extend(DatabaseConfig.shape).extend({
  /** Messages fetched per pull, and applied in one transaction. */
  AW_PULL_BATCH_SIZE: positiveInt(1024),
  /**
   * Batches of one consumer committing at once, each in its own transaction; the two
   * consumers together use up to twice this many pool connections.
   */
  AW_BATCHES_IN_FLIGHT: positiveInt(2),
  /** Deliveries of a failing message before it is dead-lettered. */
  AW_MAX_DELIVER: positiveInt(5),
  /** A message body larger than this is dead-lettered unread. */
  AW_MAX_MESSAGE_BYTES: positiveInt(1024 * 1024),
  /**
   * Time the broker waits for an ack before redelivering a killed worker's messages. Live
   * workers keep theirs in progress three times per wait, so it can be short.
   */
  AW_ACK_WAIT_MS: positiveInt(3_000),
  /** Postgres connection pool size. */
  AW_PG_POOL_SIZE: positiveInt(4),
  /** Durable consumer names; change only to run an independent second set. */
  AW_EVENTS_DURABLE: token().default('persistence-events'),
  AW_COMMANDS_DURABLE: token().default('persistence-commands'),
});
export type WorkerConfig = z.infer<typeof WorkerConfig>;
