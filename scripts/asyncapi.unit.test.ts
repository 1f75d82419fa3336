import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { EVENT_TYPES, names } from '@agentwire/contracts';
import { Parser } from '@asyncapi/parser';
import { describe, expect, it } from 'vitest';
import { asyncApiDocument } from './asyncapi-document.ts';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const checkedIn = readFileSync(path.join(root, 'docs/asyncapi.json'), 'utf8');

describe('the AsyncAPI document of the wire (docs/asyncapi.json)', () => {
  it('is the one the contracts generate (pnpm asyncapi; lint runs --check)', () => {
    expect(checkedIn).toBe(`${JSON.stringify(asyncApiDocument(), null, 2)}\n`);
  });

  it('is valid for the AsyncAPI parser: no error or warning, every $ref resolved', async () => {
    const { document, diagnostics } = await new Parser().parse(checkedIn);
    // Severity 0 is an error, 1 a warning; 2 and 3 are hints.
    expect(diagnostics.filter((d) => d.severity <= 1)).toEqual([]);
    expect(document).toBeDefined();
    expect(checkedIn).not.toContain('#/definitions/');
    const events = document?.channels().get('sessionEvents');
    const transient = document?.channels().get('sessionTransientEvents');
    const types = [...(events?.messages().all() ?? []), ...(transient?.messages().all() ?? [])]
      .map((m) => m.name())
      .sort();
    expect(types).toEqual([...EVENT_TYPES].sort());
    expect(types).toHaveLength(79);
    const prompt = document?.operations().get('runtimePrompt');
    expect(prompt?.action()).toBe('send');
    expect(prompt?.reply()?.messages().all()).toHaveLength(1);
    // Parsing the whole document takes 2-4 s alone, more beside other test files.
  }, 30_000);

  it('names the subjects as the contracts build them', () => {
    const doc = asyncApiDocument() as { channels: Record<string, { address: string | null }> };
    const n = names('aw');
    const concrete = (address: string | null) =>
      address?.replace('{sessionId}', 's1').replace('{turnId}', 't1');
    expect(concrete(doc.channels.sessionEvents?.address ?? null)).toBe(n.eventSubject('s1'));
    expect(concrete(doc.channels.sessionTransientEvents?.address ?? null)).toBe(
      n.transientSubject('s1', 't1'),
    );
    expect(concrete(doc.channels.runtimeRemoveInput?.address ?? null)).toBe(
      n.runtimeOp('s1', 'remove_input'),
    );
    expect(concrete(doc.channels.runtimeRewind?.address ?? null)).toBe(n.runtimeOp('s1', 'rewind'));
    expect(concrete(doc.channels.runtimeTree?.address ?? null)).toBe(n.runtimeOp('s1', 'tree'));
    expect(concrete(doc.channels.runtimeFork?.address ?? null)).toBe(n.runtimeOp('s1', 'fork'));
    expect(doc.channels.queryHistory?.address).toBe(n.query('history'));
    expect(doc.channels.runtimeOpen?.address).toBe(n.runtimeOpen);
    expect(doc.channels.projectionGet?.address).toBe(n.projectionGet);
  });
});
