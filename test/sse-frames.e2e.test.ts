import { FrameReader, type FrameReading } from '@agentwire/contracts';
import { type Stack, startStack } from '@agentwire/gateway/testing';
import { createTestEnvironment, type TestEnvironment, waitUntil } from '@agentwire/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

/**
 * Issue 14 "done when", Frames (R15.2, decision 0200): a client that loses frames (a gap
 * injected between the gateway and its FrameReader) resyncs once from what it has and ends
 * with every event once; two gaps in a row make it ask for a snapshot, which it gets, and it
 * follows on from the snapshot's number. Against the real stack.
 */

let env: TestEnvironment;
let stack: Stack;
let base: string;

beforeAll(async () => {
  env = await createTestEnvironment();
  stack = await startStack(env, { gateway: true });
  base = stack.gatewayUrl ?? '';
});

afterAll(async () => {
  await stack?.stop();
  await env?.dispose();
});

async function post(path: string, body?: unknown): Promise<Record<string, unknown>> {
  const res = await fetch(`${base}${path}`, {
    method: 'POST',
    ...(body === undefined
      ? {}
      : { body: JSON.stringify(body), headers: { 'content-type': 'application/json' } }),
  });
  return (await res.json()) as Record<string, unknown>;
}

/**
 * A frontend as decision 0200 describes it: one FrameReader across connections; `resync`
 * reconnects with `?after=`, `snapshot_needed` with `?snapshot=true`. `lose(connection,
 * frame)` drops frames before the reader sees them (the injected gap). Like a real one, it
 * also reconnects from what it has when the gateway ends the stream (`server_error`, or the
 * body ends): under load a follow can fail, and a frontend that stopped there would wait
 * forever. Those reconnects are kept apart (`reconnects`) from the ones the frames asked for.
 */
class TestFrontend {
  readonly reader = new FrameReader();
  readonly readings: FrameReading[] = [];
  readonly urls: string[] = [];
  /** Reconnects after the stream ended or failed, with the gateway's reason. */
  readonly reconnects: string[] = [];
  readonly seqs: number[] = [];
  /** Turns completed since the last snapshot. */
  turns = 0;
  /** Data frames that arrived, lost ones included. */
  arrived = 0;
  #controller: AbortController | undefined;
  #connections = 0;

  readonly sid: string;
  readonly lose: (connection: number, frame: number) => boolean;

  constructor(sid: string, lose: (connection: number, frame: number) => boolean) {
    this.sid = sid;
    this.lose = lose;
  }

  open(query = `after=${this.reader.after}`, why?: string): void {
    this.#controller?.abort();
    const controller = new AbortController();
    this.#controller = controller;
    const connection = this.#connections++;
    const url = `${base}/sessions/${this.sid}/events?${query}`;
    if (why === undefined) this.urls.push(query);
    else this.reconnects.push(`${why} -> ${query}`);
    void (async () => {
      const res = await fetch(url, { signal: controller.signal }).catch((error: unknown) => {
        if (controller.signal.aborted) return undefined;
        this.#reconnect(controller, `fetch failed: ${String(error)}`);
        return undefined;
      });
      if (res === undefined) return;
      const decoder = new TextDecoder();
      let buffer = '';
      let frame = 0;
      try {
        for await (const chunk of res.body ?? []) {
          buffer += decoder.decode(chunk as Uint8Array, { stream: true });
          for (let cut = buffer.indexOf('\n\n'); cut >= 0; cut = buffer.indexOf('\n\n')) {
            const block = buffer.slice(0, cut);
            buffer = buffer.slice(cut + 2);
            const data = /^data: (.*)$/m.exec(block)?.[1];
            if (data === undefined) continue;
            this.arrived += 1;
            if (this.lose(connection, frame++)) continue;
            const type = /^event: (.+)$/m.exec(block)?.[1] ?? 'message';
            this.#read({ type, data });
            if (controller.signal.aborted) return;
          }
        }
      } catch (error) {
        if (controller.signal.aborted) return;
        this.#reconnect(controller, `read failed: ${String(error)}`);
        return;
      }
      this.#reconnect(controller, 'stream ended');
    })();
  }

  /** Reconnects from what the reader has, once, unless this connection was replaced. */
  #reconnect(controller: AbortController, why: string): void {
    if (controller.signal.aborted || this.#controller !== controller) return;
    console.warn(`sse-frames: reconnecting (${why})`);
    setTimeout(() => {
      if (this.#controller === controller) this.open(`after=${this.reader.after}`, why);
    }, 100);
  }

  close(): void {
    this.#controller?.abort();
  }

  #read(message: { type: string; data: string }): void {
    const r = this.reader.read(message);
    this.readings.push(r);
    if (r.kind === 'events') {
      this.seqs.push(...r.events.map((e) => e.sequenceNumber));
      this.turns += r.events.filter((e) => e.type === 'turn_complete').length;
    } else if (r.kind === 'snapshot') this.seqs.length = 0;
    else if (r.kind === 'resync') this.open(`after=${r.after}`);
    else if (r.kind === 'snapshot_needed') this.open('snapshot=true');
    else if (r.kind === 'server_error') {
      const controller = this.#controller;
      if (controller !== undefined) this.#reconnect(controller, `${r.code}: ${r.message}`);
    }
  }
}

