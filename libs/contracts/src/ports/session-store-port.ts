/** The session store port (SPEC.md R1.3, R16.4): what the runtime persists and reads back. */
import type { LedgerRow } from '../ledger.ts';
import type { Message, UserMessage } from '../messages/message.ts';
import type { Part } from '../parts/part.ts';
import type { TitleSource } from '../payloads/common.ts';
import type { SessionEntry, SessionEntryType } from '../session-entry.ts';
import type { SessionRecord } from '../session-record.ts';

/** Filters of {@link SessionStorePort.listSessions} (R16.4). */
export interface SessionListFilter {
  readonly directory?: string;
  readonly taskTypes?: readonly string[];
  readonly archived?: boolean;
  readonly limit?: number;
}

/** The outcome of a compare-and-set write. */
export type ConditionalWriteResult =
  | { readonly ok: true }
  | { readonly ok: false; readonly reason: 'not_found' | 'condition_failed' };

/** A message with its parts. */
export interface MessageWithParts<M extends Message = Message> {
  readonly message: M;
  readonly parts: readonly Part[];
}

/**
 * Sessions, messages and parts, entries and the input ledger (R16.4). In this project the
 * persistence worker implements it over Postgres; writes arrive as persistence commands.
 */
export interface SessionStorePort {
  createSession(session: SessionRecord): Promise<void>;
  getSession(sessionId: string): Promise<SessionRecord | undefined>;
  updateSession(
    sessionId: string,
    patch: Partial<Omit<SessionRecord, 'id'>>,
  ): Promise<ConditionalWriteResult>;
  listSessions(filter?: SessionListFilter): Promise<readonly SessionRecord[]>;
  /** Compare-and-set on the current title source (R9.3, R9.9). */
  updateTitle(
    sessionId: string,
    title: string,
    source: TitleSource,
    expectedSources: readonly TitleSource[],
  ): Promise<ConditionalWriteResult>;

  /** Upserts a message (R7.1). */
  saveMessage(message: Message): Promise<void>;
  /** Upserts a part; a tool part's status never moves back (R7.5). */
  savePart(part: Part): Promise<void>;
  /** Upserts a message and its parts in one transaction. */
  saveMessageWithParts(entry: MessageWithParts): Promise<void>;
  removeMessage(sessionId: string, messageId: string): Promise<void>;
  removePart(sessionId: string, partId: string): Promise<void>;
  /** The session's messages with their parts, in creation order (cold recovery, R10.4). */
  listMessages(sessionId: string): Promise<readonly MessageWithParts[]>;

  /** Saves an entry; the auto-resolution entry upserts on its key (R6). */
  saveEntry(entry: SessionEntry): Promise<void>;
  listEntries(sessionId: string, type?: SessionEntryType): Promise<readonly SessionEntry[]>;

  /** Saves an input at admission; idempotent per id (R16.4). */
  admitInput(row: LedgerRow): Promise<void>;
  /** Edits or reorders an input, only while `admitted` (R14.2). */
  updateInput(
    sessionId: string,
    inputId: string,
    patch: Partial<Pick<LedgerRow, 'delivery' | 'input' | 'position'>>,
  ): Promise<ConditionalWriteResult>;
  /**
   * Promotes an input: the row, the user message and its parts in one transaction
   * (R7.3, R14.2).
   */
  promoteInput(
    sessionId: string,
    inputId: string,
    promotion: {
      readonly sequenceNumber: number;
      readonly message: MessageWithParts<UserMessage>;
    },
  ): Promise<ConditionalWriteResult>;
  /** Settles an admitted input as cancelled, discarded or failed with a reason (R14.2). */
  settleInput(
    sessionId: string,
    inputId: string,
    status: 'cancelled' | 'discarded' | 'failed',
    reason: string,
  ): Promise<ConditionalWriteResult>;
  listInputs(sessionId: string): Promise<readonly LedgerRow[]>;
  getInput(sessionId: string, inputId: string): Promise<LedgerRow | undefined>;
}
