import { describe, expect, it } from 'vitest';
import { sampleCompletedToolPart, sampleParts } from '../testing/sample-records.ts';
import { PART_TYPES, Part } from './part.ts';
import { EMPTY_TOOL_NAME, normalizeToolName } from './tool-name.ts';
import { ToolPart } from './tool-part.ts';
import {
  classifyToolPartTransition,
  isToolPartTransitionAllowed,
  TOOL_PART_STATUS_RANK,
} from './tool-part-status.ts';

describe('the empty tool name rule (R7.6)', () => {
  it('given an empty name, stores empty_tool_name and keeps the original', () => {
    expect(normalizeToolName('')).toEqual({ toolName: EMPTY_TOOL_NAME, originalToolName: '' });
  });

  it('given a whitespace-only name, treats it as empty', () => {
    expect(normalizeToolName('  ')).toEqual({
      toolName: 'empty_tool_name',
      originalToolName: '  ',
    });
  });

  it('given a real name, keeps it and records no original', () => {
    expect(normalizeToolName('read_file')).toEqual({ toolName: 'read_file' });
  });

  it('rejects a tool part stored with an empty name', () => {
    const result = ToolPart.safeParse({ ...sampleCompletedToolPart, toolName: '' });
    expect(result.success).toBe(false);
    expect(result.error?.issues[0]?.message).toContain('normalizeToolName');
  });

  it('accepts the normalised name with the original in metadata', () => {
    const { toolName, originalToolName } = normalizeToolName('');
    const part = { ...sampleCompletedToolPart, toolName, metadata: { originalToolName } };
    expect(ToolPart.parse(part)).toEqual(part);
  });
});

describe('tool part statuses only move forward (R7.5)', () => {
  it('given completed, a write back to running regresses', () => {
    expect(classifyToolPartTransition('completed', 'running')).toBe('regress');
    expect(isToolPartTransitionAllowed('completed', 'running')).toBe(false);
  });

  it('given a terminal status, the other terminal status regresses', () => {
    expect(isToolPartTransitionAllowed('completed', 'error')).toBe(false);
    expect(isToolPartTransitionAllowed('error', 'completed')).toBe(false);
  });

  it('walks pending -> running -> completed, and may skip running', () => {
    expect(classifyToolPartTransition('pending', 'running')).toBe('advance');
    expect(classifyToolPartTransition('running', 'completed')).toBe('advance');
    expect(classifyToolPartTransition('pending', 'error')).toBe('advance');
  });

  it('treats a repeated status as the same (a refining or repeated write)', () => {
    expect(classifyToolPartTransition('running', 'running')).toBe('same');
    expect(isToolPartTransitionAllowed('completed', 'completed')).toBe(true);
  });

  it('never allows a lower rank, for every pair', () => {
    const statuses = Object.keys(TOOL_PART_STATUS_RANK) as (keyof typeof TOOL_PART_STATUS_RANK)[];
    for (const from of statuses) {
      for (const to of statuses) {
        const lower = TOOL_PART_STATUS_RANK[to] < TOOL_PART_STATUS_RANK[from];
        if (lower) expect(isToolPartTransitionAllowed(from, to)).toBe(false);
      }
    }
  });
});

describe('the part union (R7.2)', () => {
  it('names thirteen part types', () => {
    expect(PART_TYPES).toHaveLength(13);
    expect(Object.keys(sampleParts).sort()).toEqual([...PART_TYPES].sort());
  });

  it.each(PART_TYPES)('parses a valid %s part', (type) => {
    expect(Part.parse(sampleParts[type])).toEqual(sampleParts[type]);
  });

  it('rejects an unknown part type', () => {
    expect(Part.safeParse({ ...sampleParts.text, type: 'video' }).success).toBe(false);
  });

  it('reports a bad tool state by its path', () => {
    const state = { ...sampleCompletedToolPart.state, status: 'done' };
    const result = Part.safeParse({ ...sampleCompletedToolPart, state });
    expect(result.success).toBe(false);
    expect(result.error?.issues[0]?.path).toEqual(['state', 'status']);
  });
});
