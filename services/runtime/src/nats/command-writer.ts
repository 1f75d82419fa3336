import { type BlobOffload, BusError, publishCommand } from '@agentwire/bus';
import {
  type AssistantMessage,
  type Names,
  nextCommandVersion,
  type Part,
  type PersistenceCommand,
  type PersistenceCommandOf,
  PersistenceConfirmation,
  type TitleSource,
  type UserMessage,
  type UserMessagePart,
} from '@agentwire/contracts';
import { replaceableTitleSources } from '@agentwire/domain';
import type {
  ConfirmedWrite,
  IdSource,
  RuntimeClock,
  RuntimeLogger,
  SessionRecord,
  TranscriptWriter,
  UserMessageWrite,
  WriteContext,
} from '@agentwire/engine';
import { backoffMs } from '@agentwire/service';
import type { JetStreamClient } from '@nats-io/jetstream';
import type { NatsConnection, Subscription } from '@nats-io/transport-node';

/** Options of {@link CommandWriter}. */
export interface CommandWriterOptions {
  readonly nc: NatsConnection;
  readonly js: JetStreamClient;
  readonly names: Names;
  readonly sessionId: string;
  readonly ids: IdSource;
  readonly clock: RuntimeClock;
  readonly logger: RuntimeLogger;
  /** How long a write waits for the worker's commit confirmation (flow 1). */
  readonly confirmTimeoutMs: number;
  /**
   * How many times the session row and title writes are published before they count as
   * unconfirmed: a confirmation travels on core NATS and may be missed, so the same command
   * goes again as `<commandId>:<n>` (docs/decisions/0050). Default 3.
   */
  readonly confirmAttempts?: number;
  /** The bound on a command's body and where larger fields go (docs/decisions/0162). */
  readonly offload?: BlobOffload;
}

/**
 * The transcript writer of the service (R7, flow 1): each write is a persistence command
 * on the work-queue stream, acknowledged by the broker before the call resolves. Versions
 * grow per session (at least the clock), so a late or repeated write never overwrites a
 * newer one. The user message, the session row and the title wait for the worker's commit
 * confirmation, republished while unconfirmed; a user message that does not commit stops
 * its turn from running (issue 9). The session
 * row and the title wait for theirs too, republished while unconfirmed, so that whatever
 * the worker's batching nothing of the session is published before its row is visible,
 * and a title event follows its commit (docs/decisions/0130).
 */
export class CommandWriter implements TranscriptWriter {
  readonly #o: CommandWriterOptions;
  readonly #waiting = new Map<string, (c: PersistenceConfirmation) => void>();
  readonly #sub: Subscription;
  #version = 0;
  #closed = false;

