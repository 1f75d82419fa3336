import type { ModelSelection, SessionEvent } from '@agentwire/contracts';
import type {
  CatalogModel,
  FeatureContext,
  FeatureHooks,
  SessionFeature,
  SlashCommand,
  TurnStartContext,
} from '../../kernel/feature.ts';
import { RuntimeError } from '../../kernel/runtime-error.ts';

const nameOf = (s: ModelSelection) => `${s.providerId}/${s.modelId}`;
const same = (a: ModelSelection | undefined, b: ModelSelection | undefined) =>
  a !== undefined && b !== undefined && nameOf(a) === nameOf(b);

/**
 * R7.9's deferred divider: a switch is only noted; consecutive switches merge (the divider
 * goes from the model of the last turn to the newest choice), switching back to the model
 * of the last turn cancels, and the divider is written when the next turn starts.
 *
 * @internal Exported for its tests.
 */
export class DeferredDivider {
  /** The model the last turn ran on (or the session started with). */
  #base: ModelSelection | undefined;
  #pending: ModelSelection | undefined;

  constructor(base: ModelSelection | undefined, pending?: ModelSelection) {
    this.#base = base;
    this.#pending = same(base, pending) ? undefined : pending;
  }

  /** A switch to `to`. */
  switched(to: ModelSelection): void {
    this.#pending = same(this.#base, to) ? undefined : to;
  }

  /** At a turn start: the divider to write, if any; the turn's model is the new base. */
  take(current: ModelSelection): { from: ModelSelection | null; to: ModelSelection } | undefined {
    const pending = this.#pending;
    const from = this.#base;
    this.#base = current;
    this.#pending = undefined;
    return pending === undefined ? undefined : { from: from ?? null, to: pending };
  }
}

/**
 * What the stream says at recovery: the last `model_selected` names the current model; the
 * last main-turn `model_request` the model the last turn ran on. A selection numbered after
 * that request is a divider still pending.
 */
function recovered(events: readonly SessionEvent[]) {
  let selected: { selection: ModelSelection; seq: number } | undefined;
  let lastTurn: { selection: ModelSelection; seq: number } | undefined;
  for (const e of events) {
    if (e.type === 'model_selected') {
      selected = { selection: e.payload.modelSelection, seq: e.sequenceNumber };
    } else if (
      e.type === 'model_request' &&
      (e.payload.querySource ?? 'main_turn') === 'main_turn'
    ) {
      const { providerId, modelId } = e.payload;
      lastTurn = { selection: { providerId, modelId }, seq: e.sequenceNumber };
    }
  }
  return { selected, lastTurn };
}

function attach(ctx: FeatureContext): FeatureHooks {
  const find = (s: ModelSelection) => ctx.models.find((m) => same(m.selection, s));
  const { selected, lastTurn } = recovered(ctx.recovered);
  let current: CatalogModel | undefined =
    (selected === undefined ? undefined : find(selected.selection)) ?? ctx.models[0];
  const pending =
    selected !== undefined && (lastTurn === undefined || selected.seq > lastTurn.seq)
      ? selected.selection
      : undefined;
  const divider = new DeferredDivider(lastTurn?.selection ?? ctx.models[0]?.selection, pending);
  const known = () => ctx.models.map((m) => nameOf(m.selection));

  const command: SlashCommand = {
    name: 'model',
    kind: 'direct',
    summary: 'Show the configured models, or switch the next requests to one',
    usage: '/model [provider/model]',
    run: async (args) => {
      if (args === '') {
        return {
          kind: 'result',
          result: {
            model: current === undefined ? null : nameOf(current.selection),
            models: ctx.models.map((m) => ({
              model: nameOf(m.selection),
              contextWindow: m.contextWindow,
              outputLimit: m.outputLimit,
            })),
          },
        };
      }
      const slash = args.indexOf('/');
      const target =
        slash <= 0
          ? undefined
          : find({ providerId: args.slice(0, slash), modelId: args.slice(slash + 1) });
      if (target === undefined) {
        throw new RuntimeError(
          'unknown_model',
          `model ${JSON.stringify(args)} is not configured; configured: ${known().join(', ')}`,
          { model: args, known: known() },
        );
      }
      const previous = current;
      if (previous !== undefined && same(previous.selection, target.selection)) {
        return { kind: 'result', result: { model: args, changed: false } };
      }
      current = target;
      divider.switched(target.selection);
      await ctx.emit('model_selected', {
        modelSelection: target.selection,
        previousModelSelection: previous?.selection ?? null,
        contextWindow: target.contextWindow,
      });
      return {
        kind: 'result',
        result: {
          model: nameOf(target.selection),
          previousModel: previous === undefined ? null : nameOf(previous.selection),
          contextWindow: target.contextWindow,
          outputLimit: target.outputLimit,
          changed: true,
        },
      };
    },
  };

  async function onTurnStart(turn: TurnStartContext): Promise<void> {
    if (current === undefined) return;
    const due = divider.take(current.selection);
    if (due === undefined) return;
    await turn.savePart({
      id: `${turn.userMessageId}.model`,
      messageId: turn.userMessageId,
      type: 'timeline',
      kind: 'model_change',
      title: `Model: ${due.from === null ? '' : `${nameOf(due.from)} → `}${nameOf(due.to)}`,
      from: due.from,
      to: due.to,
      time: { created: turn.now },
    });
  }

  return { commands: [command], model: () => current, onTurnStart };
}

/** Model switching: `/model`, `model_selected`, deferred `model_change` dividers (R7.4, R7.9). */
export const models: SessionFeature = {
  name: 'models',
  recoversFrom: ['model_selected', 'model_request'],
  attach,
};
