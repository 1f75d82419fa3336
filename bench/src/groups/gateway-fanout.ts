/**
 * Part of group `gateway` (issue 14, decision 0200): `gateway.fanout_p99_ms` with 1 and
 * with 500 SSE clients on one session, and `gateway.fanout_ratio` (500 over 1; target <= 3).
 * A real gateway process follows a session of its own prefix on the local NATS; this process
 * publishes events to the session's subject at a steady pace (one every 20 ms by default,
 * `FANOUT_INTERVAL_MS` to change it; not a load test) and its SSE clients (raw sockets in
 * this process) note when each event's frame arrives: the figure is the p99 of
 * publish-to-receive over every (client, event). The raw baseline is the same p99 for one
 * plain NATS subscriber on the session's subject, measured in the same run.
 */
import { randomBytes } from 'node:crypto';
import net from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  type BusConnection,
  connectBus,
  deleteProvisioned,
  provision,
  publishEvent,
} from '@agentwire/bus';
import { HEADERS, type Names, names, type SessionEvent } from '@agentwire/contracts';
import { sampleSessionEvent } from '@agentwire/contracts/testing';
import { type ServiceProcess, startServiceProcess } from '@agentwire/testing';
import type { Figure } from '../figure.ts';
import { percentile } from '../stats.ts';

const NATS_URL = process.env.NATS_URL ?? 'nats://127.0.0.1:4222';
const GATEWAY_MAIN = path.join(
  path.dirname(fileURLToPath(import.meta.url)),
  '../../../services/gateway/src/main.ts',
);
const WARMUP = 10;
const EVENTS = 150;
const INTERVAL_MS = Number(process.env.FANOUT_INTERVAL_MS ?? 20);

const log = (msg: string) => console.error(`[gateway] ${msg}`);

