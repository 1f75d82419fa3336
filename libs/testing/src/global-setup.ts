import type { TestProject } from 'vitest/node';

/**
 * Vitest global setup for the `int` project: finds one Postgres and one NATS for the whole
 * run and hands their URLs to the test files (`inject('databaseUrl')`, `inject('natsUrl')`).
 *
 * Minimal version: uses `DATABASE_URL` / `NATS_URL` (or the local defaults).
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const databaseUrl = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
  const natsUrl = process.env.NATS_URL ?? 'nats://127.0.0.1:4222';
  project.provide('databaseUrl', databaseUrl);
  project.provide('natsUrl', natsUrl);
  return async () => {};
}

declare module 'vitest' {
  export interface ProvidedContext {
    databaseUrl: string;
    natsUrl: string;
  }
}
