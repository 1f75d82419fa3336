import type { ProjectionStore, StoredProjection } from './projection-store.ts';

interface Pending {
  readonly sessionId: string;
  readonly resolve: (row: StoredProjection | undefined) => void;
  readonly reject: (error: unknown) => void;
}

/**
 * Coalesces row reads of many sessions into few `getMany` round trips, the read-side twin
 * of {@link WriteCoalescer}: when competing instances hand a shuffled session back and forth,
 * every hand-over needs the row, and one query per tick serves all of them.
 */
export class ReadCoalescer {
  private readonly queue: Pending[] = [];
  private inFlight = 0;
  private readonly store: ProjectionStore;
  private readonly maxInFlight: number;
  private readonly maxBatch: number;

  constructor(store: ProjectionStore, maxInFlight: number, maxBatch: number) {
    this.store = store;
    this.maxInFlight = maxInFlight;
    this.maxBatch = maxBatch;
  }

  /** The stored row of `sessionId`, or `undefined`. */
  get(sessionId: string): Promise<StoredProjection | undefined> {
    return new Promise((resolve, reject) => {
      this.queue.push({ sessionId, resolve, reject });
      this.pump();
    });
  }

  private pump(): void {
    while (this.inFlight < this.maxInFlight && this.queue.length > 0) {
      const batch = this.queue.splice(0, this.maxBatch);
      this.inFlight += 1;
      this.store
        .getMany([...new Set(batch.map((p) => p.sessionId))])
        .then(
          (rows) => {
            for (const p of batch) p.resolve(rows.get(p.sessionId));
          },
          (error: unknown) => {
            for (const p of batch) p.reject(error);
          },
        )
        .finally(() => {
          this.inFlight -= 1;
          this.pump();
        });
    }
  }
}
