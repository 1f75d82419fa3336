/**
 * A Postgres server the harness controls: the run's shared one, or one dedicated to a test
 * file that restarts it (issue 4's "Postgres restarted mid-stream").
 */
/** @internal Exported for its tests. */
export interface PostgresServer {
  /** Superuser URL of the server's maintenance database. */
  readonly adminUrl: string;
  /** What it is, for logs: an image name or a data directory. */
  readonly description: string;
  /** Restarts the server on the same host and port; resolves once it accepts queries. */
  restart(): Promise<void>;
  /** Stops the server and frees what it used. */
  stop(): Promise<void>;
}

/** Whether an operation is possible here, and why not. */
export type Capability = { readonly ok: true } | { readonly ok: false; readonly reason: string };