function withTimeout<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: not ready in ${ms} ms`)), ms);
  });
  return Promise.race([p, late]).finally(() => clearTimeout(timer));
}

const RANGE = /"fromSeq":(\d+),"toSeq":(\d+)/g;

/**
 * One SSE client on a raw socket: it scans the bytes for each frame's range prefix and
 * notes when it arrived. No HTTP parser and no JSON parsing, so the clients, which share the
 * machine with the gateway, cost as little as a client can.
 */
function openClient(url: string, onRange: (from: number, to: number, at: number) => void) {
  const { hostname, port, pathname, search } = new URL(url);
  const socket = net.connect(Number(port), hostname);
  const ready = new Promise<void>((resolve, reject) => {
    let head = '';
    let started = false;
    socket.on('connect', () => {
      socket.write(`GET ${pathname}${search} HTTP/1.1\r\nHost: ${hostname}\r\n\r\n`);
    });
    socket.on('data', (chunk: Buffer) => {
      const at = performance.now();
      const text = chunk.toString('latin1');
      if (!started) {
        head += text;
        if (!head.includes('following after')) return;
        if (!head.startsWith('HTTP/1.1 200')) reject(new Error(head.slice(0, 100)));
        started = true;
        resolve();
        return;
      }
      for (const m of text.matchAll(RANGE)) onRange(Number(m[1]), Number(m[2]), at);
    });
    socket.on('error', reject);
  });
  return { ready, close: () => socket.destroy() };
}

/** Publishes `count` events after `seq`, paced, noting when each was sent. */
async function publishPaced(
  bus: BusConnection,
  n: Names,
  sid: string,
  seq: number,
  count: number,
  sentAt: Map<number, number>,
): Promise<number> {
  const base = sampleSessionEvent('session_title_updated', { sessionId: sid, turnId: null });
  for (let i = 1; i <= count; i += 1) {
    const s = seq + i;
    const event = { ...base, id: `${sid}-${s}`, sequenceNumber: s, timestamp: Date.now() };
    sentAt.set(s, performance.now());
    await publishEvent(bus.js, n, event as SessionEvent, { previousDurableSequence: s - 1 });
    await new Promise((r) => setTimeout(r, INTERVAL_MS));
  }
  return seq + count;
}

/** p99 of publish-to-receive over `clients` SSE clients on one session. */
async function fanoutP99(
  gatewayUrl: string,
  bus: BusConnection,
  n: Names,
  sid: string,
  seq: number,
  clients: number,
): Promise<{ p99: number; seq: number; samples: number }> {
  const sentAt = new Map<number, number>();
  const latencies: number[] = [];
  const counted = seq + WARMUP;
  const open = Array.from({ length: clients }, () =>
    openClient(`${gatewayUrl}/sessions/${sid}/events?after=${seq}`, (from, to, at) => {
      for (let s = from; s <= to; s += 1) {
        const sent = sentAt.get(s);
        if (sent !== undefined && s > counted) latencies.push(at - sent);
      }
    }),
  );
  try {
    await withTimeout(Promise.all(open.map((c) => c.ready)), 30_000, `${clients} SSE clients`);
    const last = await publishPaced(bus, n, sid, seq, WARMUP + EVENTS, sentAt);
    const expected = clients * EVENTS;
    const deadline = Date.now() + 30_000;
    while (latencies.length < expected && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 50));
    }
    if (latencies.length < expected)
      throw new Error(`only ${latencies.length} of ${expected} deliveries arrived`);
    latencies.sort((a, b) => a - b);
    return { p99: percentile(latencies, 99), seq: last, samples: latencies.length };
  } finally {
    for (const c of open) c.close();
  }
}

/** The raw baseline: p99 of publish-to-receive for one NATS subscriber of the session. */
async function natsP99(bus: BusConnection, n: Names, sid: string, seq: number) {
  const sentAt = new Map<number, number>();
  const latencies: number[] = [];
  const sub = bus.nc.subscribe(n.sessionFilter(sid), {
    callback: (_err, msg) => {
      const s = Number(msg.headers?.get(HEADERS.sequence));
      const sent = sentAt.get(s);
      if (sent !== undefined && s > seq + WARMUP) latencies.push(performance.now() - sent);
    },
  });
  await bus.nc.flush();
  const last = await publishPaced(bus, n, sid, seq, WARMUP + EVENTS, sentAt);
  await bus.nc.flush();
  sub.unsubscribe();
  latencies.sort((a, b) => a - b);
  return { p99: percentile(latencies, 99), seq: last };
}

/** Runs the fanout measurements against a gateway process of a prefix of its own. */
export async function fanoutFigures(): Promise<Figure[]> {
  const tag = randomBytes(4).toString('hex');
  const prefix = `bfo${tag}`;
  const n = names(prefix);
  const sid = `bench-fanout-${tag}`;
  const bus = await connectBus({ servers: NATS_URL, name: 'bench-fanout' });
  let gateway: ServiceProcess | undefined;
  try {
    await provision(bus.nc, n);
    // The session exists (the gateway follows only known sessions): one event first.
    let seq = await publishPaced(bus, n, sid, 0, 1, new Map());
    gateway = await startServiceProcess(GATEWAY_MAIN, {
      NATS_URL,
      AW_PREFIX: prefix,
      HTTP_PORT: '0',
      HTTP_HOST: '127.0.0.1',
      AW_GATEWAY_RATE_LIMIT: '1000000',
    });
    const url = `http://127.0.0.1:${gateway.port}`;
    const raw = await natsP99(bus, n, sid, seq);
    seq = raw.seq;
    log(`raw NATS subscriber p99 ${raw.p99.toFixed(2)} ms`);
    const one = await fanoutP99(url, bus, n, sid, seq, 1);
    seq = one.seq;
    log(`1 SSE client p99 ${one.p99.toFixed(2)} ms (${one.samples} deliveries)`);
    const many = await fanoutP99(url, bus, n, sid, seq, 500);
    log(`500 SSE clients p99 ${many.p99.toFixed(2)} ms (${many.samples} deliveries)`);
    return [
      { name: 'gateway.fanout_p99_ms_1_client', value: one.p99, unit: 'ms', baseline: raw.p99 },
      { name: 'gateway.fanout_p99_ms_500_clients', value: many.p99, unit: 'ms', baseline: raw.p99 },
      { name: 'gateway.fanout_ratio', value: many.p99 / one.p99, unit: 'ratio' },
    ];
  } finally {
    gateway?.kill('SIGTERM');
    await gateway?.exited;
    await deleteProvisioned(bus.jsm, n).catch(() => undefined);
    await bus.close();
  }
}
