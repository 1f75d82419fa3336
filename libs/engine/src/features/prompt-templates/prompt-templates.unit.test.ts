import { describe, expect, it } from 'vitest';
import type { CommandContext } from '../../kernel/feature.ts';
import { memoryWorkspace } from '../../testing/memory-workspace.ts';
import { expandTemplate, parseTemplate, promptTemplates } from './prompt-templates.ts';

const files = new Map([
  ['.agentwire/prompts/review.md', '# Review a change\nReview $1 for $ARGUMENTS.'],
  [
    '.agentwire/prompts/plain.md',
    '---\ndescription: Explain it\nmodel: any\n---\nExplain the build.',
  ],
  ['.agentwire/prompts/Bad.Name.md', 'never listed'],
]);
const ctx: CommandContext = {
  sessionId: 's1',
  workspace: memoryWorkspace(files),
  commands: async () => [],
  status: () => {
    throw new Error('not used');
  },
  rename: async () => {},
  idle: () => true,
};

describe('prompt templates (R12.1)', () => {
  it('replaces $ARGUMENTS and $1..$9, or appends the arguments when it has neither', () => {
    expect(expandTemplate('Review $1 for $ARGUMENTS.', 'auth.ts bugs')).toBe(
      'Review auth.ts for auth.ts bugs.',
    );
    expect(expandTemplate('Fix $2.', 'one')).toBe('Fix .');
    expect(expandTemplate('Explain the build.\n', 'briefly')).toBe('Explain the build.\n\nbriefly');
    expect(expandTemplate('Explain the build.', '')).toBe('Explain the build.');
  });

  it('resolves a template of the workspace into the prompt it stands for', async () => {
    const review = await promptTemplates.dynamicCommands?.resolve('review', ctx);
    expect(review).toMatchObject({ name: 'review', kind: 'template', summary: 'Review a change' });
    expect(await review?.run('x.ts', ctx)).toEqual({
      kind: 'prompt',
      text: '# Review a change\nReview x.ts for x.ts.',
    });
    expect(await promptTemplates.dynamicCommands?.resolve('nothing', ctx)).toBeUndefined();
    // A name that could leave the templates folder is never looked up.
    expect(await promptTemplates.dynamicCommands?.resolve('../secret', ctx)).toBeUndefined();
  });

  it('lists the templates whose names are valid command names', async () => {
    const listed = await promptTemplates.dynamicCommands?.list(ctx);
    expect(listed?.map((c) => [c.name, c.summary])).toEqual([
      ['plain', 'Explain it'],
      ['review', 'Review a change'],
    ]);
  });

  it('takes the front matter as description, never as prompt', async () => {
    expect(parseTemplate('---\ndescription: Short\n---\n# Body\ntext')).toEqual({
      summary: 'Short',
      body: '# Body\ntext',
    });
    const plain = await promptTemplates.dynamicCommands?.resolve('plain', ctx);
    expect(await plain?.run('', ctx)).toEqual({ kind: 'prompt', text: 'Explain the build.' });
  });
});
