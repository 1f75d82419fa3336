import { syntheticNotice } from '@agentwire/domain';
import type { SyntheticTurn } from './feature.ts';
import type { IdSource, RuntimeClock } from './ports.ts';
import { RuntimeError } from './runtime-error.ts';
import type { SessionEmitter } from './session-emitter.ts';
import type { TranscriptWriter } from './transcript-writer.ts';

/** What {@link writeSyntheticNotice} writes with. */
interface NoticeDeps {
  readonly emitter: SessionEmitter;
  readonly writer: TranscriptWriter;
  readonly clock: RuntimeClock;
  readonly ids: IdSource;
}

/**
 * A feature's turn starts on a synthetic notice (R8, docs/decisions/0231): a user-role
 * message flagged synthetic, with the semantics and anchor of its source, committed before
 * the model sees it (no ledger row: nobody submitted it). Throws `write_not_confirmed` when
 * the worker did not confirm it.
 */
export async function writeSyntheticNotice(
  deps: NoticeDeps,
  synthetic: SyntheticTurn | undefined,
  at: { readonly turnId: string; readonly traceId: string; readonly messageId: string },
): Promise<void> {
  if (synthetic === undefined) throw new Error('a turn without an input id needs a notice');
  const { source, notice } = synthetic;
  const { turnId, traceId, messageId } = at;
  const sessionId = deps.emitter.sessionId;
  const { message, parts } = syntheticNotice({
    source,
    id: messageId,
    partId: deps.ids.newId('prt'),
    sessionId,
    created: deps.clock.now(),
    text: notice,
    turnId,
  });
  const write = await deps.writer.saveUserMessage(message, parts, {
    sequence: deps.emitter.appender.latestSequence,
    traceId,
  });
  if (!write.committed) {
    throw new RuntimeError(
      'write_not_confirmed',
      `the ${source} notice of turn ${turnId} was not confirmed by the persistence worker`,
      { turnId, failure: write.failure ?? 'unconfirmed' },
    );
  }
}
