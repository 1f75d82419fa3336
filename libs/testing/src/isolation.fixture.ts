import { names } from '@agentwire/contracts';
import { type JetStreamManager, jetstream, jetstreamManager } from '@nats-io/jetstream';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createTestEnvironment, type TestEnvironment } from './environment.ts';

/** What one isolation file tells its peer about where its data lives. */
interface Whereabouts {
  readonly databaseUrl: string;
  readonly stream: string;
  readonly subject: string;
}

const ROWS = 3;
const PEER_WAIT_MS = 15_000;

/**
 * The harness proof of issue 2, shared by isolation-a and isolation-b: each file writes
 * rows into a table of the same name and messages onto the same subject tokens, in its own
 * database and prefix, then checks it sees only its own. While both run, each also finds
 * the other's data where the other said it is (so the data did exist at the same time) and
 * not in its own database or stream. The peers meet over core NATS request/reply.
 */
export function defineIsolationSuite(self: 'a' | 'b', peer: 'a' | 'b'): void {
  describe(`harness isolation (${self})`, () => {
    let env: TestEnvironment;
    let nc: NatsConnection;
    let jsm: JetStreamManager;
    let db: pg.Client;
    let where: Whereabouts;
    const meet = `awharness.${inject('agentwireHarness').runId}.isolation`;
    let peerDone: Promise<unknown>;

    beforeAll(async () => {
      env = await createTestEnvironment();
      nc = await connect({ servers: env.natsUrl });
      jsm = await jetstreamManager(nc);
      db = new pg.Client({ connectionString: env.databaseUrl });
      await db.connect();
      const n = names(env.prefix);
      where = {
        databaseUrl: env.databaseUrl,
        stream: n.eventsStream,
        subject: n.eventSubject('s1'),
      };
      // Answer the peer's questions about where our data is until we are torn down.
      nc.subscribe(`${meet}.${self}.where`, {
        callback: (_e, m) => {
          m.respond(JSON.stringify(where));
        },
      });
      peerDone = new Promise((resolve) =>
        nc.subscribe(`${meet}.${self}.done`, {
          max: 1,
          callback: (_e, m) => {
            m.respond();
            resolve(undefined);
          },
        }),
      );
    });

    afterAll(async () => {
      await db?.end();
      await jsm?.streams.delete(where.stream).catch(() => {});
      await nc?.drain();
      await env?.dispose();
    });

    it('writes a table and a stream that hold only its own data', async () => {
      await db.query('CREATE TABLE harness_marker (file text NOT NULL, n int NOT NULL)');
      for (let n = 1; n <= ROWS; n++) {
        await db.query('INSERT INTO harness_marker (file, n) VALUES ($1, $2)', [self, n]);
      }
      await jsm.streams.add({
        name: where.stream,
        subjects: [names(env.prefix).eventsStreamSubject],
      });
      const js = jetstream(nc);
      for (let n = 1; n <= ROWS; n++)
        await js.publish(where.subject, JSON.stringify({ file: self, n }));

      const rows = await db.query('SELECT file, n FROM harness_marker ORDER BY n');
      expect(rows.rows).toEqual([1, 2, 3].map((n) => ({ file: self, n })));
      expect(await readStream(jsm, where.stream)).toEqual(
        [1, 2, 3].map((n) => ({ file: self, n })),
      );
    });

    it('sees none of the other file, which runs at the same time', async (ctx) => {
      const other = await askPeer(nc, `${meet}.${peer}.where`);
      if (!other) {
        ctx.skip(
          `isolation-${peer} did not run at the same time (no answer in ${PEER_WAIT_MS} ms)`,
        );
        return;
      }
      expect(other.databaseUrl).not.toBe(env.databaseUrl);
      expect(other.stream).not.toBe(where.stream);
      // The peer's data exists where it says...
      const peerDb = new pg.Client({ connectionString: other.databaseUrl });
      await peerDb.connect();
      try {
        await expect.poll(async () => peerFiles(peerDb), { timeout: 10_000 }).toEqual([peer]);
      } finally {
        await peerDb.end();
      }
      await expect.poll(async () => (await readStream(jsm, other.stream)).length).toBe(ROWS);
      // ...and none of it is in ours.
      expect(await peerFiles(db)).toEqual([self]);
      const ours = await readStream(jsm, where.stream);
      expect(ours.every((m) => m.file === self)).toBe(true);
      expect(ours).toHaveLength(ROWS);
      await nc.request(`${meet}.${peer}.done`, '', { timeout: 10_000 }).catch(() => {});
      // Keep our data until the peer has checked it too (bounded, it may have finished).
      await Promise.race([peerDone, new Promise((r) => setTimeout(r, PEER_WAIT_MS))]);
    });
  });
}

async function peerFiles(client: pg.Client): Promise<string[]> {
  const r = await client
    .query<{ file: string }>('SELECT DISTINCT file FROM harness_marker ORDER BY file')
    .catch(() => ({ rows: [] as { file: string }[] }));
  return r.rows.map((row) => row.file);
}

async function readStream(
  jsm: JetStreamManager,
  stream: string,
): Promise<{ file: string; n: number }[]> {
  const info = await jsm.streams.info(stream).catch(() => undefined);
  if (!info) return [];
  const out: { file: string; n: number }[] = [];
  for (let seq = info.state.first_seq; seq <= info.state.last_seq && info.state.messages; seq++) {
    const m = await jsm.streams.getMessage(stream, { seq });
    if (m) out.push(m.json<{ file: string; n: number }>());
  }
  return out;
}

async function askPeer(nc: NatsConnection, subject: string): Promise<Whereabouts | undefined> {
  const deadline = Date.now() + PEER_WAIT_MS;
  while (Date.now() < deadline) {
    try {
      const reply = await nc.request(subject, '', { timeout: 500 });
      return reply.json<Whereabouts>();
    } catch {
      // No responder yet: the peer has not started. Poll again shortly, until the deadline.
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }
  return undefined;
}
