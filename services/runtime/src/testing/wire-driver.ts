import { type BusConnection, followSession } from '@agentwire/bus';
import type { Names, SessionEvent } from '@agentwire/contracts';
import { waitUntil } from '@agentwire/testing';

/** A reply of the runtime: `{ ok: true, ... }` or a typed error. */
export type RuntimeReply =
  | { ok: true; [key: string]: unknown }
  | { ok: false; error: { code: string; message: string; detail?: Record<string, unknown> } };

/**
 * The tests' raw wire driver of the runtime protocol: any body (malformed bytes included) to
 * any subject, replies unparsed, and a live follower of one session that can answer
 * permissions. Frontends use the typed `RuntimeClient` of `@agentwire/bus`, which refuses to
 * send what this sends on purpose.
 */
export class WireDriver {
  readonly #bus: BusConnection;
  readonly #names: Names;

  constructor(bus: BusConnection, names: Names) {
    this.#bus = bus;
    this.#names = names;
  }

  /** Sends raw bytes (for malformed-request tests) or a JSON body to a subject. */
  async request(subject: string, body: unknown, timeoutMs = 15_000): Promise<RuntimeReply> {
    const data = body instanceof Uint8Array ? body : JSON.stringify(body);
    const reply = await this.#bus.nc.request(subject, data, { timeout: timeoutMs });
    return reply.json<RuntimeReply>();
  }

  open(sessionId?: string): Promise<RuntimeReply> {
    return this.request(this.#names.runtimeOpen, sessionId === undefined ? {} : { sessionId });
  }

  op(sessionId: string, op: string, body: unknown = {}, timeoutMs?: number): Promise<RuntimeReply> {
    return this.request(`${this.#names.prefix}.rt.${sessionId}.${op}`, body, timeoutMs);
  }

  /**
   * Prompts `text` with `wait: true` and returns the runtime's reply; when the reply says the
   * turn completed, first waits until `follow` has seen the turn end (its last event is a
   * `turn_complete`). Any other reply comes back at once, for the test to assert on. With an
   * `inputId`, a request that got no reply is sent again with it, as a frontend retries (the
   * runtime answers the same input once, issue 9): right after a runtime's SIGKILL, the
   * broker may still hand a request to the dead instance's subscription.
   */
  async runTurn(
    sessionId: string,
    text: string,
    follow: Follow,
    options: { readonly inputId?: string } = {},
  ): Promise<RuntimeReply> {
    const body = { text, wait: true, ...options };
    let reply: RuntimeReply | undefined;
    for (let attempt = 0; reply === undefined; attempt += 1) {
      try {
        reply = await this.op(sessionId, 'prompt', body);
      } catch (err) {
        const timedOut = err instanceof Error && /timeout/i.test(err.message);
        if (options.inputId === undefined || !timedOut || attempt >= 2) throw err;
      }
    }
    if (reply.ok && reply.status === 'complete') {
      await waitUntil(() => follow.events.at(-1)?.type === 'turn_complete', {
        timeoutMs: 10_000,
        what: `turn_complete of "${text}"`,
      });
    }
    return reply;
  }

  /**
   * Follows a session from `afterSequence`, collecting events into `events`; answers every
   * permission request with `decision` when given (the test frontend of R1.4).
   */
  follow(
    sessionId: string,
    afterSequence: number,
    options: { answer?: 'allow' | 'deny' } = {},
  ): Follow {
    const follower = followSession(this.#bus.js, this.#names, sessionId, {
      afterSequence,
      reconnects: (listener) => this.#bus.onReconnect(listener),
    });
    const events: SessionEvent[] = [];
    const done = (async () => {
      for await (const event of follower) {
        events.push(event);
        if (event.type === 'permission_requested' && options.answer !== undefined) {
          // An answer that finds no runtime (a broker restart, a takeover) is lost as a
          // person's click would be: the request stays open, or its turn ends without it.
          this.op(sessionId, 'answer_permission', {
            requestId: event.payload.requestId,
            decision: options.answer,
          }).catch(() => undefined);
        }
      }
    })();
    return { events, stop: () => follower.stop().then(() => done) };
  }
}

/** A running follow. */
export interface Follow {
  readonly events: SessionEvent[];
  stop(): Promise<void>;
}
