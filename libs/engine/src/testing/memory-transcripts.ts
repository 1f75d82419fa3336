import type { Message, Part } from '@agentwire/contracts';
import { activeChain } from '@agentwire/domain';
import type { TranscriptPart, TranscriptRow } from '../kernel/history-from-transcript.ts';
import type { TranscriptReader, TreeMessage } from '../kernel/ports.ts';
import type { RecordingWriter } from './fake-ports.ts';

/** The messages and parts a recording writer holds, as the store would (latest write wins). */
function stored(writer: RecordingWriter) {
  const messages = new Map<string, Message>();
  const parts = new Map<string, Part>();
  for (const call of writer.calls) {
    if (call.kind === 'save_user_message') {
      const { message, parts: list } = call.value as { message: Message; parts: Part[] };
      messages.set(message.id, message);
      for (const p of list) parts.set(p.id, p);
    } else if (call.kind === 'save_assistant_message') {
      const message = call.value as Message;
      messages.set(message.id, message);
    } else if (call.kind === 'save_part') {
      const part = call.value as Part;
      parts.set(part.id, part);
    }
  }
  return { messages: [...messages.values()], parts: [...parts.values()] };
}

function transcriptPart(p: Part): TranscriptPart | undefined {
  if (p.type === 'text') {
    return {
      type: 'text',
      text: p.text,
      toolCallId: null,
      toolName: null,
      status: null,
      input: null,
      output: null,
      error: null,
    };
  }
  if (p.type !== 'tool') return undefined;
  const state = p.state as { status: string; input?: unknown; output?: string; error?: string };
  return {
    type: 'tool',
    text: null,
    toolCallId: p.toolCallId,
    toolName: p.toolName,
    status: state.status,
    input: state.input ?? null,
    output: state.output ?? null,
    error: state.error ?? null,
  };
}

/**
 * The session tree read back from what a {@link RecordingWriter} recorded, in write order
 * (the unit tests' stand-in for the host's Postgres reader, docs/decisions/0239).
 */
export function memoryTranscripts(writer: RecordingWriter): TranscriptReader {
  return {
    async tree() {
      const { messages, parts } = stored(writer);
      return messages.map((m): TreeMessage => {
        const text = parts.find((p) => p.messageId === m.id && p.type === 'text');
        return {
          id: m.id,
          treeParentId: m.treeParentId,
          role: m.role,
          prompt:
            m.role === 'user' && m.synthetic !== true && m.semantics?.kind !== 'slash_command',
          preview: text?.type === 'text' ? text.text.slice(0, 120) : '',
        };
      });
    },
    async chain(_sessionId, leafId) {
      const { messages, parts } = stored(writer);
      return activeChain(messages, leafId).map(
        (m): TranscriptRow => ({
          role: m.role,
          providerVisibility: m.semantics?.providerVisibility ?? null,
          synthetic: m.role === 'user' && m.synthetic === true,
          kind: m.semantics?.kind ?? null,
          parts: parts.flatMap((p) => {
            const row = p.messageId === m.id ? transcriptPart(p) : undefined;
            return row === undefined ? [] : [row];
          }),
        }),
      );
    },
  };
}
