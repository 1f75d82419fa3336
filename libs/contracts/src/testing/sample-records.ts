/**
 * Valid sample messages, parts and persistence commands, for tests across the project
 * (exported from the package index as test helpers).
 */
import type { AssistantMessage, UserMessage } from '../messages/message.ts';
import type { PartOf, PartType } from '../parts/part.ts';
import type { TextPart } from '../parts/parts.ts';
import type { TimelinePart } from '../parts/timeline-part.ts';
import type { ToolPart } from '../parts/tool-part.ts';
import type { PersistenceCommandOf } from '../persistence/persistence-command.ts';
import { SAMPLE_TRACE_ID } from './samples.ts';

const T0 = 1_700_000_000_000;

/** A user message of session `session-1` (R16.4). */
const sampleUserMessage: UserMessage = {
  id: 'msg-1',
  sessionId: 'session-1',
  role: 'user',
  time: { created: T0 },
  agent: 'build',
  semantics: {
    origin: 'real_user',
    kind: 'user_prompt',
    uiVisibility: 'visible',
    providerVisibility: 'visible',
    transcriptVisibility: 'visible',
  },
  anchor: { turnId: 'turn-1', origin: 'realUser', sourceCommandId: 'input-1' },
};

/** The text part of {@link sampleUserMessage}. */
const sampleTextPart: TextPart = {
  id: 'part-1',
  sessionId: 'session-1',
  messageId: 'msg-1',
  type: 'text',
  text: 'fix the flaky test',
};

/** An assistant message answering {@link sampleUserMessage} (R7.4, R16.4). */
const sampleAssistantMessage: AssistantMessage = {
  id: 'msg-a1',
  sessionId: 'session-1',
  role: 'assistant',
  time: { created: T0 + 10 },
  parentId: 'msg-1',
  providerId: 'anthropic',
  modelId: 'claude-x',
  mode: 'build',
  agent: 'build',
  path: { cwd: '/repo', root: '/repo' },
  cost: 0.01,
  tokens: { input: 1200, output: 300, reasoning: 0, cache: { read: 800, write: 0 } },
};

/**
 * A completed tool part of {@link sampleAssistantMessage} (R7.5).
 *
 * @internal Exported for its tests.
 */
export const sampleCompletedToolPart: ToolPart = {
  id: 'part-tool-1',
  sessionId: 'session-1',
  messageId: 'msg-a1',
  type: 'tool',
  toolCallId: 'call-1',
  toolName: 'read_file',
  state: {
    status: 'completed',
    input: { path: 'src/index.ts' },
    output: 'export {}',
    metadata: {
      schemaVersion: 1,
      serialization: { truncated: false, rawBytes: 9, returnedBytes: 9 },
      filesRead: [{ path: 'src/index.ts', readAt: T0 + 20 }],
    },
    time: { start: T0 + 15, end: T0 + 20 },
  },
};

/** A model-change divider hanging on a `timeline_event` assistant message (R7.7). */
const sampleTimelinePart: TimelinePart = {
  id: 'part-timeline-1',
  sessionId: 'session-1',
  messageId: 'msg-timeline-1',
  type: 'timeline',
  kind: 'model_change',
  title: 'Switched to claude-y',
  time: { created: T0 + 30 },
  from: { providerId: 'anthropic', modelId: 'claude-x' },
  to: { providerId: 'anthropic', modelId: 'claude-y' },
};

const ids = { sessionId: 'session-1', messageId: 'msg-a1' };

/**
 * One valid part of every type of R7.2, all on {@link sampleAssistantMessage}.
 *
 * @internal Exported for its tests.
 */
export const sampleParts: { [K in PartType]: PartOf<K> } = {
  text: { ...ids, id: 'p-text', type: 'text', text: 'Looking at the test.' },
  reasoning: { ...ids, id: 'p-reasoning', type: 'reasoning', text: 'hmm', time: { start: T0 } },
  file: { ...ids, id: 'p-file', type: 'file', mime: 'text/plain', url: 'file:///repo/a.txt' },
  tool: sampleCompletedToolPart,
  'step-start': { ...ids, id: 'p-step-start', type: 'step-start', snapshot: 'snap-1' },
  'step-finish': {
    ...ids,
    id: 'p-step-finish',
    type: 'step-finish',
    reason: 'stop',
    cost: 0.01,
    tokens: { input: 1200, output: 300, reasoning: 0, cache: { read: 800, write: 0 } },
  },
  snapshot: { ...ids, id: 'p-snapshot', type: 'snapshot', snapshot: 'snap-2' },
  patch: { ...ids, id: 'p-patch', type: 'patch', hash: 'abc123', files: ['src/a.ts'] },
  agent: { ...ids, id: 'p-agent', type: 'agent', name: 'explorer' },
  retry: {
    ...ids,
    id: 'p-retry',
    type: 'retry',
    attempt: 1,
    error: { type: 'provider_error', message: 'overloaded' },
    time: { created: T0 },
  },
  compaction: { ...ids, id: 'p-compaction', type: 'compaction', auto: true },
  subtask: {
    ...ids,
    id: 'p-subtask',
    type: 'subtask',
    prompt: 'find the config loader',
    description: 'search',
    agent: 'explorer',
  },
  timeline: sampleTimelinePart,
};

