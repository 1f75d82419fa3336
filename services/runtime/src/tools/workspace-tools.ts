import { constants } from 'node:fs';
import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { type ToolDefinition, ToolError } from '@agentwire/engine';
import { z } from 'zod';
import { runCommandTool } from './run-command.ts';
import { DEFAULT_TOOL_ENV_ALLOW, toolEnvironment } from './tool-environment.ts';
import { cappedOutput, parseToolInput } from './tool-output.ts';
import { resolveInWorkspace } from './workspace-path.ts';

/** Options of {@link createWorkspaceTools}. */
export interface WorkspaceToolsOptions {
  /** The workspace root every path is confined to. */
  readonly root: string;
  /** Output cap per call, in bytes (default 64 KiB). */
  readonly maxOutputBytes?: number;
  /** `run_command` timeout (default 30 s). */
  readonly commandTimeoutMs?: number;
  /** The environment commands pick their variables from (default `process.env`). */
  readonly env?: Readonly<Record<string, string | undefined>>;
  /** Names of the variables a command gets (default {@link DEFAULT_TOOL_ENV_ALLOW}). */
  readonly envAllow?: readonly string[];
}

const PathInput = z.object({ path: z.string() });
const WriteInput = z.object({ path: z.string(), content: z.string() });

const pathSchema = { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] };

/**
 * The last component is opened without following a link: one that became a link after
 * {@link resolveInWorkspace} checked the path is refused, not followed.
 */
const NO_FOLLOW = constants.O_NOFOLLOW;

function ioError(code: string, what: string, cause: unknown): ToolError {
  if ((cause as NodeJS.ErrnoException).code === 'ELOOP') {
    return new ToolError('path_outside_workspace', `${what}: it is a symbolic link`, { cause });
  }
  return new ToolError(code, `${what}: ${(cause as Error).message}`, { cause });
}

/**
 * The four workspace tools of issue 6: `read_file` and `list_dir` run at once;
 * `write_file` and `run_command` ask for permission first (R1.4). Every path is confined
 * to the root, symbolic links included (`path_outside_workspace`); a command gets only the
 * allowed environment, a timeout and an output cap (docs/decisions/0142).
 */
export function createWorkspaceTools(options: WorkspaceToolsOptions): ToolDefinition[] {
  const { root } = options;
  const max = options.maxOutputBytes ?? 64 * 1024;
  return [
    {
      name: 'read_file',
      description: 'Read a UTF-8 text file inside the workspace.',
      inputSchema: pathSchema,
      needsPermission: false,
      riskLevel: 'low',
      readOnly: true,
      effect: 'read',
      async run(input) {
        const { path: p } = parseToolInput(PathInput, input, 'read_file');
        const file = await resolveInWorkspace(root, p);
        const flag = constants.O_RDONLY | NO_FOLLOW;
        const text = await readFile(file.absolute, { encoding: 'utf8', flag }).catch(
          (cause: unknown) => {
            throw ioError('read_failed', `cannot read ${p}`, cause);
          },
        );
        return cappedOutput(text, max, { filesRead: [file.relative] });
      },
    },
    {
      name: 'list_dir',
      description: 'List the entries of a directory inside the workspace.',
      inputSchema: pathSchema,
      needsPermission: false,
      riskLevel: 'low',
      readOnly: true,
      effect: 'read',
      async run(input) {
        const { path: p } = parseToolInput(PathInput, input, 'list_dir');
        const dir = await resolveInWorkspace(root, p);
        const entries = await readdir(dir.absolute, { withFileTypes: true }).catch(
          (cause: unknown) => {
            throw ioError('list_failed', `cannot list ${p}`, cause);
          },
        );
        const lines = entries.map((e) => (e.isDirectory() ? `${e.name}/` : e.name)).sort();
        return cappedOutput(lines.join('\n'), max);
      },
    },
    {
      name: 'write_file',
      description: 'Write a UTF-8 text file inside the workspace (asks for permission).',
      inputSchema: {
        type: 'object',
        properties: { path: { type: 'string' }, content: { type: 'string' } },
        required: ['path', 'content'],
      },
      needsPermission: true,
      riskLevel: 'medium',
      readOnly: false,
      effect: 'write',
      async run(input) {
        const { path: p, content } = parseToolInput(WriteInput, input, 'write_file');
        const file = await resolveInWorkspace(root, p);
        const flag = constants.O_WRONLY | constants.O_CREAT | constants.O_TRUNC | NO_FOLLOW;
        const bytes = Buffer.from(content, 'utf8');
        try {
          await mkdir(path.dirname(file.absolute), { recursive: true });
          await writeFile(file.absolute, bytes, { flag });
        } catch (cause) {
          throw ioError('write_failed', `cannot write ${p}`, cause);
        }
        const out = cappedOutput(`wrote ${bytes.byteLength} bytes to ${file.relative}`, max);
        // What it left, for the checkpoint of the call (0244): named as the call named it.
        return { ...out, filesWritten: [{ path: p, bytes }] };
      },
    },
    runCommandTool({
      root,
      env: toolEnvironment(options.env ?? process.env, options.envAllow ?? DEFAULT_TOOL_ENV_ALLOW),
      timeoutMs: options.commandTimeoutMs ?? 30_000,
      maxOutputBytes: max,
    }),
  ];
}
