import { describe, expect, it } from 'vitest';
import type { CommandContext, SessionStatus } from '../../kernel/feature.ts';
import { sessionCommands } from './session-commands.ts';

function ctx(): CommandContext & { renamed: string[] } {
  const renamed: string[] = [];
  const status: SessionStatus = {
    sessionId: 's1',
    title: 'T',
    titleSource: 'custom',
    persisted: true,
    turnCount: 3,
    activeTurnId: null,
    pendingInputIds: ['in_1'],
  };
  return {
    renamed,
    sessionId: 's1',
    workspace: undefined,
    commands: async () => [{ name: 'help', kind: 'direct', summary: 'h', usage: '/help' }],
    status: () => status,
    rename: async (title) => void renamed.push(title),
    idle: () => true,
  };
}

const command = (name: string) => {
  const found = sessionCommands.commands?.find((c) => c.name === name);
  if (found === undefined) throw new Error(`no /${name}`);
  return found;
};

describe('the session commands (R12.1)', () => {
  it('/help answers the commands the session knows, /status its facts', async () => {
    const c = ctx();
    expect(await command('help').run('', c)).toEqual({
      kind: 'result',
      result: { commands: [{ name: 'help', kind: 'direct', summary: 'h', usage: '/help' }] },
    });
    expect(await command('status').run('', c)).toMatchObject({
      kind: 'result',
      result: { title: 'T', turnCount: 3, pendingInputIds: ['in_1'] },
    });
  });

  it('/rename takes 1 to 200 characters, and refuses anything else with its usage', async () => {
    const c = ctx();
    expect(await command('rename').run('New name', c)).toEqual({
      kind: 'result',
      result: { title: 'New name' },
    });
    expect(c.renamed).toEqual(['New name']);
    await expect(command('rename').run('', c)).rejects.toMatchObject({
      code: 'invalid_command',
      detail: { command: 'rename', usage: '/rename <title>' },
    });
    await expect(command('rename').run('x'.repeat(201), c)).rejects.toMatchObject({
      code: 'invalid_command',
    });
    expect(c.renamed).toEqual(['New name']);
  });
});
