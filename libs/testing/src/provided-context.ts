import type { Capability } from './postgres-server.ts';

/** How the run got its servers, handed from the global setup to the test files. */
export interface HarnessInfo {
  /** `containers`: Testcontainers started them; `local`: the servers at the URLs. */
  readonly mode: 'containers' | 'local';
  /** Unique per run: lets test files of one run find each other (subject token). */
  readonly runId: string;
  /** Base URL of the global setup's control channel (see control-channel.ts). */
  readonly controlUrl: string;
  /** Whether a test file can get a Postgres of its own (to restart it), or why not. */
  readonly dedicatedPostgres: Capability;
  /** Whether the run's shared Postgres can be restarted, or why not. */
  readonly sharedPostgresRestart: Capability;
}

declare module 'vitest' {
  export interface ProvidedContext {
    /** Superuser URL of the run's Postgres (maintenance database). */
    databaseUrl: string;
    /** URL of the run's NATS server, JetStream enabled. */
    natsUrl: string;
    /** How the servers were found and what can be done with them. */
    agentwireHarness: HarnessInfo;
  }
}
