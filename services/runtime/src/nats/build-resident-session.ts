import { purgeTurn } from '@agentwire/bus';
import type { SessionEvent } from '@agentwire/contracts';
import {
  type AppendError,
  discardLeftoverInputs,
  EventAppender,
  EventNumbering,
  historyFromTranscript,
  RuntimeSession,
  reconcileOpenTurn,
  SessionEmitter,
  type ToolDefinition,
} from '@agentwire/engine';
import { CommandWriter } from './command-writer.ts';
import {
  announceResumed,
  type FencedTransients,
  fenceTransientSubjects,
} from './fence-earlier-writers.ts';
import { JetStreamPublisher } from './jetstream-publisher.ts';
import type { LeaseManager } from './lease-manager.ts';
import type { RuntimeHostOptions } from './runtime-host-options.ts';
import type { SessionFacts } from './session-loader.ts';

/** The parts of a session made resident: the session and what it writes through. */
export interface ResidentParts {
  readonly session: RuntimeSession;
  readonly emitter: SessionEmitter;
  readonly appender: EventAppender;
  readonly writer: CommandWriter;
  readonly publisher: JetStreamPublisher;
}

/** What {@link buildResidentSession} wires besides the host's options. */
export interface ResidentContext {
  readonly leases: LeaseManager;
  readonly tools: ReadonlyMap<string, ToolDefinition>;
  /** The instance the lease was taken over from, for the logs. */
  readonly tookOverFrom?: string | undefined;
  /** The session can append no more (fenced, or a publish failed): drop it. */
  readonly onBroken: (error: AppendError) => void;
}

/**
 * Cold recovery's second half (flow 5, flow 6): from the loaded facts, wires the event
 * pipeline (numbering, fenced publisher, appender with the host's sinks, R5), the command
 * writer and the emitter; closes a lost turn (`turn_error` `runtime_lost`) and discards
 * leftover inputs (`session_resumed`, R14.2); then builds the {@link RuntimeSession}.
 */
export async function buildResidentSession(
  o: RuntimeHostOptions,
  ctx: ResidentContext,
  sessionId: string,
  facts: SessionFacts,
): Promise<ResidentParts> {
  // Before anything else is written, events or commands: shut every earlier writer out
  // (docs/decisions/0110), then number after everything that is there.
  const fenceContext = {
    ...o,
    newTraceId: () => o.ids.newTraceId(),
    tookOverFrom: ctx.tookOverFrom,
  };
  const fenced = await fenceTransientSubjects(fenceContext, sessionId, facts);
  const numbering = new EventNumbering(fenced.lastSequence);
  const outageBoundMs = o.brokerOutageMs ?? 15_000;
  let session: RuntimeSession | undefined;
  const publisher = new JetStreamPublisher({
    ...o,
    sessionId,
    fence: facts.fence,
    leases: ctx.leases,
    // Past the bound, the running turn stops and ends `broker_unavailable` (issue 9).
    onRetry: (stalledMs) => {
      if (stalledMs >= outageBoundMs) session?.brokerUnavailable(stalledMs);
    },
  });
  const appender = new EventAppender({
    sessionId,
    numbering,
    publisher,
    usage: o.usage,
    logger: o.logger,
    lastDurableSequence: facts.lastDurableSequence,
    onBroken: ctx.onBroken,
  });
  for (const sink of o.sinks ?? []) appender.addSink(sink);
  const writer = new CommandWriter({ ...o, sessionId, confirmTimeoutMs: o.confirmTimeoutMs });
  const emitter = new SessionEmitter(sessionId, appender, o.clock, o.ids);
  try {
    await announceResumed(fenceContext, emitter, facts);
    const parts = await wire(o, ctx, sessionId, facts, { publisher, writer, emitter }, fenced);
    session = parts.session;
    return parts;
  } catch (err) {
    writer.close();
    throw err;
  }
}

async function wire(
  o: RuntimeHostOptions,
  ctx: ResidentContext,
  sessionId: string,
  facts: SessionFacts,
  parts: {
    readonly publisher: JetStreamPublisher;
    readonly writer: CommandWriter;
    readonly emitter: SessionEmitter;
  },
  fenced: FencedTransients,
): Promise<ResidentParts> {
  const { publisher, writer, emitter } = parts;
  const { tookOverFrom } = ctx;
  // What the reconciliation below appends, the features fold too (a lost turn's end is a
  // ticket's `completed`, docs/decisions/0226): the session is not built yet to observe it.
  const reconciled: SessionEvent[] = [];
  let building = true;
  emitter.appender.observe((event) => {
    if (building) reconciled.push(event);
  });
  if (facts.scan.open !== undefined) {
    o.logger.warn(
      { sessionId, turnId: facts.scan.open.turnId, tookOverFrom },
      'reconciling a lost turn',
    );
    const root = o.workspaceRoot;
    await reconcileOpenTurn({ ...o, emitter, writer, cwd: root, root }, facts.scan.open);
  }
  if (facts.leftoverInputIds.length > 0) {
    o.logger.warn(
      { sessionId, inputIds: facts.leftoverInputIds, tookOverFrom },
      'discarding inputs that never started (session_resumed)',
    );
    await discardLeftoverInputs(emitter, o.ids.newTraceId(), facts.leftoverInputIds);
  }
  const lastSealed = facts.scan.open?.turnId ?? facts.scan.lastSealedTurnId;
  const session = new RuntimeSession({
    ...o,
    emitter,
    writer,
    tools: ctx.tools,
    cwd: o.workspaceRoot,
    root: o.workspaceRoot,
    maxInputBytes: o.maxPromptBytes,
    ...(o.title === undefined
      ? {}
      : {
          titleGeneration: o.title.config,
          titleGenerator: o.title.generator,
          ...(o.title.model === undefined ? {} : { titleModel: o.title.model }),
        }),
    start: {
      persisted: facts.persisted,
      title: facts.title,
      titleSource: facts.titleSource,
      turnCount: Math.max(facts.userTurns, facts.scan.turnCount),
      history: historyFromTranscript(facts.transcript),
      ...(lastSealed === undefined ? {} : { lastSealedTurnId: lastSealed }),
      earlierInputs: facts.scan.inputs,
      ...(facts.lastRequest === undefined ? {} : { lastRequest: facts.lastRequest }),
      featureEvents: [...facts.featureEvents, ...reconciled],
    },
    evictSealedTurn: async (turnId) => {
      // A fenced subject keeps its marker, so its earlier writer stays shut out (0110).
      await purgeTurn(
        o.jsm,
        o.names,
        sessionId,
        turnId,
        fenced.turnIds.has(turnId) ? { keep: 1 } : {},
      );
      publisher.fence.forgetTurn(turnId);
    },
  });
  building = false;
  return { session, emitter, appender: emitter.appender, writer, publisher };
}
