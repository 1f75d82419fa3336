import { BaseServiceConfig, DatabaseConfig, positiveInt } from '@agentwire/service';
import { z } from 'zod';

/**
 * The query service's environment (DESIGN.md "Processes": zod-validated): the shared
 * variables of `BaseServiceConfig` and `DatabaseConfig`, and its own `AW_*` settings. Every
 * instance with the same `AW_PREFIX` joins the `query` queue group and shares the requests.
 */
export const QueryConfig = BaseServiceConfig.extend(DatabaseConfig.shape).extend({
  /** Connection and application name; defaults to `query-<pid>`. */
  AW_INSTANCE_ID: z.string().min(1).optional(),
  /** Postgres connection pool size. */
  AW_PG_POOL_SIZE: positiveInt(8),
  /** A request body larger than this is answered `invalid_request` unread. */
  AW_QUERY_MAX_REQUEST_BYTES: positiveInt(64 * 1024),
});
/** The query service's parsed configuration. */
export type QueryConfig = z.infer<typeof QueryConfig>;
