/** Progress of a rebuild (issue 5: "in batches, with progress reported"). */
export interface RebuildProgress {
  /** Events read from the stream so far. */
  readonly eventsRead: number;
  /** Messages in the scanned range of the stream (known once the scan starts). */
  readonly eventsTotal: number;
  /** Sessions whose rebuilt projection is stored. */
  readonly sessionsWritten: number;
  /** Sessions found in the scanned range. */
  readonly sessionsTotal: number;
}

/** One rebuild job as reported by `GET /rebuild/:jobId`. */
export interface RebuildJob extends RebuildProgress {
  readonly id: string;
  /** The one session rebuilt, or `null` for all sessions. */
  readonly sessionId: string | null;
  readonly state: 'running' | 'done' | 'failed';
  readonly startedAt: number;
  readonly finishedAt: number | null;
  readonly error: string | null;
}

/** Runs a rebuild, reporting progress; resolves when every session is written. */
export type RunRebuild = (
  sessionId: string | undefined,
  onProgress: (progress: RebuildProgress) => void,
) => Promise<RebuildProgress>;

const emptyProgress: RebuildProgress = {
  eventsRead: 0,
  eventsTotal: 0,
  sessionsWritten: 0,
  sessionsTotal: 0,
};

/**
 * The rebuild jobs of one instance: starts a rebuild in the background and keeps its
 * progress for `GET /rebuild/:jobId`. Ids and time come from outside (STYLE.md).
 */
export class RebuildJobs {
  private readonly jobs = new Map<string, RebuildJob>();
  private readonly running = new Set<Promise<unknown>>();
  private readonly run: RunRebuild;
  private readonly newId: () => string;
  private readonly now: () => number;

  constructor(run: RunRebuild, newId: () => string, now: () => number) {
    this.run = run;
    this.newId = newId;
    this.now = now;
  }

  /** Starts rebuilding one session (or all when `sessionId` is undefined). */
  start(sessionId: string | undefined): RebuildJob {
    const id = this.newId();
    const job: RebuildJob = {
      id,
      sessionId: sessionId ?? null,
      state: 'running',
      startedAt: this.now(),
      finishedAt: null,
      error: null,
      ...emptyProgress,
    };
    this.jobs.set(id, job);
    const update = (patch: Partial<RebuildJob>) => {
      const current = this.jobs.get(id);
      if (current !== undefined) this.jobs.set(id, { ...current, ...patch });
    };
    const promise = this.run(sessionId, (progress) => update(progress)).then(
      (progress) => update({ ...progress, state: 'done', finishedAt: this.now() }),
      (error: unknown) =>
        update({
          state: 'failed',
          finishedAt: this.now(),
          error: error instanceof Error ? error.message : String(error),
        }),
    );
    this.running.add(promise);
    void promise.finally(() => this.running.delete(promise));
    return job;
  }

  /** The job with this id, or `undefined`. */
  get(id: string): RebuildJob | undefined {
    return this.jobs.get(id);
  }

  /** Waits for every running job (used by the drain). */
  async settle(): Promise<void> {
    await Promise.allSettled([...this.running]);
  }
}
