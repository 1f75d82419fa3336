import { execFile } from 'node:child_process';
import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import { type ToolDefinition, ToolError, type ToolOutput } from './tool-definition.ts';
import { resolveInWorkspace } from './workspace-path.ts';

/** Options of {@link createWorkspaceTools}. */
export interface WorkspaceToolsOptions {
  /** The workspace root every path is confined to. */
  readonly root: string;
  /** Output cap per call, in bytes (default 64 KiB). */
  readonly maxOutputBytes?: number;
  /** `run_command` timeout (default 30 s). */
  readonly commandTimeoutMs?: number;
}

const PathInput = z.object({ path: z.string() });
const WriteInput = z.object({ path: z.string(), content: z.string() });
const CommandInput = z.object({ command: z.string().min(1) });

function parse<T>(schema: z.ZodType<T>, input: unknown, tool: string): T {
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  throw new ToolError(
    'invalid_input',
    `${tool}: ${result.error.issues.map((i) => `${i.path.join('.')} ${i.message}`).join('; ')}`,
  );
}

function capped(text: string, max: number, filesRead?: string[]): ToolOutput {
  const bytes = Buffer.from(text, 'utf8');
  const truncated = bytes.length > max;
  const content = truncated ? bytes.subarray(0, max).toString('utf8') : text;
  const out = {
    content,
    truncated,
    originalBytes: bytes.length,
    returnedBytes: Buffer.byteLength(content),
  };
  return filesRead === undefined ? out : { ...out, filesRead };
}

const pathSchema = { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] };

/**
 * The four workspace tools of issue 6: `read_file` and `list_dir` run at once;
 * `write_file` and `run_command` ask for permission first (R1.4). Every path is confined
 * to the root (a path outside fails with `path_outside_workspace`).
 */
export function createWorkspaceTools(options: WorkspaceToolsOptions): ToolDefinition[] {
  const { root } = options;
  const max = options.maxOutputBytes ?? 64 * 1024;
  const timeout = options.commandTimeoutMs ?? 30_000;
  const rel = (abs: string) => path.relative(root, abs) || '.';
  return [
    {
      name: 'read_file',
      description: 'Read a UTF-8 text file inside the workspace.',
      inputSchema: pathSchema,
      needsPermission: false,
      riskLevel: 'low',
      readOnly: true,
      async run(input) {
        const { path: p } = parse(PathInput, input, 'read_file');
        const abs = await resolveInWorkspace(root, p);
        const text = await readFile(abs, 'utf8').catch((cause: unknown) => {
          throw new ToolError('read_failed', `cannot read ${p}: ${(cause as Error).message}`, {
            cause,
          });
        });
        return capped(text, max, [rel(abs)]);
      },
    },
    {
      name: 'list_dir',
      description: 'List the entries of a directory inside the workspace.',
      inputSchema: pathSchema,
      needsPermission: false,
      riskLevel: 'low',
      readOnly: true,
      async run(input) {
        const { path: p } = parse(PathInput, input, 'list_dir');
        const abs = await resolveInWorkspace(root, p);
        const entries = await readdir(abs, { withFileTypes: true }).catch((cause: unknown) => {
          throw new ToolError('list_failed', `cannot list ${p}: ${(cause as Error).message}`, {
            cause,
          });
        });
        const lines = entries.map((e) => (e.isDirectory() ? `${e.name}/` : e.name)).sort();
        return capped(lines.join('\n'), max);
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
      async run(input) {
        const { path: p, content } = parse(WriteInput, input, 'write_file');
        const abs = await resolveInWorkspace(root, p);
        await mkdir(path.dirname(abs), { recursive: true });
        await writeFile(abs, content, 'utf8');
        return capped(`wrote ${Buffer.byteLength(content)} bytes to ${rel(abs)}`, max);
      },
    },
    {
      name: 'run_command',
      description: 'Run a shell command in the workspace root (asks for permission).',
      inputSchema: {
        type: 'object',
        properties: { command: { type: 'string' } },
        required: ['command'],
      },
      needsPermission: true,
      riskLevel: 'high',
      readOnly: false,
      run(input, signal) {
        const { command } = parse(CommandInput, input, 'run_command');
        return new Promise((resolve, reject) => {
          execFile(
            '/bin/sh',
            ['-c', command],
            { cwd: root, timeout, signal, maxBuffer: max * 4 },
            (error, stdout, stderr) => {
              const text = `${stdout}${stderr === '' ? '' : `\n[stderr]\n${stderr}`}`;
              if (error !== null && typeof error.code !== 'number') {
                reject(
                  new ToolError('command_failed', `command failed: ${error.message}`, {
                    cause: error,
                  }),
                );
                return;
              }
              const exit = error === null ? 0 : Number(error.code);
              resolve(capped(exit === 0 ? text : `${text}\n[exit ${exit}]`, max));
            },
          );
        });
      },
    },
  ];
}
