import { isCommandPromptReply, isQueuedPromptReply, type PromptReply } from '@agentwire/contracts';

/**
 * The line `agentwire prompt` prints for a reply (R14.3): the started turn's id (with
 * `--wait`, its status and response); for an input that waits or is guided into the running
 * turn, `queued <inputId> <delivery>`, or once settled with `--wait` the turn it ran in, or
 * `discarded <inputId> <reason>` when it left without running; for a slash command run
 * directly (R12.1), its result.
 */
export function formatPromptReply(reply: PromptReply, wait: boolean): string {
  if (isCommandPromptReply(reply)) return formatCommandResult(reply.command, reply.result);
  if (isQueuedPromptReply(reply)) {
    if (reply.discarded !== undefined) return `discarded ${reply.inputId} ${reply.discarded}`;
    if (!wait || reply.turnId === undefined) return `queued ${reply.inputId} ${reply.delivery}`;
  }
  const turnId = reply.turnId ?? '';
  return wait ? `${turnId} ${reply.status ?? ''} ${reply.response ?? ''}`.trim() : turnId;
}

/** What a slash command answered, readable: `/help` as a table, the others as `key: value`. */
export function formatCommandResult(command: string, result: Record<string, unknown>): string {
  const commands = result.commands;
  if (command === 'help' && Array.isArray(commands)) {
    const rows = commands.map((c: { usage?: unknown; summary?: unknown }) => [
      String(c.usage ?? ''),
      String(c.summary ?? ''),
    ]);
    const width = Math.max(0, ...rows.map(([usage]) => (usage ?? '').length));
    return rows.map(([usage, summary]) => `${(usage ?? '').padEnd(width)}  ${summary}`).join('\n');
  }
  return Object.entries(result)
    .map(([key, value]) => `${key}: ${typeof value === 'string' ? value : JSON.stringify(value)}`)
    .join('\n');
}
