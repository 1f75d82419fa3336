import { createDatabase } from '@agentwire/store';
import { sql } from 'kysely';

/**
 * Creates database `name` on the server of `adminUrl` and returns its URL, for the bench
 * (outside vitest, where `@agentwire/testing`'s per-file environment is not available).
 * `name` must be a plain identifier.
 */
export async function createScratchDatabase(adminUrl: string, name: string): Promise<string> {
  if (!/^[a-z_][a-z0-9_]*$/.test(name)) throw new TypeError(`not a plain database name: ${name}`);
  const admin = createDatabase(adminUrl, { poolSize: 1 });
  try {
    await sql.raw(`create database ${name}`).execute(admin);
  } finally {
    await admin.destroy();
  }
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return url.toString();
}

/** Drops a database made by {@link createScratchDatabase}, cutting its connections. */
export async function dropScratchDatabase(adminUrl: string, name: string): Promise<void> {
  if (!/^[a-z_][a-z0-9_]*$/.test(name)) throw new TypeError(`not a plain database name: ${name}`);
  const admin = createDatabase(adminUrl, { poolSize: 1 });
  try {
    await sql.raw(`drop database if exists ${name} with (force)`).execute(admin);
  } finally {
    await admin.destroy();
  }
}
