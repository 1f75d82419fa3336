import { type Names, TitleReply, type TitleRequest } from '@agentwire/contracts';
import type { TitleGenerator, TitleGeneratorResult } from '@agentwire/engine';
import type { NatsConnection } from '@nats-io/transport-node';

export interface NatsTitleGeneratorOptions {
  readonly nc: NatsConnection;
  readonly names: Names;
  /** How long to wait for the sidecar: above its model timeout (R9.6: 60 s). */
  readonly timeoutMs: number;
}

/**
 * The title sidecar over NATS request/reply (`<prefix>.titles.generate`, queue group;
 * DESIGN.md flow 4). No responders, a timeout and a reply that fails its schema are
 * values, not exceptions: the turn goes on without a generated title.
 */
export class NatsTitleGenerator implements TitleGenerator {
  readonly #o: NatsTitleGeneratorOptions;

  constructor(options: NatsTitleGeneratorOptions) {
    this.#o = options;
  }

  async generate(request: TitleRequest): Promise<TitleGeneratorResult> {
    let data: unknown;
    try {
      const msg = await this.#o.nc.request(this.#o.names.titlesGenerate, JSON.stringify(request), {
        timeout: this.#o.timeoutMs,
      });
      data = msg.json();
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      const reason = /no responders/i.test(message)
        ? 'no_responders'
        : /timeout/i.test(message)
          ? 'timeout'
          : 'transport';
      return { kind: 'unavailable', reason, message };
    }
    const parsed = TitleReply.safeParse(data);
    if (!parsed.success) {
      return { kind: 'unavailable', reason: 'invalid_reply', message: parsed.error.message };
    }
    return { kind: 'reply', reply: parsed.data };
  }
}
