import type { SessionEvent } from '@agentwire/contracts';

/** One checkpoint of this session, as the stream states it. */
export interface Checkpoint {
  readonly checkpointId: string;
  /** The message it belongs to: a tool call's step, or an exit checkpoint's abandoned leaf. */
  readonly messageId: string;
  readonly fileCount: number;
}

/** An exit checkpoint's prefix: `cpx_<noticeId>` (docs/decisions/0239). */
const EXIT = 'cpx_';

/** The exit checkpoint a move whose notice is `noticeId` keeps of the branch it leaves. */
export const exitCheckpointId = (noticeId: string) => `${EXIT}${noticeId}`;

/**
 * The session's checkpoints in creation order (docs/decisions/0225, 0239): those of tool
 * calls, in force on a chain when their message is on it, and the exit checkpoints moves
 * keep of the branch they leave, found by that branch's leaf. A workspace-only rewind of
 * before the tree (`file_only`) undid the checkpoints from its target on.
 */
export class CheckpointBook {
  readonly #all: Checkpoint[] = [];
  readonly #undone = new Set<string>();

  /** The book as the stream left it (`checkpoint_created`, `rewind_triggered`, in order). */
  static recovered(events: readonly SessionEvent[]): CheckpointBook {
    const book = new CheckpointBook();
    for (const e of events) {
      if (e.type === 'checkpoint_created') {
        book.add({
          checkpointId: e.payload.checkpointId,
          messageId: e.payload.messageId,
          fileCount: e.payload.fileCount ?? 0,
        });
      } else if (
        e.type === 'rewind_triggered' &&
        e.payload.strategy === 'file_only' &&
        e.payload.targetCheckpointId !== undefined
      ) {
        book.undoFrom(e.payload.targetCheckpointId);
      }
    }
    return book;
  }

  add(checkpoint: Checkpoint): void {
    this.#all.push(checkpoint);
  }

  /** The tool calls' checkpoints not undone, oldest first. */
  #tools(): Checkpoint[] {
    return this.#all.filter(
      (c) => !c.checkpointId.startsWith(EXIT) && !this.#undone.has(c.checkpointId),
    );
  }

  /** Undoes `checkpointId` and every later tool checkpoint (a workspace-only rewind). */
  undoFrom(checkpointId: string): void {
    const tools = this.#tools();
    const at = tools.findIndex((c) => c.checkpointId === checkpointId);
    if (at >= 0) for (const c of tools.slice(at)) this.#undone.add(c.checkpointId);
  }

  /** The tool checkpoints in force on a chain: those whose message is on it, in order. */
  inForce(chain: ReadonlySet<string>): Checkpoint[] {
    return this.#tools().filter((c) => chain.has(c.messageId));
  }

  /** A tool checkpoint by id, in force or not. */
  find(checkpointId: string): Checkpoint | undefined {
    return this.#tools().find((c) => c.checkpointId === checkpointId);
  }

  /** Every tool checkpoint's id, for an error that lists them. */
  ids(): string[] {
    return this.#tools().map((c) => c.checkpointId);
  }

  /**
   * The files of a branch the chain left at `leafId`: its newest exit checkpoint whose move
   * notice is on `chain`, with the tool checkpoints taken on `chain` since, in order.
   */
  exitTo(leafId: string, chain: ReadonlySet<string>): string[] | undefined {
    for (let i = this.#all.length - 1; i >= 0; i -= 1) {
      const c = this.#all[i] as Checkpoint;
      if (!c.checkpointId.startsWith(EXIT) || c.messageId !== leafId) continue;
      if (!chain.has(c.checkpointId.slice(EXIT.length))) continue;
      const later = this.#all
        .slice(i + 1)
        .filter(
          (t) =>
            !t.checkpointId.startsWith(EXIT) &&
            !this.#undone.has(t.checkpointId) &&
            chain.has(t.messageId),
        );
      return [c.checkpointId, ...later.map((t) => t.checkpointId)];
    }
    return undefined;
  }
}
