import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { names } from '@agentwire/contracts';
import {
  findNatsServer,
  type NatsServerProcess,
  natsServerSupport,
  startNatsServer,
} from '@agentwire/testing';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BlobStore } from '../blob-store.ts';
import { connectBus } from '../connect-bus.ts';
import { provision } from '../provision.ts';
import { natsAuthorizationConfig, passwordVariable } from './nats-config.ts';
import { NATS_ROLES, type NatsRole, roleInboxPrefix } from './nats-roles.ts';

const run = promisify(execFile);
const support = natsServerSupport();
const n = names('perm');
const passwords = Object.fromEntries(
  NATS_ROLES.map((r) => [r, randomBytes(9).toString('hex')]),
) as Record<NatsRole, string>;

/** The permission violation somewhere in `error`'s cause chain. */
function violation(error: unknown): { operation: string; subject: string } | undefined {
  for (let e = error; e instanceof Error; e = e.cause) {
    if (e.name === 'PermissionViolationError')
      return e as unknown as { operation: string; subject: string };
  }
  return undefined;
}

/** Two tenants with direct NATS access, each on its own prefix (docs/decisions/0146). */
const TENANTS = [
  { tenant: 'ta', prefix: 'ta', password: randomBytes(9).toString('hex') },
  { tenant: 'tb', prefix: 'tb', password: randomBytes(9).toString('hex') },
];

type Attempt = { op: 'publish' | 'subscribe'; subject: string };

/** Each role, one thing outside its permissions that another role may do. */
const OUTSIDE: Record<NatsRole, Attempt[]> = {
  runtime: [
    { op: 'subscribe', subject: n.projectionGet },
    { op: 'publish', subject: `${n.prefix}.projection.applied.s1` },
  ],
  'persistence-worker': [{ op: 'publish', subject: n.eventSubject('s1') }],
  projection: [{ op: 'publish', subject: n.commandSubject('s1') }],
  'title-sidecar': [{ op: 'publish', subject: n.runtimeOpen }],
  query: [{ op: 'publish', subject: n.runtimeOp('s1', 'prompt') }],
  gateway: [{ op: 'publish', subject: `$KV.${n.leaseBucket}.s1` }],
  frontend: [
    { op: 'publish', subject: n.eventSubject('s1') },
    { op: 'publish', subject: `$JS.API.STREAM.PURGE.${n.eventsStream}` },
    { op: 'publish', subject: `$JS.API.CONSUMER.CREATE.${n.commandsStream}` },
    { op: 'subscribe', subject: `${roleInboxPrefix('gateway')}.>` },
    { op: 'subscribe', subject: n.sessionFilter('s1') },
  ],
};

async function attempt(nc: NatsConnection, a: Attempt): Promise<unknown> {
  if (a.op === 'subscribe') return nc.subscribe(a.subject).closed;
  return nc.request(a.subject, '', { timeout: 5_000 }).catch((error: unknown) => error);
}

