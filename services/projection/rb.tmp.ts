import { randomBytes } from 'node:crypto';
import { connectBus, eventHeaders, provision } from '@agentwire/bus';
import { decodeSessionEvent, names } from '@agentwire/contracts';
import { createDatabase, migrate } from '@agentwire/store';
import { sql } from 'kysely';
import {
  generateSessionEvents,
  PgProjectionStore,
  rebuildFromStream,
  reduceSessionProjection,
} from './src/index.ts';

const prefix = `awrb${randomBytes(3).toString('hex')}`;
const bus = await connectBus({ servers: 'nats://127.0.0.1:4222', name: 'rb', noAsyncTraces: true });
const n = names(prefix);
await provision(bus.nc, n, { eventsMaxAgeMs: 0 });
const admin = createDatabase('postgres://postgres@127.0.0.1:5432/postgres', { poolSize: 1 });
const dbn = `aw_rb_${process.pid}`;
await sql.raw(`create database ${dbn}`).execute(admin);
const db = createDatabase(`postgres://postgres@127.0.0.1:5432/${dbn}`, { poolSize: 4 });
await migrate(db);
const all: Uint8Array[] = [];
for (let s = 0; s < 60; s++) {
  const events = generateSessionEvents(`rb${s}`, 1000, 1000 + s);
  for (let i = 0; i < events.length; i += 500)
    await Promise.all(
      events.slice(i, i + 500).map((g) => {
        const d = JSON.stringify(g.event);
        all.push(new TextEncoder().encode(d));
        return bus.js.publish(n.eventSubject(g.event.sessionId), d, {
          headers: eventHeaders(g.event, g.prev),
        });
      }),
    );
}
let t = performance.now();
for (const d of all) decodeSessionEvent(d);
console.log('decode only /s', (all.length / ((performance.now() - t) / 1000)).toFixed(0));
t = performance.now();
for (const d of all) JSON.parse(new TextDecoder().decode(d));
console.log('JSON.parse only /s', (all.length / ((performance.now() - t) / 1000)).toFixed(0));
for (let r = 0; r < 3; r++) {
  await sql`delete from session_projections`.execute(db);
  t = performance.now();
  const res = await rebuildFromStream({
    js: bus.js,
    names: n,
    store: new PgProjectionStore(db),
    reduce: reduceSessionProjection,
    batchSessions: 200,
  });
  console.log('rebuild /s', (res.eventsRead / ((performance.now() - t) / 1000)).toFixed(0));
}
for (const s of [n.eventsStream, n.commandsStream]) await bus.jsm.streams.delete(s).catch(() => {});
await bus.close();
await db.destroy();
await sql.raw(`drop database ${dbn} with (force)`).execute(admin);
await admin.destroy();
