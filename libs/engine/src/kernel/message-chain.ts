import type { TranscriptWriter } from './transcript-writer.ts';

/** How many recent messages keep their stamped parent, for a rewrite of the same row. */
const REMEMBERED = 256;

/**
 * The session's place in its tree (docs/decisions/0239): the current leaf, which every
 * message written follows and then becomes. A move of the active chain sets the leaf
 * before the move's notice is written, so the notice follows the target.
 */
export class MessageChain {
  #leaf: string | null;
  /** The parent each recent message was written with: a rewrite keeps it. */
  readonly #parents = new Map<string, string | null>();

  constructor(leaf: { readonly id: string; readonly parentId: string | null } | undefined) {
    this.#leaf = leaf?.id ?? null;
    if (leaf !== undefined) this.#parents.set(leaf.id, leaf.parentId);
  }

  /** The current leaf: the last message of the active chain (`null` before the first). */
  get leaf(): string | null {
    return this.#leaf;
  }

  /** The leaf with the parent it was written with (a session start's `leaf`). */
  current(): { readonly id: string; readonly parentId: string | null } | undefined {
    const id = this.#leaf;
    return id === null ? undefined : { id, parentId: this.#parents.get(id) ?? null };
  }

  /** Makes `messageId` the leaf: the next message written follows it. */
  moveTo(messageId: string | null): void {
    this.#leaf = messageId;
  }

  /** Forgets a message that was not stored; its parent is the leaf again if it was. */
  unstamp(messageId: string, parent: string | null): void {
    this.#parents.delete(messageId);
    if (this.#leaf === messageId) this.#leaf = parent;
  }

  /** The parent `messageId` is written with; it becomes the leaf unless it is a rewrite. */
  stamp(messageId: string): string | null {
    const known = this.#parents.get(messageId);
    if (known !== undefined) return known;
    const parent = this.#leaf;
    this.#parents.set(messageId, parent);
    if (this.#parents.size > REMEMBERED) {
      const oldest = this.#parents.keys().next().value;
      if (oldest !== undefined) this.#parents.delete(oldest);
    }
    this.#leaf = messageId;
    return parent;
  }
}

/** The host's writer with every message stamped with its parent on the chain (0239). */
export function chainedWriter(writer: TranscriptWriter, chain: MessageChain): TranscriptWriter {
  return {
    ensureSession: (session, ctx) => writer.ensureSession(session, ctx),
    saveUserMessage: async (message, parts, ctx) => {
      const parent = chain.stamp(message.id);
      const write = await writer.saveUserMessage({ ...message, treeParentId: parent }, parts, ctx);
      // A refused message is not stored: the next one follows what it would have followed.
      if (write.failure === 'refused') chain.unstamp(message.id, parent);
      return write;
    },
    saveAssistantMessage: (message, ctx) =>
      writer.saveAssistantMessage({ ...message, treeParentId: chain.stamp(message.id) }, ctx),
    savePart: (part, ctx) => writer.savePart(part, ctx),
    updateTitle: (update, ctx) => writer.updateTitle(update, ctx),
    markFirstInputRewound: (ctx) => writer.markFirstInputRewound(ctx),
  };
}
