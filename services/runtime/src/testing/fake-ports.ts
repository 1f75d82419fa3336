import {
  AssistantMessage,
  Part,
  type SessionEvent,
  UserMessage,
  UserMessagePart,
} from '@agentwire/contracts';
import type {
  EventPublisher,
  IdSource,
  PublishOutcome,
  RuntimeClock,
  RuntimeLogger,
} from '../core/ports.ts';
import type { TranscriptWriter } from '../core/transcript-writer.ts';

/** A publisher that records what it publishes and can be told to fence or fail. */
export class RecordingPublisher implements EventPublisher {
  readonly published: { event: SessionEvent; previousDurableSequence: number }[] = [];
  fenceNext = false;
  failNext: Error | undefined;

  readonly #holds = new Map<string, Promise<void>>();
  /** Types whose publish has started and waits for its release (see {@link hold}). */
  readonly waiting = new Set<string>();

  /** Makes the next publish of `type` wait until the returned function is called. */
  hold(type: string): () => void {
    let release = () => {};
    this.#holds.set(
      type,
      new Promise<void>((resolve) => {
        release = resolve;
      }),
    );
    return () => release();
  }

  async publish(event: SessionEvent, previousDurableSequence: number): Promise<PublishOutcome> {
    const held = this.#holds.get(event.type);
    if (held !== undefined) {
      this.#holds.delete(event.type);
      this.waiting.add(event.type);
      await held;
      this.waiting.delete(event.type);
    }
    if (this.failNext !== undefined) throw this.failNext;
    if (this.fenceNext) return { ok: false, reason: 'fenced', detail: 'wrong last sequence' };
    this.published.push({ event, previousDurableSequence });
    return { ok: true, duplicate: false };
  }

  types(): string[] {
    return this.published.map((p) => p.event.type);
  }
}

/** One recorded transcript write. */
export type WriterCall = {
  readonly kind: string;
  readonly sequence: number;
  readonly value: unknown;
};

/** A transcript writer that validates every call against the contracts and records it in order. */
export class RecordingWriter implements TranscriptWriter {
  readonly calls: WriterCall[] = [];

  async ensureSession(session: unknown, ctx: { sequence: number }): Promise<void> {
    this.calls.push({ kind: 'ensure_session', sequence: ctx.sequence, value: session });
  }
  async saveUserMessage(
    message: unknown,
    parts: readonly unknown[],
    ctx: { sequence: number },
  ): Promise<{ committed: boolean; commandId: string }> {
    UserMessage.parse(message);
    for (const part of parts) UserMessagePart.parse(part);
    this.calls.push({
      kind: 'save_user_message',
      sequence: ctx.sequence,
      value: { message, parts },
    });
    return { committed: true, commandId: `cmd_${this.calls.length}` };
  }
  async saveAssistantMessage(message: unknown, ctx: { sequence: number }): Promise<void> {
    AssistantMessage.parse(message);
    this.calls.push({ kind: 'save_assistant_message', sequence: ctx.sequence, value: message });
  }
  async savePart(part: unknown, ctx: { sequence: number }): Promise<void> {
    Part.parse(part);
    this.calls.push({ kind: 'save_part', sequence: ctx.sequence, value: part });
  }
  async updateTitle(update: unknown, ctx: { sequence: number }): Promise<void> {
    this.calls.push({ kind: 'update_title', sequence: ctx.sequence, value: update });
  }
}

/** A clock that advances 1 ms per reading. */
export function steppingClock(start = 1_700_000_000_000): RuntimeClock {
  let t = start;
  return {
    now: () => {
      t += 1;
      return t;
    },
  };
}

/** Deterministic ids: `<kind>_<n>` and counting trace ids. */
export function countingIds(): IdSource {
  let n = 0;
  const next = () => {
    n += 1;
    return n;
  };
  return {
    newId: (kind) => `${kind}_${next()}`,
    newTraceId: () => next().toString(16).padStart(32, 'a'),
  };
}

/** A logger that keeps its lines for assertions. */
export class RecordingLogger implements RuntimeLogger {
  readonly lines: { level: string; obj: object; msg: string | undefined }[] = [];
  debug(obj: object, msg?: string): void {
    this.lines.push({ level: 'debug', obj, msg });
  }
  info(obj: object, msg?: string): void {
    this.lines.push({ level: 'info', obj, msg });
  }
  warn(obj: object, msg?: string): void {
    this.lines.push({ level: 'warn', obj, msg });
  }
  error(obj: object, msg?: string): void {
    this.lines.push({ level: 'error', obj, msg });
  }
}