  constructor(options: CommandWriterOptions) {
    this.#o = options;
    this.#sub = options.nc.subscribe(options.names.confirmSubject(options.sessionId), {
      callback: (err, msg) => {
        if (err !== null) return;
        const parsed = PersistenceConfirmation.safeParse(msg.json());
        if (!parsed.success) return;
        this.#waiting.get(parsed.data.commandId)?.(parsed.data);
      },
    });
  }

  /** Stops listening for confirmations, and retrying publishes. */
  close(): void {
    this.#closed = true;
    this.#sub.unsubscribe();
  }

  ensureSession(session: SessionRecord, ctx: WriteContext): Promise<ConfirmedWrite> {
    const { sessionId: _sid, ...rest } = session;
    return this.#confirmed({ ...this.#base(ctx), kind: 'ensure_session', session: rest });
  }

  async saveUserMessage(
    message: UserMessage,
    parts: readonly UserMessagePart[],
    ctx: WriteContext & { readonly promoteInputId?: string },
  ): Promise<UserMessageWrite> {
    const command: PersistenceCommand = {
      ...this.#base(ctx),
      kind: 'save_user_message',
      version: this.#nextVersion(),
      message,
      parts: [...parts],
      ...(ctx.promoteInputId === undefined
        ? {}
        : { promoteInputId: ctx.promoteInputId, promotedSequenceNumber: ctx.sequence }),
    };
    // Republished while unconfirmed, like the row: the turn runs only once it committed.
    const write = await this.#confirmed(command);
    const { commandId } = command;
    if (!write.confirmed) return { committed: false, failure: 'unconfirmed', commandId };
    if (write.outcome === 'condition_failed') {
      return { committed: false, failure: 'refused', commandId };
    }
    return { committed: true, commandId };
  }

  saveAssistantMessage(message: AssistantMessage, ctx: WriteContext): Promise<void> {
    return this.#send({
      ...this.#base(ctx),
      kind: 'save_assistant_message',
      version: this.#nextVersion(),
      message,
    });
  }

  savePart(part: Part, ctx: WriteContext): Promise<void> {
    return this.#send({
      ...this.#base(ctx),
      kind: 'save_part',
      version: this.#nextVersion(),
      part,
    });
  }

  updateTitle(
    update: { readonly sessionId: string; readonly title: string; readonly source: TitleSource },
    ctx: WriteContext,
  ): Promise<ConfirmedWrite> {
    return this.#confirmed({
      ...this.#base(ctx),
      kind: 'update_title',
      title: update.title,
      source: update.source,
      expectedSources: [...replaceableTitleSources(update.source)],
    });
  }

  /**
   * Closes an input's ledger row `discarded` while it is still admitted (R14.2, 0237),
   * waiting for the worker's answer: `applied`, or `condition_failed` when it was not
   * admitted any more (its promotion committed first). Unconfirmed when the worker did not
   * answer in time.
   */
  /** R9.9: the first question was rewound away (0239); published, not awaited. */
  async markFirstInputRewound(ctx: WriteContext): Promise<void> {
    await this.#send({ ...this.#base(ctx), kind: 'mark_first_input_edited' });
  }

  /** An imported transcript's messages, as they are, confirmed (0241). */
  importMessages(
    entries: PersistenceCommandOf<'import_messages'>['entries'],
    ctx: WriteContext,
  ): Promise<ConfirmedWrite> {
    return this.#confirmed({ ...this.#base(ctx), kind: 'import_messages', entries });
  }

  /** A fork's transcript copied into this writer's session, confirmed (0240). */
  copyTranscript(
    copy: {
      readonly fromSessionId: string;
      readonly messageIds: readonly string[];
      readonly idSuffix: string;
    },
    ctx: WriteContext,
  ): Promise<ConfirmedWrite> {
    return this.#confirmed({
      ...this.#base(ctx),
      kind: 'copy_transcript',
      fromSessionId: copy.fromSessionId,
      messageIds: [...copy.messageIds],
      idSuffix: copy.idSuffix,
    });
  }

  closeInput(inputId: string, reason: string, ctx: WriteContext): Promise<ConfirmedWrite> {
    return this.#confirmed({ ...this.#base(ctx), kind: 'close_input', inputId, reason });
  }

  #base(ctx: WriteContext) {
    return {
      commandId: this.#o.ids.newId('cmd'),
      sessionId: this.#o.sessionId,
      issuedAt: this.#o.clock.now(),
      traceId: ctx.traceId,
    };
  }

  #publishOptions(): { offload?: BlobOffload } {
    return this.#o.offload === undefined ? {} : { offload: this.#o.offload };
  }

  #nextVersion(): number {
    this.#version = nextCommandVersion(this.#version, this.#o.clock.now());
    return this.#version;
  }

  /**
   * Publishes until the broker acknowledged, retrying while it is away with the same
   * `Nats-Msg-Id` (a retry of a publish that did land is a duplicate, issue 9); a closed
   * writer (the session left residency) stops retrying.
   */
  async #send(command: PersistenceCommand): Promise<void> {
    for (let attempt = 1; ; attempt += 1) {
      try {
        await publishCommand(this.#o.js, this.#o.names, command, this.#publishOptions());
        return;
      } catch (err) {
        if (!(err instanceof BusError && err.retryable) || this.#closed) throw err;
        await new Promise((resolve) =>
          setTimeout(resolve, backoffMs(attempt, Math.random, 100, 2_000)),
        );
      }
    }
  }

  /**
   * Publishes `command` and waits for its confirmation, republishing while unconfirmed
   * (a republish that fails is logged: a late confirmation of an earlier one still counts).
   */
  async #confirmed(command: PersistenceCommand): Promise<ConfirmedWrite> {
    const attempts = this.#o.confirmAttempts ?? 3;
    for (let attempt = 0; attempt < attempts; attempt += 1) {
      const confirmed = this.#awaitConfirmation(command.commandId);
      if (attempt === 0) await this.#send(command);
      else {
        await publishCommand(this.#o.js, this.#o.names, command, {
          ...this.#publishOptions(),
          attempt,
        }).catch((err: unknown) =>
          this.#o.logger.warn({ err, sessionId: this.#o.sessionId }, 'republish failed'),
        );
      }
      const confirmation = await confirmed;
      const republished = attempt > 0;
      if (confirmation?.ok === true) {
        return { confirmed: true, outcome: confirmation.outcome, republished };
      }
      if (confirmation !== undefined) {
        this.#o.logger.warn(
          { sessionId: this.#o.sessionId, kind: command.kind, error: confirmation.error },
          'session write refused',
        );
        return { confirmed: true, outcome: 'condition_failed', republished };
      }
      this.#o.logger.warn(
        { sessionId: this.#o.sessionId, commandId: command.commandId, kind: command.kind, attempt },
        'session write not confirmed in time; publishing it again',
      );
    }
    return { confirmed: false };
  }

  #awaitConfirmation(commandId: string): Promise<PersistenceConfirmation | undefined> {
    return new Promise((resolve) => {
      const timer = setTimeout(() => done(undefined), this.#o.confirmTimeoutMs);
      const done = (c: PersistenceConfirmation | undefined) => {
        clearTimeout(timer);
        this.#waiting.delete(commandId);
        resolve(c);
      };
      this.#waiting.set(commandId, done);
    });
  }
}
