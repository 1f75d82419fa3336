import {
  cutTitleInput,
  TITLE_INPUT_MAX_CHARS,
  TITLE_SYSTEM_PROMPT,
  titleModelMessages,
} from '@agentwire/contracts';
import { describe, expect, it } from 'vitest';
import { buildTitleModelRequest } from './build-title-model-request.ts';

describe('buildTitleModelRequest (R9.6, R16.5)', () => {
  it('sends one system prompt and one user message with the input, no tools', () => {
    const request = buildTitleModelRequest({ input: 'Fix the flaky login test in CI' });
    expect(request.messages).toEqual([
      { role: 'system', content: TITLE_SYSTEM_PROMPT },
      { role: 'user', content: 'Fix the flaky login test in CI' },
    ]);
    expect(request.tools).toEqual([]);
    expect(request.reasoningEffort).toBe('lowest');
  });

  it('asks for a naming task answered with exactly {"title":"..."} of 3-7 words', () => {
    expect(TITLE_SYSTEM_PROMPT).toContain('naming task, not a conversation');
    expect(TITLE_SYSTEM_PROMPT).toContain('{"title":"..."}');
    expect(TITLE_SYSTEM_PROMPT).toContain('3 to 7 words');
    expect(TITLE_SYSTEM_PROMPT).toContain('same language as the user message');
    expect(TITLE_SYSTEM_PROMPT).toMatch(/markdown.*quotes.*final punctuation/s);
  });

  it('cuts the input to 1,200 characters', () => {
    const long = `${'a'.repeat(1199)}bcdef`;
    const user = buildTitleModelRequest({ input: long }).messages[1];
    expect(user?.content).toBe(`${'a'.repeat(1199)}b`);
    expect(Array.from(user?.content ?? '')).toHaveLength(TITLE_INPUT_MAX_CHARS);
    const exact = 'x'.repeat(1200);
    expect(buildTitleModelRequest({ input: exact }).messages[1]?.content).toBe(exact);
  });

  it('counts characters as code points and never splits a surrogate pair', () => {
    const emoji = '😀'.repeat(1300);
    const cut = cutTitleInput(emoji);
    expect(Array.from(cut)).toHaveLength(1200);
    expect(cut).toBe('😀'.repeat(1200));
    expect(titleModelMessages(emoji)[1]?.content).toBe(cut);
  });

  it('limits the output to min(5000, the model limit); the request limit wins', () => {
    expect(buildTitleModelRequest({ input: 'x' }).maxTokens).toBe(5000);
    expect(buildTitleModelRequest({ input: 'x' }, 4096).maxTokens).toBe(4096);
    expect(buildTitleModelRequest({ input: 'x' }, 64_000).maxTokens).toBe(5000);
    expect(buildTitleModelRequest({ input: 'x', modelOutputLimit: 1000 }, 4096).maxTokens).toBe(
      1000,
    );
  });
});
