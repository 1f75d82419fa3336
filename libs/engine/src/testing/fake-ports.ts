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
} from '../kernel/ports.ts';
import type { ConfirmedWrite, TranscriptWriter } from '../kernel/transcript-writer.ts';

/** A publisher that records what it publishes and can be told to fence or fail. */
export class RecordingPublisher implements EventPublisher {
  readonly published: { event: SessionEvent; previousDurableSequence: number }[] = [];
  fenceNext = false;
  failNext: Error | undefined;
  /** Events of these types are answered `refused` (never stored), as an over-large one is. */
  readonly refuse = new Set<string>();

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
    if (this.refuse.has(event.type)) {
      return { ok: false, reason: 'refused', detail: `${event.type} exceeds max_payload` };
    }
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

/**
 * A transcript writer that validates every call against the contracts and records it in
 * order. The session row and title writes are confirmed like the worker's (`applied`, or
 * `duplicate` when already so) after `beforeConfirm` resolves, which a test may hold.
 */
export class RecordingWriter implements TranscriptWriter {
  readonly calls: WriterCall[] = [];
  /** The row as the confirmed writes left it. */
  row: { title: string; source: string } | undefined;
  /** Awaited before a session row or title write is confirmed. */
  beforeConfirm: (kind: 'ensure_session' | 'update_title') => Promise<void> = async () => {};
  /** False: session row and title writes go unconfirmed (a worker that never answers). */
  confirms = true;
  /** True: the first confirmation of each write is lost; its republish answers `duplicate`. */
  losesFirstConfirmation = false;

  async ensureSession(
    session: { title: string; titleSource: string },
    ctx: { sequence: number },
  ): Promise<ConfirmedWrite> {
    this.calls.push({ kind: 'ensure_session', sequence: ctx.sequence, value: session });
    await this.beforeConfirm('ensure_session');
    if (!this.confirms) return { confirmed: false };
    if (this.row !== undefined)
      return { confirmed: true, outcome: 'duplicate', republished: false };
    this.row = { title: session.title, source: session.titleSource };
    if (this.losesFirstConfirmation) {
      return { confirmed: true, outcome: 'duplicate', republished: true };
    }
    return { confirmed: true, outcome: 'applied', republished: false };
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
  async markFirstInputRewound(ctx: { sequence: number }): Promise<void> {
    this.calls.push({ kind: 'mark_first_input_rewound', sequence: ctx.sequence, value: null });
  }
  async updateTitle(
    update: { title: string; source: string },
    ctx: { sequence: number },
  ): Promise<ConfirmedWrite> {
    this.calls.push({ kind: 'update_title', sequence: ctx.sequence, value: update });
    await this.beforeConfirm('update_title');
    if (!this.confirms) return { confirmed: false };
    if (this.row === undefined)
      return { confirmed: true, outcome: 'condition_failed', republished: false };
    const same = this.row.title === update.title && this.row.source === update.source;
    this.row = { title: update.title, source: update.source };
    return { confirmed: true, outcome: same ? 'duplicate' : 'applied', republished: false };
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
