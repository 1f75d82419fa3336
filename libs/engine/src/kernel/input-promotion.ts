import type { InputFile } from './feature.ts';
import type { LedgerBook } from './ledger-book.ts';
import type { IdSource, RuntimeClock } from './ports.ts';
import type { SessionEmitter } from './session-emitter.ts';
import type { TranscriptWriter, UserMessageWrite } from './transcript-writer.ts';
import { fileDataUrl } from './user-content.ts';

/** Dependencies of {@link promoteUserInput}. */
export interface PromotionDeps {
  readonly emitter: SessionEmitter;
  readonly writer: TranscriptWriter;
  readonly ids: IdSource;
  readonly clock: RuntimeClock;
  /** The session's ledger statuses, moved to `promoted` before the event says so. */
  readonly ledger: LedgerBook;
}

/** One input becoming a user message of `turnId`. */
export interface PromotionSpec {
  readonly turnId: string;
  readonly traceId: string;
  readonly messageId: string;
  readonly input: string;
  /** Files its `@file` references named (R7.3): file parts after the text part. */
  readonly files: readonly InputFile[];
  readonly inputId: string;
  /**
   * `slash_command`: a queued session-level command's line (0238), shown in the UI and the
   * transcript but never sent to the model; a prompt otherwise.
   */
  readonly kind?: 'slash_command';
}

/**
 * R7.3 and R14.2: writes the user message with its text and file parts and the ledger promotion of
 * `inputId` in one persistence command (one transaction in the worker), and emits
 * `session_input_promoted` only once the worker confirmed the commit. Used at turn start
 * and for guided inputs drained into a running turn.
 */
export async function promoteUserInput(
  deps: PromotionDeps,
  spec: PromotionSpec,
): Promise<UserMessageWrite> {
  const sessionId = deps.emitter.sessionId;
  const write = await deps.writer.saveUserMessage(
    {
      id: spec.messageId,
      sessionId,
      role: 'user',
      time: { created: deps.clock.now() },
      agent: 'build',
      semantics: {
        origin: 'real_user',
        kind: spec.kind ?? 'user_prompt',
        uiVisibility: 'visible',
        providerVisibility: spec.kind === 'slash_command' ? 'hidden' : 'visible',
        transcriptVisibility: 'visible',
      },
      anchor: { turnId: spec.turnId, origin: 'realUser', sourceCommandId: spec.inputId },
    },
    [
      {
        id: deps.ids.newId('prt'),
        sessionId,
        messageId: spec.messageId,
        type: 'text',
        text: spec.input,
      },
      ...spec.files.map((f) => ({
        id: deps.ids.newId('prt'),
        sessionId,
        messageId: spec.messageId,
        type: 'file' as const,
        mime: f.mime,
        filename: f.path,
        url: fileDataUrl(f),
      })),
    ],
    {
      sequence: deps.emitter.appender.latestSequence,
      traceId: spec.traceId,
      promoteInputId: spec.inputId,
    },
  );
  if (write.committed) {
    deps.ledger.apply(spec.inputId, { kind: 'promote' });
    await deps.emitter.emit('session_input_promoted', null, spec.traceId, {
      pendingInputId: spec.inputId,
      sourceCommandId: write.commandId,
      messageId: spec.messageId,
    });
  }
  return write;
}
