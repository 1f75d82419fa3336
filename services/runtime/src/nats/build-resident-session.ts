import { purgeTurn } from '@agentwire/bus';
import type { SessionEvent } from '@agentwire/contracts';
import {
  type AppendError,
  chainedWriter,
  discardLeftoverInputs,
  EventAppender,
  EventNumbering,
  historyFromTranscript,
  MessageChain,
  RuntimeSession,
  reconcileOpenTurn,
  SessionEmitter,
  type SessionReplacements,
  type ToolDefinition,
} from '@agentwire/engine';
import { getInput } from '@agentwire/store';
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
import { transcriptReader } from './transcript-reader.ts';

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
  /** New sessions made from this one (a fork, 0240). */
  readonly replacements?: SessionReplacements;
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
  const { publisher, emitter } = parts;
  // What reconciliation writes follows the session's leaf too (docs/decisions/0239).
  const chain = new MessageChain(facts.leaf);
  const writer = chainedWriter(parts.writer, chain);
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
  const history = historyFromTranscript(facts.transcript);
  if (facts.leftoverInputIds.length > 0) {
    const traceId = o.ids.newTraceId();
    const promoted = await settleInFlightPromotions(
      o,
      parts.writer,
      emitter,
      sessionId,
      facts,
      traceId,
    );
    for (const { text } of promoted) history.push({ role: 'user', content: text });
    const discarded = facts.leftoverInputIds.filter(
      (id) => !promoted.some((p) => p.inputId === id),
    );
    o.logger.warn(
      { sessionId, inputIds: discarded, promoted: promoted.map((p) => p.inputId), tookOverFrom },
      'discarding inputs that never started (session_resumed)',
    );
    await discardLeftoverInputs(emitter, traceId, discarded);
  }
  const lastSealed = facts.scan.open?.turnId ?? facts.scan.lastSealedTurnId;
  const session = new RuntimeSession({
    ...o,
    emitter,
    // The session stamps its messages itself, from the leaf reconciliation left.
    writer: parts.writer,
    transcripts: transcriptReader(o),
    ...(ctx.replacements === undefined ? {} : { replacements: ctx.replacements }),
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
      history,
      ...(lastSealed === undefined ? {} : { lastSealedTurnId: lastSealed }),
      earlierInputs: facts.scan.inputs,
      ...(facts.lastRequest === undefined ? {} : { lastRequest: facts.lastRequest }),
      featureEvents: [...facts.featureEvents, ...reconciled],
      ...leafOf(chain),
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
  return { session, emitter, appender: emitter.appender, writer: parts.writer, publisher };
}

/**
 * Leftover inputs whose message the previous owner was writing when it died (the stream
 * says `promoting`, docs/decisions/0237): the commit may have landed, or may still be in
 * the worker's queue. Each gets a `close_input` behind that write, and its answer decides:
 * - closed: the promotion never committed, and the input is discarded like any leftover;
 * - `condition_failed`: the row is not admitted any more. When it is `promoted`, the
 *   message is in the transcript: `session_input_promoted` says so on the wire, and the
 *   conversation gets the message. Its turn never ran and does not run now (R14.2).
 * A worker that does not answer fails the takeover (retryable): a discard it cannot order
 * against the promotion could contradict the transcript.
 */
async function settleInFlightPromotions(
  o: RuntimeHostOptions,
  writer: CommandWriter,
  emitter: SessionEmitter,
  sessionId: string,
  facts: SessionFacts,
  traceId: string,
): Promise<{ inputId: string; text: string }[]> {
  const promoted: { inputId: string; text: string }[] = [];
  for (const inputId of facts.scan.promotingInputIds) {
    if (!facts.leftoverInputIds.includes(inputId)) continue;
    const ctx = { sequence: emitter.appender.latestSequence, traceId };
    const answer = await writer.closeInput(inputId, 'session_resumed', ctx);
    if (!answer.confirmed) {
      throw new Error(
        `takeover of ${sessionId}: the persistence worker did not settle input ${inputId}, whose message was being written`,
      );
    }
    if (answer.outcome !== 'condition_failed') continue;
    const row = await getInput(o.db, sessionId, inputId);
    if (row?.status !== 'promoted' || row.message_id === null) continue;
    await emitter.emit('session_input_promoted', null, traceId, {
      pendingInputId: inputId,
      sourceCommandId: inputId,
      messageId: row.message_id,
    });
    promoted.push({ inputId, text: facts.scan.inputTexts.get(inputId) ?? '' });
  }
  return promoted;
}

/** A session start's `leaf`: where the chain stands once reconciliation wrote. */
function leafOf(chain: MessageChain): { leaf?: { id: string; parentId: string | null } } {
  const leaf = chain.current();
  return leaf === undefined ? {} : { leaf };
}
