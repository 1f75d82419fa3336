import { describe, expect, it } from 'vitest';
import { cleanTitle } from './clean-title.ts';

const titleOf = (text: string) => cleanTitle({ text });

describe('cleanTitle (R9.8, R16.5)', () => {
  it('given the requested JSON, when cleaned, then its title is taken', () => {
    expect(titleOf('{"title":"Fix flaky retention test"}')).toEqual({
      ok: true,
      title: 'Fix flaky retention test',
    });
  });

  it('given thinking blocks in any case, when cleaned, then they are dropped first', () => {
    const text = '<THINK>the user wants {"title":"no"}</think>\n{"title":"Plan the migration"}';
    expect(titleOf(text)).toEqual({ ok: true, title: 'Plan the migration' });
    expect(titleOf('<thinking>x</thinking>Deploy notes')).toEqual({
      ok: true,
      title: 'Deploy notes',
    });
  });

  it('given JSON inside a markdown code fence, when cleaned, then the fenced title is taken', () => {
    const text = 'Here you go:\n```json\n{"title": "Add residency pool"}\n```';
    expect(titleOf(text)).toEqual({ ok: true, title: 'Add residency pool' });
  });

  it('given plain text, when cleaned, then the first non-empty line is taken', () => {
    expect(titleOf('\n\n  Session title here  \nsecond line')).toEqual({
      ok: true,
      title: 'Session title here',
    });
  });

  it('given a heading with quotes and final punctuation, when cleaned, then they are stripped', () => {
    expect(titleOf('## "Review the ledger."')).toEqual({ ok: true, title: 'Review the ledger' });
    // Quotes are trimmed before punctuation (R16.5's order), so a quote before `?!` stays.
    expect(titleOf('# \u201CReview the ledger\u201D?!')).toEqual({
      ok: true,
      title: 'Review the ledger\u201D',
    });
    expect(titleOf('{"title":"`Tidy imports`"}')).toEqual({ ok: true, title: 'Tidy imports' });
    expect(titleOf('{"title":"修复构建。"}')).toEqual({ ok: true, title: '修复构建' });
    expect(titleOf('{"title":"Why is it slow ？：；"}')).toEqual({
      ok: true,
      title: 'Why is it slow',
    });
  });

  it('given inner runs of whitespace, when cleaned, then they collapse', () => {
    expect(titleOf('{"title":"a   b\\n\\tc"}')).toEqual({ ok: true, title: 'a b c' });
  });

  it('given a title with no letter, digit or CJK character, when cleaned, then it is rejected', () => {
    expect(titleOf('{"title":"— … —"}')).toEqual({ ok: false, reason: 'no_meaningful_characters' });
    expect(titleOf('{"title":"ÉÀ"}')).toEqual({ ok: false, reason: 'no_meaningful_characters' });
  });

  it('given a title over 100 characters, when cleaned, then it is cut to 97 plus ...', () => {
    const long = 'w'.repeat(101);
    expect(titleOf(JSON.stringify({ title: long }))).toEqual({
      ok: true,
      title: `${'w'.repeat(97)}...`,
    });
    const exact = 'w'.repeat(100);
    expect(titleOf(JSON.stringify({ title: exact }))).toEqual({ ok: true, title: exact });
  });

  it('given tool calls or an empty title, when cleaned, then no title', () => {
    expect(cleanTitle({ text: '{"title":"x y"}', hasToolCalls: true })).toEqual({
      ok: false,
      reason: 'tool_calls',
    });
    expect(titleOf('{"title":""}')).toEqual({ ok: false, reason: 'empty' });
    expect(titleOf('<think>only thoughts')).toEqual({ ok: false, reason: 'empty' });
    expect(titleOf('"..."')).toEqual({ ok: false, reason: 'empty' });
  });
});
