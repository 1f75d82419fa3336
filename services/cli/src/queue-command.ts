import { isRuntimeFailure } from '@agentwire/bus/outcomes';
import type { SetQueueModesRequest } from '@agentwire/contracts';
import { Argument } from 'commander';
import { type CliContext, checkSessionId, failureError, print } from './cli-context.ts';
import { CliError, EXIT } from './cli-error.ts';
import { type CommandKit, SEQUENCE } from './command-kit.ts';
import { formatQueuedInput } from './format-read.ts';
import { readProjection } from './read-projection.ts';

/** `agentwire queue`: the inputs waiting behind the running turn, and the lanes' modes. */
export function registerQueueCommand({ command, run }: CommandKit): void {
  command(
    'queue <sid>',
    'list, remove, move, edit or clear the inputs waiting for the running turn to end, or set how they are handed over',
    'agentwire queue ses_123 move in_2 1',
  )
    .addArgument(
      new Argument(
        '[action]',
        'list (default), rm <inputId>, move <inputId> <position>, edit <inputId> <text>, clear, modes [steering all|one] [followup all|one] [autodrain on|off]',
      )
        .choices(['list', 'rm', 'move', 'edit', 'clear', 'modes'])
        .default('list'),
    )
    .argument(
      '[args...]',
      'the input id (rm, move, edit), the new 1-based position (move), the new text (edit), or settings (modes)',
    )
    .addHelpText(
      'after',
      '  $ agentwire queue ses_123            # list, in delivery order\n  $ agentwire queue ses_123 rm in_2\n  $ agentwire queue ses_123 edit in_2 check the tests too\n  $ agentwire queue ses_123 clear      # nothing waiting: a no-op\n  $ agentwire queue ses_123 modes followup all autodrain off',
    )
    .action(
      run(async (ctx, sid: string, action: QueueAction, args: string[]) => {
        await queueCommand(ctx, sid, action, args);
      }),
    );
}

function usage(message: string): CliError {
  return new CliError('usage', message, EXIT.usage);
}

type QueueAction = 'list' | 'rm' | 'move' | 'edit' | 'clear' | 'modes';

/** `modes` settings as a `set_queue_modes` request: `steering|followup all|one`, `autodrain on|off`. */
function queueModesOf(args: readonly string[]): SetQueueModesRequest {
  const request: { -readonly [K in keyof SetQueueModesRequest]: SetQueueModesRequest[K] } = {};
  for (let i = 0; i < args.length; i += 2) {
    const key = args[i];
    const value = args[i + 1];
    if (key === 'steering' || key === 'followup') {
      if (value !== 'all' && value !== 'one') {
        throw usage(`queue modes: ${key} takes all or one, got ${JSON.stringify(value ?? '')}`);
      }
      const mode = value === 'all' ? 'all' : 'one_at_a_time';
      if (key === 'steering') request.steeringMode = mode;
      else request.followUpMode = mode;
    } else if (key === 'autodrain') {
      if (value !== 'on' && value !== 'off') {
        throw usage(`queue modes: autodrain takes on or off, got ${JSON.stringify(value ?? '')}`);
      }
      request.autoDrain = value === 'on';
    } else {
      throw usage(
        `queue modes: unknown setting ${JSON.stringify(key)} (steering, followup or autodrain)`,
      );
    }
  }
  return request;
}

function modesLine(modes: { steeringMode: string; followUpMode: string; autoDrain: boolean }) {
  return `steering ${modes.steeringMode}  followUp ${modes.followUpMode}  auto-drain ${modes.autoDrain ? 'on' : 'off'}`;
}

async function queueCommand(
  ctx: CliContext,
  sid: string,
  action: QueueAction,
  args: readonly string[],
): Promise<void> {
  checkSessionId(sid);
  if (action === 'modes') {
    if (args.length === 0) {
      const { asOfSeq, projection } = await readProjection(ctx, 'queue modes', sid);
      const modes = projection.queueModes;
      print(ctx, { ok: true, sessionId: sid, asOfSeq, ...modes }, [modesLine(modes)]);
      return;
    }
    const reply = await ctx.client.setQueueModes(sid, queueModesOf(args));
    if (isRuntimeFailure(reply)) throw failureError('queue modes', reply);
    print(ctx, reply, [modesLine(reply) + (reply.changed ? '' : ctx.style.dim('  (unchanged)'))]);
    return;
  }
  const arity = { list: 0, rm: 1, move: 2, edit: 2, clear: 0 }[action];
  const fits = action === 'edit' ? args.length >= arity : args.length === arity;
  if (!fits) {
    const want = {
      list: 'no arguments',
      rm: 'an input id',
      move: 'an input id and a position',
      edit: 'an input id and the new text',
      clear: 'no arguments',
    };
    throw usage(`queue ${action} takes ${want[action]}, got ${args.length}`);
  }
  if (action === 'edit') {
    const [inputId = '', ...words] = args;
    const reply = await ctx.client.editInput(sid, inputId, words.join(' '));
    if (isRuntimeFailure(reply)) throw failureError('queue edit', reply);
    print(ctx, reply, [`edited ${reply.inputId}`]);
    return;
  }
  if (action === 'clear') {
    const reply = await ctx.client.clearInputs(sid);
    if (isRuntimeFailure(reply)) throw failureError('queue clear', reply);
    print(ctx, reply, [
      reply.cleared.length === 0
        ? ctx.style.dim('the queue was empty')
        : `cleared ${reply.cleared.join(', ')}`,
    ]);
    return;
  }
  if (action === 'rm') {
    const inputId = args[0] ?? '';
    const reply = await ctx.client.removeInput(sid, inputId);
    if (isRuntimeFailure(reply)) throw failureError('queue rm', reply);
    print(ctx, reply, [`removed ${reply.inputId}`]);
    return;
  }
  if (action === 'list') {
    const { asOfSeq, projection } = await readProjection(ctx, 'queue list', sid);
    const waiting = projection.pendingSteerInputs;
    print(
      ctx,
      { ok: true, sessionId: sid, asOfSeq, inputs: waiting },
      waiting.length === 0
        ? [ctx.style.dim('the queue is empty')]
        : waiting.map((input, i) => formatQueuedInput(input, i, ctx.style)),
    );
    return;
  }
  const [inputId = '', at = ''] = args;
  if (!SEQUENCE.test(at) || Number(at) < 1) {
    throw usage(
      `queue move: the position must be a whole number of at least 1, got ${JSON.stringify(at)}`,
    );
  }
  // The runtime checks the queue as it is now (R10.3): the input and the position.
  const reply = await ctx.client.moveInput(sid, inputId, Number(at) - 1);
  if (isRuntimeFailure(reply)) throw failureError('queue move', reply);
  print(
    ctx,
    reply,
    reply.order.map((id, i) => `${String(i + 1).padStart(3)}. ${id}`),
  );
}
