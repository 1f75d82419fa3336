import type {
  HistoryMessage,
  HistoryReply,
  ListSessionsReply,
  Part,
  PendingSteerInput,
  SessionProjection,
  SessionSummary,
} from '@agentwire/contracts';
import { createStyle, type Style } from './style.ts';

const PLAIN = createStyle(false);

/** Longest text of one part printed by `history`. */
const PART_MAX_CHARS = 200;

function cut(text: string, max: number): string {
  const flat = text.replaceAll(/\s+/g, ' ').trim();
  return flat.length <= max ? flat : `${flat.slice(0, max - 1)}…`;
}

function when(epochMs: number | null): string {
  return epochMs === null ? '-' : new Date(epochMs).toISOString().replace('.000Z', 'Z');
}

function statusText(status: string | null, style: Style): string {
  const text = (status ?? 'unknown').padEnd(9);
  if (status === 'running' || status === 'waiting') return style.yellow(text);
  if (status === 'error') return style.red(text);
  if (status === 'idle' || status === 'completed') return style.green(text);
  return style.dim(text);
}

/** One line of `agentwire sessions`: id, status, last activity, number, title. */
function formatSessionLine(session: SessionSummary, style: Style = PLAIN): string {
  const title = session.title === null ? style.dim('(untitled)') : session.title;
  const archived = session.archived ? style.dim(' [archived]') : '';
  return [
    style.bold(session.id),
    statusText(session.status, style),
    when(session.lastActivityAt ?? session.updatedAt),
    `#${session.lastSequence}`.padStart(6),
    `${title}${archived}`,
  ].join('  ');
}

/** The lines of `agentwire sessions`: one per session, then how to get the next page. */
export function formatSessions(reply: ListSessionsReply, style: Style = PLAIN): string[] {
  if (reply.sessions.length === 0) return [style.dim('no sessions')];
  const lines = reply.sessions.map((s) => formatSessionLine(s, style));
  if (reply.nextCursor !== null) {
    lines.push(style.dim(`more: agentwire sessions --cursor ${reply.nextCursor}`));
  }
  return lines;
}

function formatPart(part: Part, style: Style): string | undefined {
  switch (part.type) {
    case 'text':
      return cut(part.text, PART_MAX_CHARS);
    case 'reasoning':
      return style.dim(`(reasoning) ${cut(part.text, PART_MAX_CHARS)}`);
    case 'tool': {
      const state = part.state;
      const status =
        state.status === 'completed'
          ? style.green('completed')
          : state.status === 'error'
            ? style.red('error')
            : style.yellow(state.status);
      const detail =
        state.status === 'completed'
          ? ` ${JSON.stringify(cut(state.output, 80))}`
          : state.status === 'error'
            ? ` ${cut(state.error, 80)}`
            : '';
      return `${style.cyan(`tool ${part.toolName}`)} ${status}${detail}`;
    }
    default:
      return undefined;
  }
}

/** The lines of one history message: a header, then one indented line per shown part. */
function formatHistoryMessage(entry: HistoryMessage, style: Style = PLAIN): string[] {
  const { message, parts } = entry;
  const role =
    message.semantics?.kind === 'compact_summary'
      ? style.yellow('summary')
      : message.role === 'user'
        ? style.cyan('user')
        : style.green('assistant');
  const head = `${style.bold(role)} ${style.dim(`${message.id} ${when(message.time.created)}`)}`;
  const body = parts
    .map((p) => formatPart(p, style))
    .filter((line): line is string => line !== undefined)
    .map((line) => `  ${line}`);
  return [head, ...body];
}

/**
 * The lines of `agentwire history`: the messages, then the cursors of the pages around.
 * `exact` (the page was asked `--as-of`): only then is following on from `asOfSeq + 1`
 * gapless; without it the page may trail its mark (docs/decisions/0181).
 */
export function formatHistory(reply: HistoryReply, style: Style = PLAIN, exact = false): string[] {
  const lines = reply.messages.flatMap((m) => formatHistoryMessage(m, style));
  if (lines.length === 0) lines.push(style.dim('no messages'));
  const sid = reply.sessionId;
  const next = reply.asOfSeq + 1;
  lines.push(
    style.dim(
      exact
        ? `as of #${reply.asOfSeq} (follow on: agentwire tail ${sid} --from ${next})`
        : `as of #${reply.asOfSeq}`,
    ),
  );
  if (reply.older !== null)
    lines.push(style.dim(`older: agentwire history ${sid} --cursor ${reply.older}`));
  if (reply.newer !== null)
    lines.push(style.dim(`newer: agentwire history ${sid} --cursor ${reply.newer}`));
  return lines;
}

/** A waiting input as one line: position, id, delivery, preview. */
export function formatQueuedInput(
  input: PendingSteerInput,
  index: number,
  style: Style = PLAIN,
): string {
  return `${String(index + 1).padStart(3)}. ${style.bold(input.pendingInputId)}  ${input.delivery}  ${JSON.stringify(cut(input.inputPreview, 80))}`;
}

/** The lines of `agentwire show`: a readable summary of a session's projection. */
export function formatProjection(
  projection: SessionProjection,
  asOfSeq: number,
  style: Style = PLAIN,
): string[] {
  const p = projection;
  const lines = [
    `${style.bold('session')}  ${p.id}`,
    `${style.bold('title')}    ${p.title === null ? style.dim('(untitled)') : p.title}${p.titleSource === null ? '' : style.dim(` (${p.titleSource})`)}`,
    `${style.bold('status')}   ${statusText(p.status, style).trimEnd()}${p.currentTurnId === null ? '' : ` turn ${p.currentTurnId}`}`,
    `${style.bold('mode')}     ${p.mode}`,
    `${style.bold('turns')}    ${p.turnCount}`,
    `${style.bold('tokens')}   ${p.totalTokenCount} total, context ${p.contextUsed}/${p.contextWindow}`,
    `${style.bold('created')}  ${when(p.createdAt)}`,
    `${style.bold('updated')}  ${when(p.updatedAt)} (as of #${asOfSeq})`,
  ];
  if (p.pendingPermissions.length > 0) {
    lines.push(style.bold(style.yellow(`permissions waiting (${p.pendingPermissions.length}):`)));
    for (const perm of p.pendingPermissions) {
      lines.push(
        `  ${perm.requestId ?? '?'}  ${perm.toolName} (${perm.riskLevel}): ${cut(perm.reason ?? '', 80)}  ${style.dim(`agentwire answer ${p.id} ${perm.requestId ?? '<requestId>'} allow|deny`)}`,
      );
    }
  }
  if (p.pendingSteerInputs.length > 0) {
    lines.push(style.bold(`queue (${p.pendingSteerInputs.length}):`));
    p.pendingSteerInputs.forEach((input, i) => {
      lines.push(`  ${formatQueuedInput(input, i, style)}`);
    });
  }
  if (p.activeToolCalls.length > 0) {
    lines.push(style.bold(`tool calls (${p.activeToolCalls.length}):`));
    for (const call of p.activeToolCalls) lines.push(`  ${call.toolName} ${call.status}`);
  }
  if (p.lastError !== null) {
    lines.push(`${style.bold(style.red('last error'))} ${cut(p.lastError.error.message, 120)}`);
  }
  return lines;
}