/**
 * `seqs` are increasing (nothing twice) and hold every event a clean follow replays; a live
 * follower may also hold transient events that a later replay no longer finds (R3.3).
 */
function expectOnceEach(seqs: readonly number[], replayed: readonly number[]): void {
  expect(seqs).toEqual([...new Set(seqs)].sort((a, b) => a - b));
  // Both stopped after the last turn_complete; what came after it may be in one only.
  const upTo = Math.min(seqs.at(-1) ?? 0, replayed.at(-1) ?? 0);
  expect(replayed.filter((n) => n <= upTo && !seqs.includes(n))).toEqual([]);
}

/** What the frames asked of the frontend (a server error is the transport's, not a gap). */
const kinds = (f: TestFrontend) =>
  f.readings.map((r) => r.kind).filter((k) => k !== 'events' && k !== 'server_error');

/** The event numbers a clean follower from 0 gets, up to the `turns`-th turn_complete. */
async function cleanSeqs(sid: string, turns: number): Promise<number[]> {
  const clean = new TestFrontend(sid, () => false);
  clean.open('after=0');
  await waitUntil(() => clean.turns >= turns, { timeoutMs: 20_000, what: 'a clean follow' });
  clean.close();
  return clean.seqs;
}

describe('SSE frames through the real gateway (R15.2)', () => {
  it('a client with an injected gap resyncs once and ends with every event once', {
    timeout: 60_000,
  }, async () => {
    const sid = String((await post('/sessions')).sessionId);
    await post(`/sessions/${sid}/prompt`, { text: 'first', wait: true });
    // Lose the first frame of the first connection only.
    const frontend = new TestFrontend(sid, (connection, frame) => connection === 0 && frame === 0);
    frontend.open('after=0');
    // The first turn's replay arrives (and is lost) before the next turn starts.
    await waitUntil(() => frontend.arrived > 0, { timeoutMs: 10_000, what: 'the replay' });
    await post(`/sessions/${sid}/prompt`, { text: 'second', wait: true });
    await waitUntil(() => frontend.turns >= 2, { timeoutMs: 20_000, what: 'caught up' });
    frontend.close();
    expect(kinds(frontend)).toEqual(['resync']);
    expect(frontend.urls).toEqual(['after=0', 'after=0']);
    expect(frontend.seqs.length).toBeGreaterThan(5);
    expectOnceEach(frontend.seqs, await cleanSeqs(sid, 2));
  });

  it('two gaps in a row give a snapshot, and the client follows on after it', {
    timeout: 60_000,
  }, async () => {
    const sid = String((await post('/sessions')).sessionId);
    await post(`/sessions/${sid}/prompt`, { text: 'first', wait: true });
    // Lose the first frame of the first two connections.
    const frontend = new TestFrontend(sid, (connection, frame) => connection < 2 && frame === 0);
    frontend.open('after=0');
    // The first turn's replay arrives (and is lost) before the next turn starts.
    await waitUntil(() => frontend.arrived > 0, { timeoutMs: 10_000, what: 'the replay' });
    await post(`/sessions/${sid}/prompt`, { text: 'second', wait: true });
    // The resync's replay may be one frame, lost too: a later frame shows the gap. Under
    // load the replay and a whole turn can coalesce into that one lost frame, so prompt
    // again until a frame after it arrives and the snapshot follows.
    const snapshotSeen = () => frontend.readings.some((r) => r.kind === 'snapshot');
    let prompts = 2;
    while (!snapshotSeen() && prompts < 6) {
      prompts += 1;
      await post(`/sessions/${sid}/prompt`, { text: `turn ${prompts}`, wait: true });
      await waitUntil(snapshotSeen, { timeoutMs: 5_000, what: 'the snapshot' }).catch(() => {});
    }
    expect(snapshotSeen()).toBe(true);
    prompts += 1;
    await post(`/sessions/${sid}/prompt`, { text: 'after the snapshot', wait: true });
    await waitUntil(() => frontend.turns >= 1, { timeoutMs: 20_000, what: 'live' });
    frontend.close();
    // When the projection trails what the stream still holds (a later turn's transient
    // events evicted past its number), the gateway sends a fresher snapshot on the same
    // connection (docs/decisions/0103): the client replaces its state again, no reconnect.
    const [first, second, third, ...rest] = kinds(frontend);
    expect([first, second, third]).toEqual(['resync', 'snapshot_needed', 'snapshot']);
    expect(rest.every((k) => k === 'snapshot')).toBe(true);
    expect(frontend.urls).toEqual(['after=0', 'after=0', 'snapshot=true']);
    const snapshot = frontend.readings.findLast((r) => r.kind === 'snapshot');
    expect(snapshot?.kind === 'snapshot' && snapshot.projection).toMatchObject({ id: sid });
    const asOf = snapshot?.kind === 'snapshot' ? snapshot.asOfSeq : -1;
    expect(frontend.seqs[0]).toBeGreaterThan(asOf);
    expectOnceEach(
      frontend.seqs,
      (await cleanSeqs(sid, prompts)).filter((n) => n > asOf),
    );
  });
});
