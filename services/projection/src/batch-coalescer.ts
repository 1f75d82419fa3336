interface Pending<In, Out> {
  readonly input: In;
  readonly resolve: (output: Out) => void;
  readonly reject: (error: unknown) => void;
}

/**
 * Runs one batched operation for many callers: a call that arrives while `maxInFlight`
 * batches are running waits and leaves with the next batch (up to `maxBatch` inputs). At low
 * load each call goes alone (no added latency); under load one round trip serves many.
 * `run` returns, for the batch, a function giving each input's own result.
 */
export class BatchCoalescer<In, Out> {
  private readonly queue: Pending<In, Out>[] = [];
  private inFlight = 0;
  private readonly run: (inputs: readonly In[]) => Promise<(input: In) => Out>;
  private readonly maxInFlight: number;
  private readonly maxBatch: number;

  constructor(
    run: (inputs: readonly In[]) => Promise<(input: In) => Out>,
    maxInFlight: number,
    maxBatch: number,
  ) {
    this.run = run;
    this.maxInFlight = maxInFlight;
    this.maxBatch = maxBatch;
  }

  /** Queues `input` and resolves with its result once its batch has run. */
  submit(input: In): Promise<Out> {
    return new Promise((resolve, reject) => {
      this.queue.push({ input, resolve, reject });
      this.pump();
    });
  }

  private pump(): void {
    while (this.inFlight < this.maxInFlight && this.queue.length > 0) {
      const batch = this.queue.splice(0, this.maxBatch);
      this.inFlight += 1;
      this.run(batch.map((p) => p.input))
        .then(
          (resultOf) => {
            for (const p of batch) p.resolve(resultOf(p.input));
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
