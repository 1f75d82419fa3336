import type {
  CommandContext,
  CommandInfo,
  SessionFeature,
  SlashCommand,
} from '../../kernel/feature.ts';

/** A template's name is its file's name: no dots, no separators, so no path escapes. */
const TEMPLATE_NAME = /^[a-z0-9][\w-]{0,63}$/;

/**
 * R12.1: `/name args` runs the workspace's `.agentwire/prompts/<name>.md` (its body after any
 * front matter) as a prompt.
 * `$ARGUMENTS` is replaced by the whole argument text and `$1`..`$9` by its words; a
 * template with neither gets the arguments appended after a blank line.
 *
 * @internal Exported for its tests.
 */
export function expandTemplate(template: string, args: string): string {
  const words = args === '' ? [] : args.split(/\s+/);
  const placeholders = /\$ARGUMENTS|\$[1-9]/;
  if (!placeholders.test(template))
    return args === '' ? template : `${template.trimEnd()}\n\n${args}`;
  return template
    .replaceAll('$ARGUMENTS', args)
    .replace(/\$([1-9])/g, (_m, n: string) => words[Number(n) - 1] ?? '');
}

/** Front matter: `---`, `key: value` lines, `---`, as other agents' command files have. */
const FRONT_MATTER = /^---\r?\n([\s\S]*?)\r?\n---\r?\n?/;

/**
 * A template file: its prompt, and its `/help` summary: the front matter's `description`,
 * else the first non-empty line without a heading mark. The front matter is not prompt.
 *
 * @internal Exported for its tests.
 */
export function parseTemplate(source: string): { summary: string; body: string } {
  const front = FRONT_MATTER.exec(source);
  const body = front === null ? source : source.slice(front[0].length);
  const described = front?.[1]
    ?.split(/\r?\n/)
    .map((l) => /^description:\s*(.*)$/.exec(l)?.[1]?.trim())
    .find((d) => d !== undefined && d !== '');
  const first = body.split('\n').find((l) => l.trim() !== '') ?? '';
  const line = described ?? first.replace(/^#+\s*/, '').trim();
  return { summary: line.length > 80 ? `${line.slice(0, 79)}…` : line, body };
}

function commandOf(name: string, source: string): SlashCommand {
  const { summary, body } = parseTemplate(source);
  return {
    name,
    kind: 'template',
    summary: summary || `Prompt template ${name}`,
    usage: `/${name} [arguments]`,
    run: async (args) => ({ kind: 'prompt', text: expandTemplate(body, args) }),
  };
}

async function resolve(name: string, ctx: CommandContext): Promise<SlashCommand | undefined> {
  if (!TEMPLATE_NAME.test(name) || ctx.workspace === undefined) return undefined;
  const template = await ctx.workspace.readPromptTemplate(name);
  return template === undefined ? undefined : commandOf(name, template);
}

async function list(ctx: CommandContext): Promise<readonly CommandInfo[]> {
  if (ctx.workspace === undefined) return [];
  const names = (await ctx.workspace.listPromptTemplates()).filter((n) => TEMPLATE_NAME.test(n));
  const found = await Promise.all(names.map((n) => resolve(n, ctx)));
  return found.flatMap((c) => (c === undefined ? [] : [c]));
}

/** The workspace's prompt templates as slash commands (R12.1). */
export const promptTemplates: SessionFeature = {
  name: 'prompt-templates',
  dynamicCommands: { resolve, list },
};
