import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { ToolDefinition } from '@agentwire/engine';
import { loadConfig } from '@agentwire/service';
import { waitUntil } from '@agentwire/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RuntimeConfig } from '../config.ts';
import { createWorkspaceTools } from './workspace-tools.ts';

let root: string;
const signal = new AbortController().signal;

/** The runtime's environment as a deployment gives it: its secrets beside harmless values. */
const RUNTIME_ENV = {
  PATH: process.env.PATH ?? '/usr/bin:/bin',
  HOME: '/home/agent',
  DATABASE_URL: 'postgres://runtime:pg-secret-4711@db:5432/agentwire',
  NATS_URL: 'nats://runtime:nats-url-secret@nats:4222',
  NATS_PASSWORD: 'nats-secret-4711',
  NATS_CREDS_FILE: '/run/secrets/runtime.creds',
  AW_MODEL_API_KEY: 'sk-model-secret-4711',
  AW_PROBE: 'probe-visible',
};
const SECRETS = [
  'pg-secret-4711',
  'nats-url-secret',
  'nats-secret-4711',
  'runtime.creds',
  'sk-model-secret-4711',
];

function runCommand(
  options: { timeoutMs?: number; maxBytes?: number; allow?: string[] } = {},
): ToolDefinition {
  const tools = createWorkspaceTools({
    root,
    env: RUNTIME_ENV,
    envAllow: options.allow ?? ['PATH', 'HOME', 'AW_PROBE'],
    commandTimeoutMs: options.timeoutMs ?? 30_000,
    maxOutputBytes: options.maxBytes ?? 64 * 1024,
  });
  const tool = tools.find((t) => t.name === 'run_command');
  if (!tool) throw new Error('no run_command');
  return tool;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

beforeAll(async () => {
  root = await mkdtemp(path.join(tmpdir(), 'aw-run-command-'));
});
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

describe('run_command sandbox (issue 15)', () => {
  it('prints an environment with the allowed variables and none of the runtime secrets', async () => {
    const out = await runCommand().run({ command: 'env' }, signal);
    expect(out.content).toContain('AW_PROBE=probe-visible');
    expect(out.content).toContain('HOME=/home/agent');
    for (const secret of SECRETS) expect(out.content).not.toContain(secret);
    expect(out.content).not.toMatch(/^(DATABASE_URL|NATS_\w+|AW_MODEL_API_KEY)=/m);
  });

  it('never passes a secret even when the allow list names it (the config refuses it too)', async () => {
    const out = await runCommand({ allow: ['PATH', 'DATABASE_URL', 'AW_MODEL_API_KEY'] }).run(
      { command: 'env' },
      signal,
    );
    for (const secret of SECRETS) expect(out.content).not.toContain(secret);
    expect(() =>
      loadConfig(RuntimeConfig, {
        AW_WORKSPACE_ROOT: root,
        AW_TOOL_ENV_ALLOW: 'PATH,DATABASE_URL,AW_MODEL_API_KEY',
      }),
    ).toThrow(
      /AW_TOOL_ENV_ALLOW: must not pass the runtime's secrets to commands: DATABASE_URL, AW_MODEL_API_KEY/,
    );
    const config = loadConfig(RuntimeConfig, {
      AW_WORKSPACE_ROOT: root,
      AW_TOOL_ENV_ALLOW: 'PATH, LANG',
    });
    expect(config.AW_TOOL_ENV_ALLOW).toEqual(['PATH', 'LANG']);
  });

  it('kills a command past its timeout, with what it started, and says so', async () => {
    const pidFile = path.join(root, 'child.pid');
    const started = Date.now();
    await expect(
      runCommand({ timeoutMs: 500 }).run(
        { command: `sleep 60 & echo $! > ${pidFile}; wait` },
        signal,
      ),
    ).rejects.toMatchObject({
      name: 'ToolError',
      code: 'command_timeout',
      message: 'command timed out after 500 ms and was killed',
    });
    expect(Date.now() - started).toBeLessThan(30_000);
    const pid = Number(await readFile(pidFile, 'utf8'));
    await waitUntil(() => !alive(pid), { what: `the backgrounded sleep ${pid} to be killed` });
  });

  it('caps the output it returns and reports the size it cut', async () => {
    const out = await runCommand({ maxBytes: 1000 }).run(
      { command: 'head -c 200000 /dev/zero | tr "\\0" a' },
      signal,
    );
    expect(out).toMatchObject({ truncated: true, returnedBytes: 1000, originalBytes: 200_000 });
    expect(out.content).toBe('a'.repeat(1000));
  });

  it('returns a failing exit code and stderr as a result, not an error', async () => {
    const out = await runCommand().run({ command: 'echo out; echo err >&2; exit 3' }, signal);
    expect(out.content).toBe('out\n\n[stderr]\nerr\n\n[exit 3]');
    expect(out.truncated).toBe(false);
  });

  it('stops the command when the turn is aborted', async () => {
    const controller = new AbortController();
    const running = runCommand().run({ command: 'sleep 60' }, controller.signal);
    controller.abort();
    await expect(running).rejects.toMatchObject({ code: 'command_aborted' });
  });
});
