import type { Message, Part } from '@agentwire/contracts';
import type { ModelMessage } from '@agentwire/model';

/** One persisted message with its parts, as read back on cold recovery. */
export interface TranscriptEntry {
  readonly message: Message;
  readonly parts: readonly Part[];
}

/**
 * Cold recovery (R10.4, DESIGN.md flow 5): rebuilds the conversation the model sees from
 * persisted messages and parts. User text parts become user messages; an assistant
 * message becomes its text plus its tool calls, followed by one tool message per closed
 * call (completed output, or the error). Messages hidden from the provider are skipped.
 */
export function historyFromTranscript(entries: readonly TranscriptEntry[]): ModelMessage[] {
  const history: ModelMessage[] = [];
  for (const { message, parts } of entries) {
    if (message.semantics?.providerVisibility === 'hidden') continue;
    const text = parts.flatMap((p) => (p.type === 'text' ? [p.text] : [])).join('');
    if (message.role === 'user') {
      history.push({ role: 'user', content: text });
      continue;
    }
    const tools = parts.flatMap((p) => (p.type === 'tool' ? [p] : []));
    history.push({
      role: 'assistant',
      content: text,
      ...(tools.length === 0
        ? {}
        : {
            toolCalls: tools.map((t) => ({
              toolCallId: t.toolCallId,
              toolName: t.toolName,
              input: t.state.input,
            })),
          }),
    });
    for (const t of tools) {
      const state = t.state;
      const isError = state.status !== 'completed';
      const content =
        state.status === 'completed'
          ? state.output
          : state.status === 'error'
            ? state.error
            : 'runtime_lost: the call never finished';
      history.push({
        role: 'tool',
        content,
        toolCallId: t.toolCallId,
        toolName: t.toolName,
        isError,
      });
    }
  }
  return history;
}

/** Number of real user turns in a transcript (turn numbering continues after recovery). */
export function countUserTurns(entries: readonly TranscriptEntry[]): number {
  return entries.filter((e) => e.message.role === 'user' && e.message.synthetic !== true).length;
}
