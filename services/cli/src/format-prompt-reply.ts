import { isQueuedPromptReply, type PromptReply } from '@agentwire/contracts';

/**
 * The line `agentwire prompt` prints for a reply (R14.3): the started turn's id (with
 * `--wait`, its status and response); for an input that waits or is guided into the running
 * turn, `queued <inputId> <delivery>`, or once settled with `--wait` the turn it ran in, or
 * `discarded <inputId> <reason>` when it left without running.
 */
export function formatPromptReply(reply: PromptReply, wait: boolean): string {
  if (isQueuedPromptReply(reply)) {
    if (reply.discarded !== undefined) return `discarded ${reply.inputId} ${reply.discarded}`;
    if (!wait || reply.turnId === undefined) return `queued ${reply.inputId} ${reply.delivery}`;
  }
  const turnId = reply.turnId ?? '';
  return wait ? `${turnId} ${reply.status ?? ''} ${reply.response ?? ''}`.trim() : turnId;
}
