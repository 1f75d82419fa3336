import type { CasWrite, ProjectionStore } from './projection-store.ts';

interface Pending {
  readonly write: CasWrite;
  readonly resolve: (written: boolean) => void;
  readonly reject: (error: unknown) => void;
}

/**
 * Coalesces the compare-and-set writes of many sessions into few round trips: a write that
 * arrives while `maxInFlight` statements are running waits and leaves with the next batch
 * (up to `maxBatch` rows). At low load each write goes alone (no added latency); under load
 * one statement carries many sessions (issue 5: "batching writes").
 */
export class WriteCoalescer {
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

  /** Resolves `true` when written, `false` when the row's last sequence had moved. */
  write(write: CasWrite): Promise<boolean> {
    return new Promise((resolve, reject) => {
      this.queue.push({ write, resolve, reject });
      this.pump();
    });
  }

  private pump(): void {
    while (this.inFlight < this.maxInFlight && this.queue.length > 0) {
      const batch = this.queue.splice(0, this.maxBatch);
      this.inFlight += 1;
      this.store
        .compareAndSet(batch.map((p) => p.write))
        .then(
          (written) => {
            for (const p of batch) p.resolve(written.has(p.write.sessionId));
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
