import { spawn } from 'node:child_process';
import { type ToolDefinition, ToolError, type ToolOutput } from '@agentwire/engine';
import { z } from 'zod';
import { cappedOutput, parseToolInput } from './tool-output.ts';

/** Options of {@link runCommandTool}. */
export interface RunCommandOptions {
  /** The working directory: the workspace root. */
  readonly root: string;
  /** The command's whole environment (see `toolEnvironment`): nothing else is inherited. */
  readonly env: Readonly<Record<string, string>>;
  /** After this long the command's process group is killed (`command_timeout`). */
  readonly timeoutMs: number;
  /** Bytes kept of stdout and of stderr each; the rest is counted, not kept. */
  readonly maxOutputBytes: number;
}

const CommandInput = z.object({ command: z.string().min(1) });

/** Bytes of one output stream: the first `max` kept, all counted. */
class CappedStream {
  private readonly chunks: Buffer[] = [];
  private kept = 0;
  private readonly max: number;
  total = 0;
  constructor(max: number) {
    this.max = max;
  }
  add(chunk: Buffer): void {
    this.total += chunk.length;
    const room = this.max - this.kept;
    if (room <= 0) return;
    const part = chunk.length > room ? chunk.subarray(0, room) : chunk;
    this.chunks.push(part);
    this.kept += part.length;
  }
  text(): string {
    return Buffer.concat(this.chunks).toString('utf8');
  }
}

interface Finished {
  readonly exit: number | null;
  readonly stdout: CappedStream;
  readonly stderr: CappedStream;
}

/**
 * Runs `command` with `/bin/sh -c` in its own process group, so that a timeout or an
 * abort kills the shell and everything it started (a child holding the output pipes would
 * otherwise keep the call open past its timeout).
 */
function runShell(command: string, o: RunCommandOptions, signal: AbortSignal): Promise<Finished> {
  return new Promise((resolve, reject) => {
    const child = spawn('/bin/sh', ['-c', command], {
      cwd: o.root,
      env: o.env,
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const stdout = new CappedStream(o.maxOutputBytes);
    const stderr = new CappedStream(o.maxOutputBytes);
    child.stdout.on('data', (c: Buffer) => stdout.add(c));
    child.stderr.on('data', (c: Buffer) => stderr.add(c));
    let failure: ToolError | undefined;
    const killGroup = (why: ToolError) => {
      failure ??= why;
      try {
        if (child.pid !== undefined) process.kill(-child.pid, 'SIGKILL');
      } catch {
        // already gone
      }
    };
    const timer = setTimeout(
      () =>
        killGroup(
          new ToolError(
            'command_timeout',
            `command timed out after ${o.timeoutMs} ms and was killed`,
          ),
        ),
      o.timeoutMs,
    );
    const onAbort = () =>
      killGroup(new ToolError('command_aborted', 'command aborted: the turn was interrupted'));
    signal.addEventListener('abort', onAbort, { once: true });
    if (signal.aborted) onAbort();
    let settled = false;
    const settle = (exit: number | null) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      signal.removeEventListener('abort', onAbort);
      if (failure) reject(failure);
      else resolve({ exit, stdout, stderr });
    };
    child.once('error', (cause) => {
      killGroup(
        new ToolError('command_failed', `command could not start: ${cause.message}`, { cause }),
      );
      settle(null);
    });
    // After a kill, settle on the shell's exit: a process that left the group may hold the
    // pipes open. Otherwise wait for 'close', so that no output is lost.
    child.once('exit', (code) => {
      if (!failure) return;
      child.stdout.destroy();
      child.stderr.destroy();
      settle(code);
    });
    child.once('close', (code) => {
      if (!failure) settle(code);
    });
  });
}

function formatOutput(done: Finished, max: number): ToolOutput {
  const err = done.stderr.text();
  const exit = done.exit ?? -1;
  const text = `${done.stdout.text()}${err === '' ? '' : `\n[stderr]\n${err}`}${exit === 0 ? '' : `\n[exit ${exit}]`}`;
  const dropped =
    done.stdout.total +
    done.stderr.total -
    Buffer.byteLength(done.stdout.text()) -
    Buffer.byteLength(err);
  return cappedOutput(text, max, { originalBytes: Buffer.byteLength(text) + dropped });
}

/**
 * `run_command` (asks for permission, R1.4): `/bin/sh -c` in the workspace root with only
 * the given environment, killed with its process group after `timeoutMs`, output capped
 * (docs/decisions/0142). A non-zero exit is a result (`[exit N]`), not an error; a
 * timeout, an abort or a failure to start is a tool error.
 */
export function runCommandTool(o: RunCommandOptions): ToolDefinition {
  return {
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
    effect: 'execute',
    async run(input, signal) {
      const { command } = parseToolInput(CommandInput, input, 'run_command');
      return formatOutput(await runShell(command, o, signal), o.maxOutputBytes);
    },
  };
}
