import type { Logger } from '@agentwire/telemetry';
import type { ApplierOptions } from './applier-options.ts';
import type { ApplierStats } from './applier-stats.ts';

/** What the parts of {@link ProjectionApplier} share: its options, logger and counters. */
export interface ApplierContext<P> {
  readonly options: ApplierOptions<P>;
  readonly logger: Logger;
  readonly stats: ApplierStats;
  /** Records that a session waits at `seq`, which was dead-lettered with `code`. */
  markBlocked(sessionId: string, seq: number, code: string): void;
}
