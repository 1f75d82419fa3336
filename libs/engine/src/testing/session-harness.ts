import type { SessionEvent } from '@agentwire/contracts';
import { createScriptedProvider } from '@agentwire/model';
import { builtinFeatures } from '../features/builtin-features.ts';
import { EventAppender } from '../kernel/event-appender.ts';
import { EventNumbering } from '../kernel/event-numbering.ts';
import { RuntimeSession } from '../kernel/runtime-session.ts';
import { SessionEmitter } from '../kernel/session-emitter.ts';
import type { RuntimeSessionOptions } from '../kernel/session-options.ts';
import type { ToolDefinition } from '../kernel/tool-definition.ts';
import {
  countingIds,
  RecordingLogger,
  RecordingPublisher,
  RecordingWriter,
  steppingClock,
} from './fake-ports.ts';
import { memoryTools } from './memory-tools.ts';
import { memoryTranscripts } from './memory-transcripts.ts';

/**
 * Options of {@link createSessionHarness}: the tools (default {@link memoryTools}) and their
 * root, and any session option to override.
 */
export type SessionHarnessOptions = {
  readonly root?: string;
  readonly toolSet?: readonly ToolDefinition[];
} & Partial<Omit<RuntimeSessionOptions, 'emitter' | 'writer' | 'clock' | 'ids' | 'logger'>> & {
    readonly writer?: RecordingWriter;
  };

/** A session of `s1` over recording fakes, with every appended event collected. */
export interface SessionHarness {
  readonly session: RuntimeSession;
  readonly appender: EventAppender;
  readonly events: SessionEvent[];
  readonly publisher: RecordingPublisher;
  readonly writer: RecordingWriter;
  readonly logger: RecordingLogger;
}

/**
 * A fresh {@link RuntimeSession} for unit tests: the scripted model, the given tools (or
 * in-memory ones), counting ids, a stepping clock, recording publisher, writer and
 * logger, a 5 s permission timeout, the production features (no workspace unless given)
 * and an empty, unpersisted start; `options` override.
 */
export function createSessionHarness(options: SessionHarnessOptions): SessionHarness {
  const {
    root = '/workspace',
    toolSet = memoryTools(),
    writer = new RecordingWriter(),
    ...overrides
  } = options;
  const ids = countingIds();
  const clock = steppingClock();
  const logger = new RecordingLogger();
  const publisher = new RecordingPublisher();
  const appender = new EventAppender({
    sessionId: 's1',
    numbering: new EventNumbering(),
    publisher,
    usage: { recordUsage: () => {} },
    logger,
    lastDurableSequence: 0,
  });
  const events: SessionEvent[] = [];
  appender.addSink({ name: 'test', onSessionEvent: (e) => void events.push(e) });
  const session = new RuntimeSession({
    emitter: new SessionEmitter('s1', appender, clock, ids),
    writer,
    model: createScriptedProvider(),
    tools: new Map(toolSet.map((t) => [t.name, t])),
    clock,
    ids,
    logger,
    cwd: root,
    root,
    permissionTimeoutMs: 5_000,
    features: builtinFeatures(),
    transcripts: memoryTranscripts(writer),
    start: { persisted: false, title: null, turnCount: 0, history: [] },
    ...overrides,
  });
  return { session, appender, events, publisher, writer, logger };
}
