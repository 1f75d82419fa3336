import { type Command, InvalidArgumentError } from 'commander';
import { type CliContext, checkSessionId } from './cli-context.ts';

/**
 * What a module that adds commands to the program uses (program.ts and the `register*`
 * functions of read-commands.ts, queue-command.ts, tree-command.ts and
 * transcript-commands.ts), so every command looks and connects alike.
 */
export interface CommandKit {
  /** A subcommand with `--json` and an example in its help. */
  command(name: string, description: string, example: string): Command;
  /**
   * An action that connects (with the command's `--json`) and then runs with the command's
   * arguments: parsing alone never touches the network.
   */
  run<A extends unknown[]>(
    action: (ctx: CliContext, ...args: A) => Promise<void>,
  ): (...args: unknown[]) => Promise<void>;
}

/** The {@link CommandKit} of `program`, whose actions connect through `connect`. */
export function commandKit(
  program: Command,
  connect: (options: { readonly json: boolean }) => Promise<CliContext>,
): CommandKit {
  const command = (name: string, description: string, example: string): Command => {
    const cmd = program
      .command(name)
      .description(description)
      .option('--json', 'print JSON instead of text')
      .addHelpText('after', `\nExample:\n  $ ${example}`);
    return cmd;
  };
  const run =
    <A extends unknown[]>(action: (ctx: CliContext, ...args: A) => Promise<void>) =>
    async (...args: unknown[]): Promise<void> => {
      const cmd = args.at(-1) as Command;
      const ctx = await connect({ json: cmd.opts().json === true });
      await action(ctx, ...(args.slice(0, -1) as A));
    };
  return { command, run };
}

/** A whole number as an argument or a position: at most 15 digits, no sign. */
export const SEQUENCE = /^\d{1,15}$/;

/** An option's parser of a whole number of at least `min`. */
export function integer(min: number): (value: string) => number {
  return (value) => {
    if (!SEQUENCE.test(value) || Number(value) < min) {
      throw new InvalidArgumentError(`must be a whole number of at least ${min}`);
    }
    return Number(value);
  };
}

/** An option's parser of a session id. */
export function sessionId(value: string): string {
  try {
    checkSessionId(value);
  } catch (error) {
    throw new InvalidArgumentError((error as Error).message);
  }
  return value;
}
