import type { SessionEvent } from '@agentwire/contracts';
import type { TranscriptRow } from './history-from-transcript.ts';
import type { FileWritten } from './tool-definition.ts';

/** Outcome of publishing one numbered event to the bus. */
export type PublishOutcome =
  | { readonly ok: true; readonly duplicate: boolean }
  | { readonly ok: false; readonly reason: 'fenced'; readonly detail: string }
  /**
   * The event was not stored and never will be (larger than the broker's `max_payload`,
   * over a stream limit, refused by the broker): nothing holds its number, so the window
   * withdraws it (docs/decisions/0160). Only for failures known not to have stored it.
   */
  | { readonly ok: false; readonly reason: 'refused'; readonly detail: string };

/**
 * Where numbered events go on the way out of step 1 (R5.1): JetStream in the service, a
 * recorder in unit tests. `previousDurableSequence` is the session's previous
 * non-transient event's number (header `Aw-Prev-Seq`).
 */
export interface EventPublisher {
  publish(event: SessionEvent, previousDurableSequence: number): Promise<PublishOutcome>;
}

/** R1.2: one call per subscriber. */
export interface SessionSink {
  readonly name: string;
  onSessionEvent(event: SessionEvent): void | Promise<void>;
}

/** R5's usage step: usage statistics from the event. */
export interface UsageRecorder {
  recordUsage(event: SessionEvent): void;
}

