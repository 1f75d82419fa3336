import path from 'node:path';

/** What `npm start` was asked to do, from its arguments and environment. */
export interface StartOptions {
  readonly root: string;
  /** `AW_STATE_DIR` (default `<root>/.agentwire`): logs, workspace and embedded servers' data. */
  readonly stateDir: string;
  readonly logDir: string;
  readonly workspace: string;
  readonly demoOnly: boolean;
  /** `--fresh`: wipe the data of the servers `npm start` runs itself before starting them. */
  readonly fresh: boolean;
  readonly prefix: string;
  readonly gatewayPort: string;
  /** `NATS_URL` when set: then that server is used and never replaced by a local one. */
  readonly natsUrl: string | undefined;
  /** `DATABASE_URL` when set: likewise. */
  readonly databaseUrl: string | undefined;
  /**
   * Where to look for servers when the variables above are unset
   * (`AW_DEFAULT_NATS_URL`, `AW_DEFAULT_DATABASE_URL`; default the usual local ports).
   * Tests point them at closed ports to play a bare machine.
   */
  readonly defaultNatsUrl: string;
  readonly defaultDatabaseUrl: string;
}

/** Reads {@link StartOptions}; `root` is the checkout. */
export function readStartOptions(
  root: string,
  argv: readonly string[],
  env: NodeJS.ProcessEnv,
): StartOptions {
  const stateDir = path.resolve(env.AW_STATE_DIR ?? path.join(root, '.agentwire'));
  return {
    root,
    stateDir,
    logDir: path.join(stateDir, 'logs'),
    workspace: env.AW_WORKSPACE_ROOT ?? path.join(stateDir, 'workspace'),
    demoOnly: argv.includes('--demo-only'),
    fresh: argv.includes('--fresh'),
    prefix: env.AW_PREFIX ?? 'aw',
    gatewayPort: env.HTTP_PORT ?? '8080',
    natsUrl: env.NATS_URL || undefined,
    databaseUrl: env.DATABASE_URL || undefined,
    defaultNatsUrl: env.AW_DEFAULT_NATS_URL ?? 'nats://127.0.0.1:4222',
    defaultDatabaseUrl:
      env.AW_DEFAULT_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/agentwire',
  };
}
