import type { HistoryMessage, SessionEvent, SessionEventOf } from '@agentwire/contracts';

/** What a tool call shows: its status follows the events, its output the result. */
export interface ToolView {
  readonly toolCallId: string;
  readonly toolName: string;
  readonly input: unknown;
  readonly status: 'pending' | 'running' | 'completed' | 'failed' | 'denied';
  readonly output?: string;
  readonly error?: string;
}

/** One part of a message as the page draws it. */
type PartView =
  | { readonly kind: 'text'; readonly id: string; readonly text: string }
  | { readonly kind: 'reasoning'; readonly id: string; readonly text: string }
  | { readonly kind: 'tool'; readonly id: string; readonly tool: ToolView };

/** One message of the transcript. `streaming` while its model step runs. */
export interface MessageView {
  readonly id: string;
  readonly role: 'user' | 'assistant';
  readonly turnId: string | null;
  readonly parts: readonly PartView[];
  readonly streaming: boolean;
  /** A compaction's summary (docs/decisions/0229): drawn collapsed, not as a prompt. */
  readonly summary?: boolean;
  /** A timeline divider of the runtime's (a goal's verification, 0231): one line, no bubble. */
  readonly divider?: boolean;
}

/** A turn's end, shown under its messages when it did not simply succeed. */
interface TurnNotice {
  readonly turnId: string;
  readonly text: string;
  readonly level: 'info' | 'error';
}

/**
 * The messages of a session: the history page, then what each later event adds. Messages
 * are merged by id and parts by id, so a message both in the page and named by a later
 * event is drawn once (docs/frontends.md "Read history, then follow").
 */
export interface Transcript {
  readonly messages: readonly MessageView[];
  readonly notices: readonly TurnNotice[];
  /** Parts that came whole from history: later deltas for them would repeat their text. */
  readonly settled: ReadonlySet<string>;
  /**
   * The model step in progress: opened by `model_request`, given its message by the first
   * delta, closed by `model_complete`. Deltas are transient (R3.3) and may be gone when a
   * page follows late; the durable request and completion are not.
   */
  readonly step?: { readonly turnId: string; readonly messageId?: string };
}

/** Draw order inside one message: thinking, then what was said, then what was done. */
const ORDER: Readonly<Record<PartView['kind'], number>> = { reasoning: 0, text: 1, tool: 2 };

function sortParts(parts: readonly PartView[]): PartView[] {
  return [...parts].sort((a, b) => ORDER[a.kind] - ORDER[b.kind]);
}

function toolOfHistory(part: Extract<HistoryMessage['parts'][number], { type: 'tool' }>): ToolView {
  const { state } = part;
  const base = { toolCallId: part.toolCallId, toolName: part.toolName, input: state.input };
  switch (state.status) {
    case 'pending':
      return { ...base, status: 'pending' };
    case 'running':
      return { ...base, status: 'running' };
    case 'completed':
      return { ...base, status: 'completed', output: state.output };
    case 'error':
      return { ...base, status: 'failed', error: state.error };
    default:
      return state satisfies never;
  }
}

/** The transcript of a history page (oldest first). Invisible messages are left out. */
export function transcriptOfHistory(messages: readonly HistoryMessage[]): Transcript {
  const views: MessageView[] = [];
  const settled = new Set<string>();
  for (const { message, parts } of messages) {
    if (message.semantics?.uiVisibility === 'hidden') continue;
    if (message.semantics?.kind === 'timeline_event') {
      const line = dividerOfHistory(message.id, parts);
      if (line !== undefined) views.push(line);
      for (const part of parts) settled.add(part.id);
      continue;
    }
    const drawn: PartView[] = [];
    for (const part of parts) {
      settled.add(part.id);
      if (part.type === 'text' && part.ignored !== true) {
        drawn.push({ kind: 'text', id: part.id, text: part.text });
      } else if (part.type === 'reasoning') {
        drawn.push({ kind: 'reasoning', id: part.id, text: part.text });
      } else if (part.type === 'tool') {
        drawn.push({ kind: 'tool', id: part.id, tool: toolOfHistory(part) });
      }
    }
    views.push({
      id: message.id,
      role: message.role,
      turnId: message.anchor?.turnId ?? null,
      parts: sortParts(drawn),
      streaming: false,
      ...(message.semantics?.kind === 'compact_summary' ? { summary: true } : {}),
    });
  }
  return { messages: views, notices: [], settled };
}

/** What a goal verification's divider says (R7.7, docs/decisions/0231). */
function verdictLine(status: string, verdict?: { passed: boolean; reason: string }): string {
  if (verdict === undefined) return `Goal check ${status.replace('_', ' ')}`;
  return `Goal check: ${verdict.passed ? 'met' : 'not met yet'}, ${verdict.reason}`;
}