/** The logging surface the runtime needs (pino-compatible). */
export interface RuntimeLogger {
  debug(obj: object, msg?: string): void;
  info(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
  error(obj: object, msg?: string): void;
}

/** Time and ids come in from outside (STYLE.md). */
export interface RuntimeClock {
  now(): number;
}

/** Generates ids; `kind` names what the id is for (`turn`, `msg`, `part`, `evt`). */
export interface IdSource {
  newId(kind: string): string;
  /** A W3C trace id (32 lowercase hex digits). */
  newTraceId(): string;
}

/**
 * Content hashing, given by the host (the engine does no I/O, and no `node:crypto`): the
 * runtime's is Node's SHA-256. Digests of `model_request` chains (docs/decisions/0161).
 */
export interface ContentHasher {
  /** SHA-256 of `text` (UTF-8) as 64 lowercase hex digits. */
  readonly sha256Hex: (text: string) => string;
}

/** Why a workspace file could not be read for an `@file` reference (R7.3, R12.1). */
export type WorkspaceFileFailure =
  | 'not_found'
  | 'outside_workspace'
  | 'not_a_file'
  | 'not_text'
  | 'too_large';

/** A text file of the workspace, read for an `@file` reference. */
interface WorkspaceFile {
  /** Relative to the workspace root, with symbolic links resolved. */
  readonly path: string;
  readonly mime: string;
  readonly text: string;
  /** Size in bytes (UTF-8). */
  readonly bytes: number;
}

/**
 * The session's workspace as submissions see it (R12.1), given by the host: the engine does
 * no file I/O. Paths are confined to the workspace root, symbolic links included.
 */
export interface WorkspaceFiles {
  readFile(
    requested: string,
  ): Promise<
    | { readonly ok: true; readonly file: WorkspaceFile }
    | { readonly ok: false; readonly reason: WorkspaceFileFailure; readonly message: string }
  >;
  /** The text of `.agentwire/prompts/<name>.md`, or undefined when there is none. */
  readPromptTemplate(name: string): Promise<string | undefined>;
  /** Names of the workspace's prompt templates, sorted. */
  listPromptTemplates(): Promise<readonly string[]>;
}

/** One message of the session tree, as the transcript reader gives it (0239). */
export interface TreeMessage {
  readonly id: string;
  /** As stored: `null` at the root, `undefined` on a row written before the tree. */
  readonly treeParentId?: string | null | undefined;
  readonly role: 'user' | 'assistant';
  /** A real prompt: a user message neither synthetic nor a command line. */
  readonly prompt: boolean;
  /** The start of its first text part, for listings. */
  readonly preview: string;
}

/**
 * The session's stored transcript, read back by the host (docs/decisions/0239): what a move
 * of the active chain and `/tree` need. Each read first waits until the worker committed
 * every write of the session (its persistence commands are all applied), so what the
 * session wrote is there.
 */
export interface TranscriptReader {
  /** Every message of the session, in the transcript's order. */
  tree(sessionId: string): Promise<readonly TreeMessage[]>;
  /** The rows the model's history is built from, along the chain ending at `leafId`. */
  chain(sessionId: string, leafId: string): Promise<readonly TranscriptRow[]>;
}

/** A fork as the host is asked for it (docs/decisions/0240). */
export interface ForkRequest {
  readonly sessionId: string;
  /** The chain the new session starts with, root first, ending at `targetMessageId`. */
  readonly messageIds: readonly string[];
  readonly targetMessageId: string;
  readonly title: string | null;
}

/**
 * Session replacement, which only the host can do (docs/decisions/0240): make a session,
 * lease it and make it resident. The engine decides and vetoes before asking.
 */
export interface SessionReplacements {
  /**
   * A new session with its own id and lease, holding a copy of the chain; resident here
   * and told it was forked (its `announce_fork` operation) before this resolves.
   */
  fork(request: ForkRequest): Promise<{ readonly sessionId: string; readonly owner: string }>;
}

/** What a checkpoint recorded (docs/decisions/0225). */
interface CheckpointCapture {
  /** Where any runtime instance reads it back. */
  readonly snapshotRef: string;
  /** Files recorded, restorable or not. */
  readonly fileCount: number;
  /** Files recorded as not restorable (over the size limit, a special file), with why. */
  readonly unrestorable: readonly { readonly path: string; readonly reason: string }[];
}

/** What a rewind of the workspace did, or why it did nothing. */
export type WorkspaceRewind =
  | {
      readonly ok: true;
      /** Files written back and files deleted again (the agent had created them). */
      readonly restored: readonly string[];
      readonly removed: readonly string[];
      /** Files the checkpoints hold as not restorable, left as they are. */
      readonly unrestorable: readonly string[];
      /** What the rewind overwrote, recorded as the checkpoint `keepAs` names (0239). */
      readonly kept?: CheckpointCapture;
    }
  | {
      readonly ok: false;
      /** `changed`: someone else changed these files since the agent did; `missing`: no snapshot. */
      readonly reason: 'changed' | 'missing';
      readonly files: readonly string[];
      readonly message: string;
    };

/**
 * Workspace snapshots in a store every runtime instance reads (docs/decisions/0225), given
 * by the host: the engine does no file I/O.
 */
export interface CheckpointStore {
  /** Records the current state of `paths`, or of the whole workspace, before a tool. */
  capture(
    sessionId: string,
    checkpointId: string,
    scope: readonly string[] | 'workspace',
  ): Promise<CheckpointCapture>;
  /**
   * Records what the tool left in the checkpoint's scope (to tell the user's edits apart):
   * the files it says it wrote as it wrote them, the rest as they are now.
   */
  settle(sessionId: string, checkpointId: string, written?: readonly FileWritten[]): Promise<void>;
  /**
   * Resolves once every capture and settle so far is in the shared store (they may upload
   * in the background); rejects when an upload failed (those checkpoints are unavailable).
   */
  flush(): Promise<void>;
  /**
   * Puts the workspace back as it was before `checkpointIds[0]`, given every checkpoint
   * taken since, oldest first: each file to its state before the first of them that
   * touched it. Refuses, changing nothing, when a file differs from what the agent left.
   */
  rewind(
    sessionId: string,
    checkpointIds: readonly string[],
    options?: {
      /**
       * Records the files the rewind changes as they are now, as this checkpoint (settled
       * after the restore), so the branch left behind can get them back (0239).
       */
      readonly keepAs?: string;
    },
  ): Promise<WorkspaceRewind>;
}
