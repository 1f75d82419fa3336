import { syntheticNotice } from '@agentwire/domain';
import type { Conversation } from './feature.ts';
import { historyFromTranscript } from './history-from-transcript.ts';
import type { MessageChain } from './message-chain.ts';
import type { IdSource, RuntimeClock, TranscriptReader, TreeMessage } from './ports.ts';
import { RuntimeError } from './runtime-error.ts';

/** The session tree as features see it (docs/decisions/0239). */
export interface SessionTree {
  /** The current leaf: the active chain's last message (`null` before the first). */
  leaf(): string | null;
  /** Every stored message of the session, in the transcript's order. */
  messages(): Promise<readonly TreeMessage[]>;
  /**
   * Moves the active chain to end at `target`: the notice (R8 `rewind`, model-only) is
   * written following it and becomes the leaf, and the model's conversation becomes the
   * chain's history and the notice (`null`: before the first message). Resolves once the
   * notice is committed; `write_not_confirmed` when the worker did not confirm it, and
   * then nothing moved.
   */
  moveTo(
    target: string | null,
    notice: { readonly id: string; readonly text: string },
    traceId: string,
  ): Promise<void>;
  /** R9.9: the first question was rewound away, so no generated title applies any more. */
  firstQuestionRewound(traceId: string): Promise<void>;
}

/** What a {@link SessionTree} works with. */
export interface SessionTreeDeps {
  readonly sessionId: string;
  readonly chain: MessageChain;
  readonly reader: TranscriptReader;
  readonly conversation: Conversation;
  readonly ids: IdSource;
  readonly clock: RuntimeClock;
  readonly markFirstInputRewound: (traceId: string) => Promise<void>;
}

/** The session tree over the host's transcript reader and the session's chain. */
export function sessionTree(d: SessionTreeDeps): SessionTree {
  return {
    leaf: () => d.chain.leaf,
    firstQuestionRewound: (traceId) => d.markFirstInputRewound(traceId),
    messages: () => d.reader.tree(d.sessionId),
    async moveTo(target, notice, traceId) {
      const rows = target === null ? [] : await d.reader.chain(d.sessionId, target);
      const history = historyFromTranscript(rows);
      const before = d.chain.leaf;
      const { id, text } = notice;
      d.chain.moveTo(target);
      const { message, parts } = syntheticNotice({
        source: 'rewind',
        id,
        partId: d.ids.newId('prt'),
        sessionId: d.sessionId,
        created: d.clock.now(),
        text,
      });
      const committed = await d.conversation.saveMessage(message, parts, traceId);
      if (!committed) {
        d.chain.unstamp(id, target);
        d.chain.moveTo(before);
        throw new RuntimeError(
          'write_not_confirmed',
          'the store did not confirm the move of the conversation; nothing moved, retry',
          { retryable: true },
        );
      }
      const { conversation } = d;
      conversation.replaceBefore(conversation.messages().length, [
        ...history,
        { role: 'user', content: text },
      ]);
    },
  };
}
