/**
 * Group `gateway` (issue 14): `gateway.history_page_ms`, one page of 100 messages with their
 * parts from a 10,000-message session, through the whole read path: HTTP to the gateway,
 * NATS to the query service, Postgres and back (median of 300 pages at positions spread
 * over the session, each read with the cursor a walk from the end gave, after 30 warm-up
 * pages), against the local servers (`DATABASE_URL` / `NATS_URL` or the defaults), in a
 * database and subject prefix of its own. `gateway.history_first_page_ms` is the page from
 * the end, read without a cursor (median of 30): within one run it is read back from the
 * leaf (docs/decisions/0249), else it computes the session's active chain, which a cursor
 * then carries (docs/decisions/0248). Then the SSE fanout figures of
 * gateway-fanout.ts.
 */
import { randomBytes } from 'node:crypto';
import { connectBus, QueryClient, RuntimeClient } from '@agentwire/bus';
import { names } from '@agentwire/contracts';
import { buildApp } from '@agentwire/gateway';
import { createScratchDatabase, dropScratchDatabase } from '@agentwire/persistence-worker/testing';
import { QueryConfig, startQueryService } from '@agentwire/query';
import { seedLongSession } from '@agentwire/query/testing';
import { createDatabase, migrate } from '@agentwire/store';
import { sql } from 'kysely';
import type { Figure } from '../figure.ts';
import type { BenchGroup } from '../group.ts';
import { percentile } from '../stats.ts';
import { fanoutFigures } from './gateway-fanout.ts';

const ADMIN_URL = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const NATS_URL = process.env.NATS_URL ?? 'nats://127.0.0.1:4222';
const MESSAGES = 10_000;
const PAGE = 100;
const WARMUP = 30;
const SAMPLES = 300;
const FIRST_PAGES = 30;

const log = (msg: string) => console.error(`[gateway] ${msg}`);

async function historyPageTimes(): Promise<{ pages: number[]; first: number[] }> {
  const tag = randomBytes(4).toString('hex');
  const dbName = `aw_bench_gateway_${tag}`;
  const prefix = `bgw${tag}`;
  const databaseUrl = await createScratchDatabase(ADMIN_URL, dbName);
  const db = createDatabase(databaseUrl, { poolSize: 2 });
  const query = await startQueryService(
    QueryConfig.parse({
      NATS_URL,
      DATABASE_URL: databaseUrl,
      AW_PREFIX: prefix,
      HTTP_HOST: '127.0.0.1',
      LOG_LEVEL: 'silent',
    }),
  );
  const bus = await connectBus({ servers: NATS_URL, name: 'bench-gateway' });
  const n = names(prefix);
  const app = buildApp({
    backend: new RuntimeClient(bus, n),
    query: new QueryClient(bus, n),
    rateLimitPerMinute: 1_000_000,
  });
  try {
    await migrate(db);
    const sid = `bench-history-${tag}`;
    log(`seeding ${MESSAGES} messages`);
    await seedLongSession(db, sid, MESSAGES);
    await sql`analyze messages, parts`.execute(db);
    const address = await app.listen({ port: 0, host: '127.0.0.1' });
    const page = async (cursor: string | null) => {
      const url = `${address}/sessions/${sid}/history?limit=${PAGE}${cursor === null ? '' : `&cursor=${cursor}`}`;
      const res = await fetch(url);
      const body = (await res.json()) as { messages: unknown[]; older: string | null };
      if (res.status !== 200 || body.messages.length !== PAGE) {
        throw new Error(`history page: ${res.status} ${JSON.stringify(body).slice(0, 200)}`);
      }
      return body.older;
    };
    // The older cursor of every page, walking back from the newest.
    const cursors: (string | null)[] = [null];
    for (let c: string | null = await page(null); c !== null; c = await page(c)) cursors.push(c);
    const usable = cursors.slice(0, -1); // the last one reads a page of its own size only
    log(`${usable.length} page positions; timing ${SAMPLES} pages`);
    const times: number[] = [];
    for (let i = 0; i < WARMUP + SAMPLES; i += 1) {
      const cursor = usable[(i * 37) % usable.length] ?? null;
      const started = performance.now();
      await page(cursor);
      if (i >= WARMUP) times.push(performance.now() - started);
    }
    const first: number[] = [];
    for (let i = 0; i < FIRST_PAGES; i += 1) {
      const started = performance.now();
      await page(null);
      first.push(performance.now() - started);
    }
    return { pages: times.sort((a, b) => a - b), first: first.sort((a, b) => a - b) };
  } finally {
    await app.close();
    await bus.close();
    await query.stop();
    await db.destroy();
    await dropScratchDatabase(ADMIN_URL, dbName);
  }
}

/** The gateway's read path. */
export const gatewayGroup: BenchGroup = {
  name: 'gateway',
  description: 'history pages through the gateway and the query service; SSE fanout',
  async run(): Promise<readonly Figure[]> {
    const { pages, first } = await historyPageTimes();
    return [
      { name: 'gateway.history_page_ms', value: percentile(pages, 50), unit: 'ms' },
      { name: 'gateway.history_page_p95_ms', value: percentile(pages, 95), unit: 'ms' },
      { name: 'gateway.history_first_page_ms', value: percentile(first, 50), unit: 'ms' },
      ...(await fanoutFigures()),
    ];
  },
};
