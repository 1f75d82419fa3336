import type { SessionFeature, SlashCommand } from '../../kernel/feature.ts';
import { RuntimeError } from '../../kernel/runtime-error.ts';

/** Longest title a rename takes (the same bound as the `rename` operation's). */
const MAX_TITLE = 200;

const help: SlashCommand = {
  name: 'help',
  kind: 'direct',
  summary: 'List the commands this session knows',
  usage: '/help',
  run: async (_args, ctx) => ({ kind: 'result', result: { commands: await ctx.commands() } }),
};

const status: SlashCommand = {
  name: 'status',
  kind: 'direct',
  summary: "Show the session's title, turns and waiting inputs",
  usage: '/status',
  run: async (_args, ctx) => ({ kind: 'result', result: { ...ctx.status() } }),
};

const rename: SlashCommand = {
  name: 'rename',
  kind: 'direct',
  summary: 'Rename the session; no generated title replaces it (R9.3)',
  usage: '/rename <title>',
  run: async (args, ctx) => {
    if (args === '' || args.length > MAX_TITLE) {
      throw new RuntimeError(
        'invalid_command',
        args === ''
          ? '/rename needs a title: /rename <title>'
          : `/rename takes a title of at most ${MAX_TITLE} characters`,
        { command: 'rename', usage: rename.usage },
      );
    }
    await ctx.rename(args);
    return { kind: 'result', result: { title: args } };
  },
};

/** The slash commands run directly (R12.1): `/help`, `/status`, `/rename`. */
export const sessionCommands: SessionFeature = {
  name: 'session-commands',
  commands: [help, status, rename],
};
