import {
  ChainMoveResult,
  CheckpointListing,
  ForkResult,
  isCommandPromptReply,
  type QueuedPromptReply,
  type SessionCommandReply,
  TreeListing,
} from '@agentwire/contracts';
import { formatCommandResult } from './format-prompt-reply.ts';
import { createStyle, type Style } from './style.ts';

const PLAIN = createStyle(false);

/** Longest first-message preview `agentwire tree` prints. */
const PREVIEW_MAX_CHARS = 60;

function quoted(text: string): string {
  const flat = text.replaceAll(/\s+/g, ' ').trim();
  return JSON.stringify(
    flat.length <= PREVIEW_MAX_CHARS ? flat : `${flat.slice(0, PREVIEW_MAX_CHARS - 1)}…`,
  );
}

/** A command that waits behind the running turn: its ticket, to await or remove. */
function queuedLine(reply: QueuedPromptReply, style: Style): string {
  const behind = reply.targetTurnId === null ? '' : ` after turn ${reply.targetTurnId}`;
  return `queued ${style.bold(reply.inputId)}: the session is busy; it runs${behind} (agentwire queue ${reply.sessionId})`;
}

/**
 * The reply's result read with `schema`, or the lines of the queued ticket or of a result
 * of another shape (a newer runtime's), printed as `key: value`.
 */
function readResult<T>(
  reply: SessionCommandReply,
  schema: { safeParse(value: unknown): { success: true; data: T } | { success: false } },
  style: Style,
): { readonly ok: true; readonly value: T } | { readonly ok: false; readonly lines: string[] } {
  if (!isCommandPromptReply(reply)) return { ok: false, lines: [queuedLine(reply, style)] };
  const parsed = schema.safeParse(reply.result);
  if (parsed.success) return { ok: true, value: parsed.data };
  return { ok: false, lines: [formatCommandResult(reply.command, reply.result)] };
}

/** `agentwire checkpoints`: the checkpoints in force on the active branch, oldest first. */
export function formatCheckpoints(reply: SessionCommandReply, style: Style = PLAIN): string[] {
  const read = readResult(reply, CheckpointListing, style);
  if (!read.ok) return read.lines;
  const { checkpoints } = read.value;
  if (checkpoints.length === 0) return [style.dim('no checkpoints on the active branch')];
  const width = Math.max(...checkpoints.map((c) => c.checkpointId.length));
  return checkpoints.map(
    (c) =>
      `${style.bold(c.checkpointId.padEnd(width))}  on ${c.messageId}  ${c.fileCount} file${c.fileCount === 1 ? '' : 's'}`,
  );
}

/**
 * `agentwire tree`: one line per branch, the active one marked `*`: its leaf, its size in
 * messages, where it leaves the active chain, and its first prompt of its own.
 */
export function formatTree(reply: SessionCommandReply, style: Style = PLAIN): string[] {
  const read = readResult(reply, TreeListing, style);
  if (!read.ok) return read.lines;
  const { branches } = read.value;
  if (branches.length === 0) return [style.dim('no messages yet')];
  const width = Math.max(...branches.map((b) => b.leafId.length));
  return branches.map((b) => {
    const leaf = b.leafId.padEnd(width);
    const size = `${String(b.size).padStart(3)} message${b.size === 1 ? ' ' : 's'}`;
    const where = b.active ? style.green('active') : `from ${b.forkedAt ?? 'the start'}`;
    const preview = b.firstMessage === undefined ? '' : `  ${quoted(b.firstMessage.preview)}`;
    return `${b.active ? '*' : ' '} ${b.active ? style.bold(leaf) : leaf}  ${size}  ${where}${preview}`;
  });
}

const SCOPE_TEXT = {
  both: 'files and conversation',
  conversation: 'conversation only, files as they are',
  workspace: 'files only',
} as const;

/**
 * A move (`agentwire rewind`, `agentwire tree <messageId>`): where the conversation ends
 * now and what happened to the files, or why nothing moved (`fork_required`: a file changed
 * since the agent wrote it; `unavailable`: a snapshot is missing).
 */
export function formatMove(
  reply: SessionCommandReply,
  verb: 'rewound' | 'moved',
  style: Style = PLAIN,
): string[] {
  const read = readResult(reply, ChainMoveResult, style);
  if (!read.ok) return read.lines;
  const move = read.value;
  const list = (label: string, items: readonly string[] | undefined) =>
    items === undefined || items.length === 0 ? [] : [`  ${label}: ${items.join(', ')}`];
  if (move.strategy === 'fork_required' || move.strategy === 'unavailable') {
    return [
      style.red(`nothing ${verb} (${move.strategy}): ${move.reason ?? ''}`.trim()),
      ...list('files', move.files),
    ];
  }
  const head =
    move.strategy === 'file_only'
      ? `${verb} the files only`
      : `${verb}: the conversation ends at ${move.targetMessageId ?? 'its start'}`;
  return [
    `${head} (${SCOPE_TEXT[move.scope]})${move.leafId === undefined ? '' : `, leaf ${move.leafId}`}`,
    ...list('restored', move.restored),
    ...list('deleted', move.removed),
    ...list('not restorable', move.unrestorable),
    ...(move.reason === undefined ? [] : [style.dim(`  ${move.reason}`)]),
  ];
}

/**
 * `agentwire fork`: the new session, how many messages it holds and its owner, or the
 * ticket of a fork that waits behind the running turn.
 */
export function formatFork(reply: SessionCommandReply, style: Style = PLAIN): string[] {
  const read = readResult(reply, ForkResult, style);
  if (!read.ok) return read.lines;
  const fork = read.value;
  const messages = `${fork.messageCount} message${fork.messageCount === 1 ? '' : 's'}`;
  return [
    `forked ${style.bold(fork.forkedSessionId)}: ${messages} up to ${fork.targetMessageId} (owner ${fork.owner})`,
  ];
}
