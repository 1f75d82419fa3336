import { BatchCoalescer } from './batch-coalescer.ts';
import type { CasWrite, ProjectionStore } from './projection-store.ts';

/**
 * Coalesces the compare-and-set writes of many sessions into few round trips: a write that
 * arrives while `maxInFlight` statements are running waits and leaves with the next batch
 * (up to `maxBatch` rows). At low load each write goes alone (no added latency); under load
 * one statement carries many sessions (issue 5: "batching writes").
 */
export class WriteCoalescer {
  private readonly batches: BatchCoalescer<CasWrite, boolean>;

  constructor(store: ProjectionStore, maxInFlight: number, maxBatch: number) {
    this.batches = new BatchCoalescer(
      async (writes) => {
        const written = await store.compareAndSet(writes);
        return (write) => written.has(write.sessionId);
      },
      maxInFlight,
      maxBatch,
    );
  }

  /** Resolves `true` when written, `false` when the row's last sequence had moved. */
  write(write: CasWrite): Promise<boolean> {
    return this.batches.submit(write);
  }
}