const commandBase = { sessionId: 'session-1', issuedAt: T0, traceId: SAMPLE_TRACE_ID };

/** One valid command per kind. */
export const samplePersistenceCommands: {
  [K in
    | 'save_user_message'
    | 'save_assistant_message'
    | 'save_part'
    | 'save_synthetic_notice'
    | 'save_timeline_divider'
    | 'ensure_session'
    | 'update_title'
    | 'close_input'
    | 'copy_transcript'
    | 'import_messages'
    | 'mark_first_input_edited']: PersistenceCommandOf<K>;
} = {
  save_user_message: {
    ...commandBase,
    commandId: 'cmd-1',
    kind: 'save_user_message',
    version: 1,
    message: sampleUserMessage,
    parts: [sampleTextPart],
    promoteInputId: 'input-1',
  },
  save_assistant_message: {
    ...commandBase,
    commandId: 'cmd-2',
    kind: 'save_assistant_message',
    version: 2,
    message: sampleAssistantMessage,
  },
  save_part: {
    ...commandBase,
    commandId: 'cmd-3',
    kind: 'save_part',
    version: 3,
    part: sampleCompletedToolPart,
  },
  save_synthetic_notice: {
    ...commandBase,
    commandId: 'cmd-4',
    kind: 'save_synthetic_notice',
    version: 4,
    message: {
      ...sampleUserMessage,
      id: 'msg-notice-1',
      synthetic: true,
      source: 'background_task',
      semantics: {
        origin: 'agent_runtime',
        kind: 'background_notification',
        uiVisibility: 'hidden',
        providerVisibility: 'visible',
        transcriptVisibility: 'hidden',
      },
      anchor: { turnId: 'turn-1', origin: 'backgroundResult' },
    },
    parts: [{ ...sampleTextPart, id: 'part-notice-1', messageId: 'msg-notice-1', synthetic: true }],
  },
  save_timeline_divider: {
    ...commandBase,
    commandId: 'cmd-5',
    kind: 'save_timeline_divider',
    version: 5,
    message: {
      ...sampleAssistantMessage,
      id: 'msg-timeline-1',
      semantics: {
        origin: 'agent_runtime',
        kind: 'timeline_event',
        uiVisibility: 'visible',
        providerVisibility: 'hidden',
        transcriptVisibility: 'visible',
      },
    },
    part: sampleTimelinePart,
  },
  ensure_session: {
    ...commandBase,
    commandId: 'cmd-6',
    kind: 'ensure_session',
    session: {
      parentSessionId: null,
      title: 'fix the flaky test',
      titleSource: 'first_input',
      firstInput: 'fix the flaky test',
      cwd: '/repo',
      root: '/repo',
      createdAt: T0,
    },
  },
  update_title: {
    ...commandBase,
    commandId: 'cmd-7',
    kind: 'update_title',
    title: 'Fix flaky test',
    source: 'generated',
    expectedSources: ['default', 'first_input', 'generated'],
    expectedFirstInput: 'fix the flaky test',
  },
  close_input: {
    ...commandBase,
    commandId: 'cmd-8',
    kind: 'close_input',
    inputId: 'input-1',
    reason: 'session_resumed',
  },
  copy_transcript: {
    ...commandBase,
    commandId: 'cmd-9',
    kind: 'copy_transcript',
    fromSessionId: 'ses-origin',
    messageIds: ['msg-1', 'msg-2'],
    idSuffix: '_f1',
  },
  mark_first_input_edited: {
    ...commandBase,
    commandId: 'cmd-11',
    kind: 'mark_first_input_edited',
  },
  import_messages: {
    ...commandBase,
    commandId: 'cmd-10',
    kind: 'import_messages',
    entries: [
      {
        message: {
          id: 'msg-imported',
          sessionId: 'ses-1',
          role: 'user',
          time: { created: 1_700_000_000_000 },
          agent: 'build',
          treeParentId: null,
        },
        parts: [
          {
            id: 'prt-imported',
            sessionId: 'ses-1',
            messageId: 'msg-imported',
            type: 'text',
            text: 'hi',
          },
        ],
      },
    ],
  },
};
