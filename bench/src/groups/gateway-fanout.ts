/**
 * Part of group `gateway` (issue 14, decision 0200): `gateway.fanout_p99_ms` with 1 and
 * with 500 SSE clients on one session, and `gateway.fanout_ratio` (500 over 1; target <= 3).
 * A real gateway process follows a session of its own prefix on the local NATS; this process
 * publishes events to the session's subject at a steady pace (one every 20 ms by default,
 * `FANOUT_INTERVAL_MS` to change it; not a load test) and its SSE clients (raw sockets in
 * this process) note when each event's frame arrives: the figure is the p99 of
 * publish-to-receive over every (client, event). The raw baseline is the same p99 for one
 * plain NATS subscriber on the session's subject, measured in the same run. The floor is the
 * same two measurements against fanout-floor-server.ts, a process that only writes each
 * message as one frame to every socket: `gateway.fanout_floor_ratio` (its 500 over its 1)
 * is what this machine allows a fanout ratio to be, and `gateway.fanout_over_floor` is the
 * gateway's 500-client p99 over the floor's.
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
const FLOOR_MAIN = path.join(
  path.dirname(fileURLToPath(import.meta.url)),
  '../fanout-floor-server.ts',
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

const READ_BUFFER = Buffer.alloc(256 * 1024);
const FROM = Buffer.from('"fromSeq":');
const TO = Buffer.from(',"toSeq":');

/** The decimal number in `bytes` at `at`, and where it ends. */
function numberAt(bytes: Buffer, at: number): { value: number; end: number } {
  let value = 0;
  let i = at;
  for (; i < bytes.length; i += 1) {
    const digit = (bytes[i] as number) - 48;
    if (digit < 0 || digit > 9) break;
    value = value * 10 + digit;
  }
  return { value, end: i };
}

/** Calls `onRange` for each frame's `"fromSeq":a,"toSeq":b` in `chunk`. */
function scanRanges(chunk: Buffer, onRange: (from: number, to: number) => void): void {
  let at = chunk.indexOf(FROM);
  while (at !== -1) {
    const from = numberAt(chunk, at + FROM.length);
    if (chunk.indexOf(TO, from.end) !== from.end) break;
    const to = numberAt(chunk, from.end + TO.length);
    onRange(from.value, to.value);
    at = chunk.indexOf(FROM, to.end);
  }
}

/**
 * One SSE client on a raw socket: it scans the bytes for each frame's range prefix and
 * notes when it arrived. No HTTP parser, no string decoding and no JSON parsing, so the
 * clients, which share the machine with the gateway, cost as little as a client can. A
 * frame whose prefix a read cut in two would go uncounted, and the run fails on the count.
 */
function openClient(url: string, onRange: (from: number, to: number, at: number) => void) {
  const { hostname, port, pathname, search } = new URL(url);
  let resolve: () => void = () => {};
  let reject: (error: Error) => void = () => {};
  const ready = new Promise<void>((yes, no) => {
    resolve = yes;
    reject = no;
  });
  let head = '';
  let started = false;
  // Reads land in one buffer that every client shares (each read is scanned at once), not
  // in a stream's chunks: the client costs a read and a scan.
  const onData = (length: number): boolean => {
    const at = performance.now();
    const chunk = READ_BUFFER.subarray(0, length);
    if (!started) {
      head += chunk.toString('latin1');
      if (!head.includes('following after')) return true;
      if (!head.startsWith('HTTP/1.1 200')) reject(new Error(head.slice(0, 100)));
      started = true;
      resolve();
      return true;
    }
    scanRanges(chunk, (from, to) => onRange(from, to, at));
    return true;
  };
  const socket = net.connect({
    port: Number(port),
    host: hostname,
    onread: { buffer: READ_BUFFER, callback: onData },
  });
  socket.on('connect', () => {
    socket.write(`GET ${pathname}${search} HTTP/1.1\r\nHost: ${hostname}\r\n\r\n`);
  });
  socket.on('error', reject);
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
    log(
      `${clients} clients: p50 ${percentile(latencies, 50).toFixed(2)} p90 ${percentile(latencies, 90).toFixed(2)} max ${latencies[latencies.length - 1]?.toFixed(2)} ms`,
    );
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
  let floor: ServiceProcess | undefined;
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
    seq = many.seq;
    log(`500 SSE clients p99 ${many.p99.toFixed(2)} ms (${many.samples} deliveries)`);
    floor = await startServiceProcess(FLOOR_MAIN, {
      NATS_URL,
      FLOOR_SUBJECT: n.sessionFilter(sid),
    });
    const floorUrl = `http://127.0.0.1:${floor.port}`;
    const floorOne = await fanoutP99(floorUrl, bus, n, sid, seq, 1);
    seq = floorOne.seq;
    log(`floor, 1 client p99 ${floorOne.p99.toFixed(2)} ms`);
    const floorMany = await fanoutP99(floorUrl, bus, n, sid, seq, 500);
    log(`floor, 500 clients p99 ${floorMany.p99.toFixed(2)} ms`);
    return [
      { name: 'gateway.fanout_p99_ms_1_client', value: one.p99, unit: 'ms', baseline: raw.p99 },
      { name: 'gateway.fanout_p99_ms_500_clients', value: many.p99, unit: 'ms', baseline: raw.p99 },
      { name: 'gateway.fanout_ratio', value: many.p99 / one.p99, unit: 'ratio' },
      { name: 'gateway.fanout_floor_p99_ms_1_client', value: floorOne.p99, unit: 'ms' },
      { name: 'gateway.fanout_floor_p99_ms_500_clients', value: floorMany.p99, unit: 'ms' },
      { name: 'gateway.fanout_floor_ratio', value: floorMany.p99 / floorOne.p99, unit: 'ratio' },
      { name: 'gateway.fanout_over_floor', value: many.p99 / floorMany.p99, unit: 'ratio' },
    ];
  } finally {
    gateway?.kill('SIGTERM');
    floor?.kill('SIGTERM');
    await gateway?.exited;
    await floor?.exited;
    await deleteProvisioned(bus.jsm, n).catch(() => undefined);
    await bus.close();
  }
}
