import { type SessionMode, SessionMode as SessionModes } from '@agentwire/contracts';
import type {
  FeatureContext,
  FeatureHooks,
  SessionFeature,
  SlashCommand,
  ToolDecision,
} from '../../kernel/feature.ts';
import { RuntimeError } from '../../kernel/runtime-error.ts';
import { type ToolDefinition, ToolError, type ToolOutput } from '../../kernel/tool-definition.ts';

const RUN: ToolDecision = { kind: 'run' };
const ASK: ToolDecision = { kind: 'ask' };

/**
 * What each session mode lets a tool do (R16.2, docs/decisions/0223), by the tool's effect:
 * - `plan`: reading only; a tool that writes or runs anything is refused;
 * - `build` (a new session's mode, R16.3): a tool that needs permission asks first;
 * - `edit`: reads and file writes in the workspace run; running programs asks;
 * - `yolo`: nothing asks;
 * - `auto`: only tools of risk `high` or `critical` ask, whatever their effect.
 *
 * @internal Exported for its tests.
 */
export const MODE_POLICY: { readonly [M in SessionMode]: (tool: ToolDefinition) => ToolDecision } =
  {
    plan: (tool) =>
      tool.effect === 'read'
        ? RUN
        : {
            kind: 'deny',
            reason: `plan mode runs read-only tools only; ${tool.name} ${tool.effect === 'write' ? 'writes files' : 'runs programs'} (switch with /mode build)`,
          },
    build: (tool) => (tool.needsPermission ? ASK : RUN),
    edit: (tool) => (tool.effect === 'execute' ? ASK : RUN),
    yolo: () => RUN,
    auto: (tool) => (tool.riskLevel === 'high' || tool.riskLevel === 'critical' ? ASK : RUN),
  };

const SUMMARIES: { readonly [M in SessionMode]: string } = {
  plan: 'read-only: tools that change anything are refused',
  build: 'asks before changes',
  edit: 'edits files without asking; commands ask',
  yolo: 'nothing asks',
  auto: 'asks only for high-risk tools',
};

/** The tool plan mode offers the model to leave it (docs/decisions/0227). */
const EXIT_PLAN_MODE = 'exit_plan_mode';
/** Longest plan the tool takes, in characters: the user reads it in a permission request. */
const MAX_PLAN_CHARS = 20_000;

function planOf(input: unknown): string {
  const plan = (input as { plan?: unknown } | null)?.plan;
  if (typeof plan !== 'string' || plan.trim() === '') {
    throw new ToolError('invalid_input', `${EXIT_PLAN_MODE} needs a non-empty string plan`);
  }
  if (plan.length > MAX_PLAN_CHARS) {
    throw new ToolError(
      'invalid_input',
      `${EXIT_PLAN_MODE}: the plan has ${plan.length} characters, more than ${MAX_PLAN_CHARS}`,
    );
  }
  return plan;
}

function textOutput(content: string): ToolOutput {
  const bytes = new TextEncoder().encode(content).length;
  return { content, truncated: false, originalBytes: bytes, returnedBytes: bytes };
}

/** The last mode the stream states (R10.4), else a new session's `build` (R16.3). */
function recoveredMode(ctx: FeatureContext): SessionMode {
  let mode: SessionMode = 'build';
  for (const e of ctx.recovered) if (e.type === 'session_mode_changed') mode = e.payload.mode;
  return mode;
}

function attach(ctx: FeatureContext): FeatureHooks {
  let mode = recoveredMode(ctx);
  const command: SlashCommand = {
    name: 'mode',
    kind: 'direct',
    summary: `Show or set what tools may do: ${SessionModes.options.join(', ')}`,
    usage: `/mode [${SessionModes.options.join('|')}]`,
    run: async (args) => {
      if (args === '') {
        return { kind: 'result', result: { mode, modes: SUMMARIES } };
      }
      const parsed = SessionModes.safeParse(args.toLowerCase());
      if (!parsed.success) {
        throw new RuntimeError(
          'invalid_command',
          `unknown mode ${JSON.stringify(args)}; the modes are ${SessionModes.options.join(', ')}`,
          { command: 'mode', usage: command.usage, known: SessionModes.options },
        );
      }
      const previousMode = mode;
      if (parsed.data === previousMode) {
        return { kind: 'result', result: { mode, previousMode, changed: false } };
      }
      // A call already waiting for its answer keeps its question; the new mode decides the
      // calls that come after it (0223).
      mode = parsed.data;
      await ctx.emit('session_mode_changed', { mode, previousMode, source: 'command' });
      return { kind: 'result', result: { mode, previousMode, changed: true } };
    },
  };
  // Plan mode's way out (0227): the model presents its plan, the user approves it by
  // answering the permission request that shows it, and the session goes to build mode.
  const exitPlanMode: ToolDefinition = {
    name: EXIT_PLAN_MODE,
    description:
      'Plan mode only: present your finished plan to the user for approval. When the user ' +
      'approves, the session leaves plan mode for build mode and you may carry the plan out ' +
      '(changes still ask first); when the user declines, stay in plan mode and revise it.',
    inputSchema: {
      type: 'object',
      properties: { plan: { type: 'string', description: 'The plan, in Markdown.' } },
      required: ['plan'],
    },
    needsPermission: true,
    riskLevel: 'low',
    readOnly: true,
    effect: 'read',
    askReason: (input) => {
      const plan = (input as { plan?: unknown } | null)?.plan;
      return typeof plan === 'string'
        ? `approve this plan to leave plan mode for build mode:\n${plan}`
        : 'approve a plan to leave plan mode for build mode';
    },
    async run(input) {
      planOf(input);
      // The mode may have changed since the turn offered the tool (a `/mode` meanwhile).
      if (mode !== 'plan') {
        throw new ToolError('not_in_plan_mode', `the session is in ${mode} mode, not plan mode`);
      }
      const previousMode = mode;
      mode = 'build';
      await ctx.emit('session_mode_changed', { mode, previousMode, source: 'tool' });
      return textOutput(
        'The user approved the plan. The session is now in build mode: carry the plan out; ' +
          'tools that change files or run programs ask the user first.',
      );
    },
  };
  return {
    commands: [command],
    tools: () => (mode === 'plan' ? [exitPlanMode] : []),
    // Approving the plan is the user's: the tool always asks, whatever reading may do.
    decideTool: (tool) => (tool === exitPlanMode ? ASK : MODE_POLICY[mode](tool)),
  };
}

/**
 * Session modes: `/mode`, `session_mode_changed`, the tool policy of each (R16.2), and plan
 * mode's `exit_plan_mode` tool.
 */
export const modes: SessionFeature = {
  name: 'modes',
  recoversFrom: ['session_mode_changed'],
  attach,
};
