import { cleanTitle } from '@agentwire/domain';
import { describe, expect, it } from 'vitest';
import { buildTitleModelRequest } from './build-title-model-request.ts';
import { runTitleModel } from './run-title-model.ts';
import {
  createScriptedTitleProvider,
  scriptedTitleOf,
  withoutMainTurnDirectives,
} from './scripted-title-provider.ts';

describe('the scripted title model', () => {
  it('derives a title from the first words of the input', () => {
    expect(scriptedTitleOf('fix the flaky login test in CI, please!')).toBe(
      'Fix the flaky login test in',
    );
    expect(scriptedTitleOf('"Refactor" the   parser.')).toBe('Refactor the parser');
    expect(scriptedTitleOf('修复登录页面的测试')).toBe('修复登录页面的测试');
    const unspaced = '修复登录页面的测试失败问题并且更新文档说明以及示例代码';
    expect(Array.from(scriptedTitleOf(unspaced))).toEqual(Array.from(unspaced).slice(0, 24));
    expect(scriptedTitleOf('[scenario:title_slow] name this session please')).toBe(
      'Name this session please',
    );
  });

  it('answers {"title": ...} deterministically, with usage', async () => {
    const provider = createScriptedTitleProvider();
    const request = buildTitleModelRequest({ input: 'Add retries to the upload client' });
    const first = await runTitleModel(provider, request, { timeoutMs: 5000 });
    const second = await runTitleModel(provider, request, { timeoutMs: 5000 });
    expect(first).toEqual(second);
    expect(first.ok).toBe(true);
    if (!first.ok) return;
    expect(JSON.parse(first.completion.content)).toEqual({
      title: 'Add retries to the upload client',
    });
    expect(first.completion.stopReason).toBe('stop');
    expect(first.completion.usage.inputTokens).toBeGreaterThan(0);
    expect(cleanTitle({ text: first.completion.content })).toEqual({
      ok: true,
      title: 'Add retries to the upload client',
    });
  });

  it('ignores main-turn scenario directives and titles the input (R9.6)', async () => {
    const provider = createScriptedTitleProvider();
    const input = '[scenario:two_tools] read the README and write a note';
    const reply = await runTitleModel(provider, buildTitleModelRequest({ input }), {
      timeoutMs: 5000,
    });
    expect(reply.ok).toBe(true);
    if (!reply.ok) return;
    expect(reply.completion.toolCallCount).toBe(0);
    expect(JSON.parse(reply.completion.content)).toEqual({
      title: 'Read the README and write a',
    });
    expect(withoutMainTurnDirectives('[scenario:model_error] a [scenario:title_slow] b')).toBe(
      'a [scenario:title_slow] b',
    );
  });
});