describe.skipIf(!support.ok)('NATS users from the permission table', () => {
  let server: NatsServerProcess;
  let dir: string;
  const as = (role: NatsRole) => ({ NATS_USER: role, NATS_PASSWORD: passwords[role] });

  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'aw-perm-'));
    const configFile = path.join(dir, 'users.conf');
    await writeFile(configFile, natsAuthorizationConfig(n, passwords, TENANTS));
    server = await startNatsServer({ configFile });
    const runtime = await connectBus({
      servers: server.url,
      name: 'perm-runtime',
      auth: as('runtime'),
    });
    await provision(runtime.nc, n);
    await runtime.close();
  });
  afterAll(async () => {
    await server?.dispose();
    await rm(dir, { recursive: true, force: true });
  });

  it('the deploy files are valid server configuration', async () => {
    const root = fileURLToPath(new URL('../../../../deploy/nats/', import.meta.url));
    const env = {
      ...process.env,
      NATS_SERVER_NAME: 'n1',
      ...Object.fromEntries(NATS_ROLES.map((r) => [passwordVariable(r), 'x'])),
    };
    for (const file of ['users.conf', 'cluster.conf']) {
      const { stderr } = await run(
        findNatsServer() as string,
        ['-t', '-c', path.join(root, file)],
        { env },
      );
      expect(stderr).toContain('is valid');
    }
  });

  it('turns away a connection without credentials or with a wrong password', async () => {
    await expect(connect({ servers: server.url, reconnect: false })).rejects.toThrow(
      /Authorization/i,
    );
    await expect(
      connect({ servers: server.url, reconnect: false, user: 'frontend', pass: 'wrong' }),
    ).rejects.toThrow(/Authorization/i);
  });

  it.each(NATS_ROLES)(
    'refuses %s outside its permissions with a permission violation',
    async (role) => {
      const bus = await connectBus({ servers: server.url, name: `perm-${role}`, auth: as(role) });
      try {
        for (const a of OUTSIDE[role]) {
          const seen = violation(await attempt(bus.nc, a));
          expect(seen, `${role} ${a.op} ${a.subject}`).toMatchObject({
            operation: a.op === 'publish' ? 'publish' : 'subscription',
            subject: a.subject,
          });
        }
        // The connection itself still works for what the role may do.
        expect((await bus.jsm.getAccountInfo()).streams).toBeGreaterThanOrEqual(4);
      } finally {
        await bus.close();
      }
    },
  );

  it('lets the query role store an export in the blob store, which the gateway reads back', async () => {
    const logged = server.lines.length;
    const connected = await Promise.all(
      (['runtime', 'query', 'gateway'] as const).map((role) =>
        connectBus({ servers: server.url, name: `perm-${role}`, auth: as(role) }),
      ),
    );
    const [runtime, query, gateway] = connected;
    try {
      if (runtime === undefined || query === undefined || gateway === undefined) return;
      // The runtimes make the bucket; the query role adds a large file to it.
      await BlobStore.create(runtime.nc, n).ready();
      const file = `{"format":"agentwire-transcript"}\n${'x'.repeat(300 * 1024)}`;
      const ref = await BlobStore.reader(query.nc, n).put(file);
      expect(await BlobStore.reader(gateway.nc, n).get(ref)).toBe(file);
      expect(server.lines.slice(logged).filter((l) => /Violation/i.test(l))).toEqual([]);
    } finally {
      for (const bus of connected) await bus.close();
    }
  });

  it('lets a frontend upload an import for the runtime, and keeps it out of the blob store', async () => {
    const connected = await Promise.all(
      (['runtime', 'frontend'] as const).map((role) =>
        connectBus({ servers: server.url, name: `perm-up-${role}`, auth: as(role) }),
      ),
    );
    const [runtime, frontend] = connected;
    try {
      if (runtime === undefined || frontend === undefined) return;
      await BlobStore.create(runtime.nc, n).ready();
      const logged = server.lines.length;
      const file = `{"format":"agentwire-transcript"}\n${'y'.repeat(300 * 1024)}`;
      const ref = await BlobStore.uploads(frontend.nc, n).put(file);
      expect(await BlobStore.uploads(runtime.nc, n).get(ref)).toBe(file);
      expect(server.lines.slice(logged).filter((l) => /Violation/i.test(l))).toEqual([]);
      await expect(BlobStore.reader(frontend.nc, n).put(`${file}!`)).rejects.toThrow(
        /storing a blob/,
      );
    } finally {
      for (const bus of connected) await bus.close();
    }
  });

  it("keeps a tenant's frontend user out of another tenant's subjects", async () => {
    const ta = names('ta');
    const [, b] = TENANTS;
    const bus = await connectBus({
      servers: server.url,
      name: 'tenant-b',
      auth: { NATS_USER: 'frontend-tb', NATS_PASSWORD: b?.password },
    });
    try {
      const intoA: Attempt[] = [
        {
          op: 'publish',
          subject: `$JS.API.CONSUMER.CREATE.${ta.eventsStream}.c1.${ta.sessionFilter('s1')}`,
        },
        { op: 'publish', subject: ta.runtimeOp('s1', 'prompt') },
        { op: 'publish', subject: ta.eventSubject('s1') },
        { op: 'publish', subject: ta.projectionGet },
        { op: 'subscribe', subject: `${roleInboxPrefix('frontend-ta')}.>` },
      ];
      for (const a of intoA) {
        expect(violation(await attempt(bus.nc, a)), `${a.op} ${a.subject}`).toMatchObject({
          subject: a.subject,
        });
      }
      // Its own tenant's subjects are allowed: nobody answers, and nothing is refused.
      const own = await attempt(bus.nc, { op: 'publish', subject: names('tb').projectionGet });
      expect(violation(own)).toBeUndefined();
    } finally {
      await bus.close();
    }
  });
});
