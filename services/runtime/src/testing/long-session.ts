import type { BusConnection } from '@agentwire/bus';
import { decodeSessionEvent, type Names, type SessionEvent } from '@agentwire/contracts';
import type { Msg, Subscription } from '@nats-io/transport-node';
import type { WireDriver } from './wire-driver.ts';

/**
 * A file of `bytes` bytes for `read_file` to return: lines of 63 letters and digits and a
 * newline, so that its JSON form is as long as it is, give or take the newlines.
 */
export function fileOfBytes(bytes: number): string {
  const line = `${'0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ'.slice(0, 63)}\n`;
  return line.repeat(Math.ceil(bytes / line.length)).slice(0, bytes);
}

/** One message seen on the session's subjects: its type and size (data plus headers). */
interface WireMessage {
  readonly type: string;
  readonly bytes: number;
}

/** What {@link runLongSession} measured. */
export interface LongSessionRun {
  /** The events stream's bytes after each turn ended: `[0]` before the first turn. */
  readonly streamBytes: readonly number[];
  /** Every message published on the session's subjects, in order, with its size. */
  readonly wire: readonly WireMessage[];
  /** Every event published on the session's subjects, decoded, in order. */
  readonly events: readonly SessionEvent[];
}

/** Options of {@link runLongSession}. */
export interface LongSessionOptions {
  readonly bus: BusConnection;
  readonly names: Names;
  readonly client: WireDriver;
  readonly sessionId: string;
  readonly turns: number;
  /** The prompt of turn `n` (from 1). */
  readonly prompt: (turn: number) => string;
  /** Told after each turn, with its number. */
  readonly onTurn?: (turn: number) => void;
}

/** Bytes of one NATS message as it crosses the wire: payload plus encoded headers. */
function sizeOf(m: Msg): number {
  const h = m.headers;
  if (h === undefined) return m.data.length;
  let headers = 'NATS/1.0\r\n\r\n'.length;
  for (const k of h.keys()) for (const v of h.values(k)) headers += `${k}: ${v}\r\n`.length;
  return m.data.length + headers;
}

/**
 * Runs `turns` prompts on one open session, one after the other (each waits for its
 * turn's end), watching every message published on the session's subjects (a core
 * subscription: what any frontend receives) and the events stream's size after each turn
 * (issue 18: no event grows with the session; the stream grows linearly). Throws when a
 * turn does not complete.
 */
export async function runLongSession(o: LongSessionOptions): Promise<LongSessionRun> {
  const wire: WireMessage[] = [];
  const events: SessionEvent[] = [];
  const sub: Subscription = o.bus.nc.subscribe(`${o.names.prefix}.session.${o.sessionId}.>`, {
    callback: (err, m) => {
      if (err !== null) return;
      const decoded = decodeSessionEvent(m.data);
      const type = decoded.ok ? decoded.event.type : (m.headers?.get('Aw-Type') ?? 'unknown');
      if (decoded.ok) events.push(decoded.event);
      wire.push({ type, bytes: sizeOf(m) });
    },
  });
  const bytes = async () => (await o.bus.jsm.streams.info(o.names.eventsStream)).state.bytes;
  const streamBytes = [await bytes()];
  try {
    for (let turn = 1; turn <= o.turns; turn += 1) {
      const reply = await o.client.op(
        o.sessionId,
        'prompt',
        { text: o.prompt(turn), wait: true },
        60_000,
      );
      if (!reply.ok || reply.status !== 'complete') {
        throw new Error(`turn ${turn} did not complete: ${JSON.stringify(reply)}`);
      }
      await o.bus.nc.flush();
      streamBytes.push(await bytes());
      o.onTurn?.(turn);
    }
    await o.bus.nc.flush();
  } finally {
    sub.unsubscribe();
  }
  return { streamBytes, wire, events };
}

/** The stream bytes turn `n` added (from 1). */
export function bytesOfTurn(run: LongSessionRun, turn: number): number {
  return (run.streamBytes[turn] ?? Number.NaN) - (run.streamBytes[turn - 1] ?? Number.NaN);
}

/** The `p`-quantile (0..1) of `values`, nearest rank. */
export function quantile(values: readonly number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil(p * sorted.length) - 1)] ?? Number.NaN;
}
