import { LONG_COMMAND } from '@agentwire/model';
import { type ToolDefinition, ToolError } from '../kernel/tool-definition.ts';

const pathSchema = { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] };

function output(content: string): Awaited<ReturnType<ToolDefinition['run']>> {
  const bytes = new TextEncoder().encode(content).length;
  return { content, truncated: false, originalBytes: bytes, returnedBytes: bytes };
}

function field(input: unknown, name: string): string {
  const value = (input as Record<string, unknown> | null)?.[name];
  if (typeof value !== 'string') throw new ToolError('invalid_input', `${name} must be a string`);
  return value;
}

/**
 * The scripted scenarios' four tools over an in-memory file map, for the engine's tests
 * without a file system: `read_file` and `list_dir` at once, `write_file` and `run_command`
 * behind a permission (R1.4). `run_command` echoes its command, except the scenarios'
 * `LONG_COMMAND`, which runs until the turn is interrupted.
 */
export function memoryTools(files = new Map([['README.md', '# demo\n']])): ToolDefinition[] {
  return [
    {
      name: 'read_file',
      description: 'Read a file.',
      inputSchema: pathSchema,
      needsPermission: false,
      riskLevel: 'low',
      readOnly: true,
      effect: 'read',
      async run(input) {
        const path = field(input, 'path');
        const content = files.get(path);
        if (content === undefined) throw new ToolError('read_failed', `no file ${path}`);
        return { ...output(content), filesRead: [path] };
      },
    },
    {
      name: 'list_dir',
      description: 'List the files.',
      inputSchema: pathSchema,
      needsPermission: false,
      riskLevel: 'low',
      readOnly: true,
      effect: 'read',
      async run() {
        return output([...files.keys()].sort().join('\n'));
      },
    },
    {
      name: 'write_file',
      description: 'Write a file.',
      inputSchema: pathSchema,
      needsPermission: true,
      riskLevel: 'medium',
      readOnly: false,
      effect: 'write',
      async run(input) {
        const path = field(input, 'path');
        const content = field(input, 'content');
        files.set(path, content);
        const bytes = new TextEncoder().encode(content);
        return { ...output(`wrote ${path}`), filesWritten: [{ path, bytes }] };
      },
    },
    {
      name: 'run_command',
      description: 'Run a command.',
      inputSchema: { type: 'object', properties: { command: { type: 'string' } } },
      needsPermission: true,
      riskLevel: 'high',
      readOnly: false,
      effect: 'execute',
      async run(input, signal) {
        const command = field(input, 'command');
        if (command === LONG_COMMAND) {
          await new Promise<void>((resolve) => {
            if (signal.aborted) resolve();
            signal.addEventListener('abort', () => resolve(), { once: true });
          });
          throw new ToolError('interrupted', 'the command was stopped');
        }
        return output(`$ ${command}\n`);
      },
    },
  ];
}
