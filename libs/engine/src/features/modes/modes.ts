import { type SessionMode, SessionMode as SessionModes } from '@agentwire/contracts';
import type {
  FeatureContext,
  FeatureHooks,
  SessionFeature,
  SlashCommand,
  ToolDecision,
} from '../../kernel/feature.ts';
import { RuntimeError } from '../../kernel/runtime-error.ts';
import type { ToolDefinition } from '../../kernel/tool-definition.ts';

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
  return { commands: [command], decideTool: (tool) => MODE_POLICY[mode](tool) };
}

/** Session modes: `/mode`, `session_mode_changed`, and the tool policy of each (R16.2). */
export const modes: SessionFeature = {
  name: 'modes',
  recoversFrom: ['session_mode_changed'],
  attach,
};
