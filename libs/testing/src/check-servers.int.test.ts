import { describe, expect, inject, it } from 'vitest';
import { checkServers } from './check-servers.ts';
import { ServerUnreachableError } from './server-unreachable-error.ts';

// Nothing listens on port 1 of the loopback interface.
const DEAD_PG = 'postgres://postgres:secret@127.0.0.1:1/postgres';
const DEAD_NATS = 'nats://127.0.0.1:1';

async function failure(urls: { databaseUrl: string; natsUrl: string }) {
  const error = await checkServers(urls).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ServerUnreachableError);
  return error as ServerUnreachableError;
}

describe('checkServers', () => {
  it('passes for the servers of this run', async () => {
    await expect(
      checkServers({ databaseUrl: inject('databaseUrl'), natsUrl: inject('natsUrl') }),
    ).resolves.toBeUndefined();
  });

  it('names Postgres, the URL tried and the variables to set when Postgres is down', async () => {
    const error = await failure({ databaseUrl: DEAD_PG, natsUrl: inject('natsUrl') });
    expect(error.code).toBe('AW_TEST_SERVER_UNREACHABLE');
    expect(error.failures.map((f) => f.server)).toEqual(['postgres']);
    expect(error.message).toContain(
      'could not reach PostgreSQL at postgres://postgres:***@127.0.0.1:1/postgres',
    );
    expect(error.message).not.toContain('secret');
    expect(error.message).not.toContain('could not reach NATS');
    expect(error.message).toContain('set DATABASE_URL to a PostgreSQL server that answers');
    for (const variable of ['DATABASE_URL', 'NATS_URL', 'DOCKER_HOST']) {
      expect(error.message).toContain(variable);
    }
  });

  it('names NATS and NATS_URL when NATS is down', async () => {
    const error = await failure({ databaseUrl: inject('databaseUrl'), natsUrl: DEAD_NATS });
    expect(error.failures.map((f) => f.server)).toEqual(['nats']);
    expect(error.message).toContain('could not reach NATS (JetStream) at nats://127.0.0.1:1');
    expect(error.message).toMatch(/set NATS_URL to a NATS \(JetStream\) server that answers/);
    expect(error.message).toContain('DOCKER_HOST');
  });

  it('names both when both are down', async () => {
    const error = await failure({ databaseUrl: DEAD_PG, natsUrl: DEAD_NATS });
    expect(error.failures.map((f) => f.server)).toEqual(['postgres', 'nats']);
    expect(error.message).toMatch(/PostgreSQL at .* and NATS \(JetStream\) at /);
  });
});