function divider(id: string, turnId: string | null, text: string): MessageView {
  const parts = [{ kind: 'text' as const, id: `${id}:line`, text }];
  return { id, role: 'assistant', turnId, parts, streaming: false, divider: true };
}

/** A timeline message of the history as a divider; a verification's start draws nothing. */
function dividerOfHistory(id: string, parts: HistoryMessage['parts']): MessageView | undefined {
  for (const part of parts) {
    if (part.type !== 'timeline' || part.kind !== 'goal_verification') continue;
    if (part.status === 'started') return undefined;
    const verdict =
      part.passed === undefined || part.reason === undefined
        ? undefined
        : { passed: part.passed, reason: part.reason };
    return divider(id, null, verdictLine(part.status, verdict));
  }
  return undefined;
}

function upsertMessage(
  t: Transcript,
  id: string,
  create: () => MessageView,
  change: (m: MessageView) => MessageView,
): Transcript {
  const index = t.messages.findIndex((m) => m.id === id);
  if (index < 0) return { ...t, messages: [...t.messages, change(create())] };
  const messages = [...t.messages];
  messages[index] = change(messages[index] as MessageView);
  return { ...t, messages };
}

function assistant(id: string, turnId: string | null): () => MessageView {
  return () => ({ id, role: 'assistant', turnId, parts: [], streaming: true });
}

function withPart(m: MessageView, part: PartView): MessageView {
  const index = m.parts.findIndex((p) => p.id === part.id);
  const parts = [...m.parts];
  if (index < 0) parts.push(part);
  else parts[index] = part;
  return { ...m, parts: sortParts(parts) };
}

/** Finds the tool call's part anywhere in the transcript and changes its view. */
function changeTool(t: Transcript, toolCallId: string, change: (tool: ToolView) => ToolView) {
  const index = t.messages.findIndex((m) =>
    m.parts.some((p) => p.kind === 'tool' && p.tool.toolCallId === toolCallId),
  );
  if (index < 0) return t;
  const message = t.messages[index] as MessageView;
  const parts = message.parts.map((p) =>
    p.kind === 'tool' && p.tool.toolCallId === toolCallId ? { ...p, tool: change(p.tool) } : p,
  );
  const messages = [...t.messages];
  messages[index] = { ...message, parts };
  return { ...t, messages };
}

function streamed(t: Transcript, e: SessionEventOf<'model_streaming'>): Transcript {
  const p = e.payload;
  const messageId = p.assistantMessageId;
  if (messageId === undefined) return t;
  if (p.kind === 'finish') {
    return upsertMessage(t, messageId, assistant(messageId, e.turnId), (m) => ({
      ...m,
      streaming: false,
    }));
  }
  if ((p.kind !== 'text_delta' && p.kind !== 'reasoning_delta') || p.partId === undefined) return t;
  const partId = p.partId;
  if (t.settled.has(partId)) return t;
  const kind = p.kind === 'text_delta' ? 'text' : 'reasoning';
  const opened = t.step?.turnId === e.turnId ? { ...t, step: { ...t.step, messageId } } : t;
  return upsertMessage(opened, messageId, assistant(messageId, e.turnId), (m) => {
    const old = m.parts.find((x) => x.id === partId);
    const text = (old?.kind === kind ? old.text : '') + p.delta;
    return withPart(m, { kind, id: partId, text });
  });
}

function isMainTurn(turnId: string | null, source: string | undefined): turnId is string {
  return turnId !== null && (source === undefined || source === 'main_turn');
}

/**
 * `model_complete` of a turn's model step carries the step's whole text, which is what the
 * message says in the end: it replaces the streamed text (deltas may have been missed), or
 * becomes a message of its own when no delta of the step was seen at all.
 */
function completed(t: Transcript, e: SessionEventOf<'model_complete'>): Transcript {
  if (!isMainTurn(e.turnId, e.payload.querySource)) return t;
  const { step, ...rest } = t;
  const content = e.payload.content;
  const messageId = step?.turnId === e.turnId ? step.messageId : undefined;
  if (content.trim() === '') return rest;
  const id = messageId ?? `${e.turnId}:${e.sequenceNumber}`;
  return upsertMessage(rest, id, assistant(id, e.turnId), (m) => {
    const texts = m.parts.filter((p) => p.kind === 'text');
    if (texts.length > 1 || texts[0]?.text === content) return { ...m, streaming: false };
    const part = texts[0] ?? { kind: 'text' as const, id: `${id}:text`, text: '' };
    return { ...withPart(m, { ...part, text: content }), streaming: false };
  });
}

