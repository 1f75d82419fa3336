import { BatchCoalescer } from './batch-coalescer.ts';
import type { ProjectionStore, StoredProjection } from './projection-store.ts';

/**
 * Coalesces row reads of many sessions into few `getMany` round trips, the read-side twin
 * of {@link WriteCoalescer}: when competing instances hand a shuffled session back and forth,
 * every hand-over needs the row, and one query per tick serves all of them.
 */
export class ReadCoalescer {
  private readonly batches: BatchCoalescer<string, StoredProjection | undefined>;

  constructor(store: ProjectionStore, maxInFlight: number, maxBatch: number) {
    this.batches = new BatchCoalescer(
      async (sessionIds) => {
        const rows = await store.getMany([...new Set(sessionIds)]);
        return (sessionId) => rows.get(sessionId);
      },
      maxInFlight,
      maxBatch,
    );
  }

  /** The stored row of `sessionId`, or `undefined`. */
  get(sessionId: string): Promise<StoredProjection | undefined> {
    return this.batches.submit(sessionId);
  }
}