function turnEnded(t: Transcript, turnId: string | null, notice?: Omit<TurnNotice, 'turnId'>) {
  const messages = t.messages.map((m) =>
    m.turnId === turnId && m.streaming ? { ...m, streaming: false } : m,
  );
  const notices =
    notice === undefined || turnId === null ? t.notices : [...t.notices, { turnId, ...notice }];
  return { ...t, messages, notices };
}

type Handlers = {
  [K in SessionEvent['type']]?: (t: Transcript, e: SessionEventOf<K>) => Transcript;
};

const HANDLERS: Handlers = {
  // A verification's divider has the id the worker gives it, so the history draws it once.
  target_completion_verification: (t, e) => {
    if (e.payload.status === 'started') return t;
    const id = `${e.id}-divider`;
    const line = divider(id, null, verdictLine(e.payload.status, e.payload.verification));
    return upsertMessage(
      t,
      id,
      () => line,
      (m) => m,
    );
  },
  turn_started: (t, e) => {
    // A model-only notice (a goal's continuation, R8.2) is not the user's: no bubble.
    if (e.payload.inputVisibility === 'model-only') return t;
    const id = e.payload.messageId ?? `${e.turnId}:input`;
    const user = (): MessageView => ({
      id,
      role: 'user',
      turnId: e.turnId,
      parts: [],
      streaming: false,
    });
    return upsertMessage(t, id, user, (m) =>
      m.parts.length > 0
        ? m
        : withPart(m, { kind: 'text', id: `${id}:input`, text: e.payload.input }),
    );
  },
  // Live, the summary itself is a persistence write: the boundary marks the place until the
  // history is read again, which then holds the summary under the same id.
  compact_boundary: (t, e) => {
    const id = e.payload.summaryMessageIds[0] ?? `${e.payload.boundaryId}:summary`;
    const { preCompactTokenCount: pre, postCompactTokenCount: post } = e.payload;
    const text = `The conversation before this point was summarised (${pre} tokens to ${post ?? '?'}).`;
    const view = (): MessageView => ({
      id,
      role: 'user',
      turnId: e.turnId,
      parts: [{ kind: 'text', id: `${id}:boundary`, text }],
      streaming: false,
      summary: true,
    });
    return upsertMessage(t, id, view, (m) => m);
  },
  model_request: (t, e) =>
    isMainTurn(e.turnId, e.payload.querySource) ? { ...t, step: { turnId: e.turnId } } : t,
  model_streaming: streamed,
  model_complete: completed,
  tool_call_scheduled: (t, e) => {
    const p = e.payload;
    const messageId = p.assistantMessageId ?? `${e.turnId}:tools`;
    return upsertMessage(t, messageId, assistant(messageId, e.turnId), (m) =>
      m.parts.some((x) => x.kind === 'tool' && x.tool.toolCallId === p.toolCallId)
        ? m
        : withPart(m, {
            kind: 'tool',
            id: `${messageId}.${p.toolCallId}`,
            tool: {
              toolCallId: p.toolCallId,
              toolName: p.toolName,
              input: p.input,
              status: 'pending',
            },
          }),
    );
  },
  tool_call_started: (t, e) =>
    changeTool(t, e.payload.toolCallId, (tool) => ({ ...tool, status: 'running' })),
  tool_call_result: (t, e) =>
    changeTool(t, e.payload.toolCallId, (tool) => ({
      ...tool,
      status: e.payload.result.success ? 'completed' : 'failed',
      output: e.payload.result.content,
    })),
  tool_call_error: (t, e) =>
    changeTool(t, e.payload.toolCallId, (tool) => ({
      ...tool,
      status: 'failed',
      error: e.payload.error.message,
    })),
  permission_denied: (t, e) =>
    changeTool(t, e.payload.toolCallId, (tool) => ({
      ...tool,
      status: 'denied',
      error: e.payload.reason,
    })),
  turn_complete: (t, e) =>
    turnEnded(
      t,
      e.turnId,
      e.payload.resultType === 'success'
        ? undefined
        : { level: 'info', text: `Turn ended: ${e.payload.resultType}` },
    ),
  turn_error: (t, e) =>
    turnEnded(t, e.turnId, { level: 'error', text: `Turn failed: ${e.payload.error.message}` }),
};

/** Applies one event to the transcript; types that add nothing to it leave it as it is. */
export function applyToTranscript(t: Transcript, event: SessionEvent): Transcript {
  const handler = HANDLERS[event.type] as
    | ((t: Transcript, e: SessionEvent) => Transcript)
    | undefined;
  return handler === undefined ? t : handler(t, event);
}
