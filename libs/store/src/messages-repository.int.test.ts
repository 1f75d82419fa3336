import { describe, expect, it } from 'vitest';
import { canonicalDump } from './canonical-dump.ts';
import { StoreError } from './errors.ts';
import { admitInput, closeInput, getInput } from './ledger-repository.ts';
import {
  loadTranscript,
  type MessageInput,
  type PartInput,
  saveMessage,
  savePart,
  saveUserMessage,
  type ToolStatusValue,
} from './messages-repository.ts';
import { runOnce } from './processed-messages.ts';
import { permutations, truncateAll, useStoreTestContext } from './test-support.ts';

const ctx = useStoreTestContext();

const message = (id: string, version: number, text = `v${version}`): MessageInput => ({
  id,
  sessionId: 's1',
  role: 'assistant',
  data: { id, text },
  version,
  createdAt: 1_700_000_000_000,
});
const toolPart = (status: ToolStatusValue, version: number): PartInput => ({
  id: 'p1',
  messageId: 'm1',
  sessionId: 's1',
  type: 'tool',
  status,
  data: { state: { status } },
  version,
});
const userMessage = (id: string, text = 'hello'): MessageInput => ({
  id,
  sessionId: 's1',
  role: 'user',
  data: { id, text },
  version: 0,
  createdAt: 1_700_000_000_500,
});
const textPart = (messageId: string, text: string): PartInput => ({
  id: `${messageId}-p1`,
  messageId,
  sessionId: 's1',
  type: 'text',
  data: { text },
  version: 0,
});
const admit = (id: string) =>
  admitInput(ctx.db, {
    id,
    sessionId: 's1',
    kind: 'prompt',
    delivery: 'queue',
    payload: { text: 'hello' },
    sequence: 2,
    at: 1_700_000_000_000,
  });

describe('saveMessage', () => {
  it('applies a greater version and drops an older or repeated one', async () => {
    expect(await saveMessage(ctx.db, message('m1', 1))).toEqual({ outcome: 'applied' });
    expect(await saveMessage(ctx.db, message('m1', 3))).toEqual({ outcome: 'applied' });
    expect(await saveMessage(ctx.db, message('m1', 2))).toEqual({ outcome: 'stale' });
    expect(await saveMessage(ctx.db, message('m1', 3, 'changed'))).toEqual({
      outcome: 'duplicate',
    });
    const [row] = (await loadTranscript(ctx.db, 's1')).map((t) => t.message);
    expect(row).toMatchObject({ version: 3, data: { text: 'v3' } });
  });
});

describe('savePart: tool parts are forward-only (R7.5)', () => {
  it('a late running never replaces completed', async () => {
    await savePart(ctx.db, toolPart('pending', 1));
    await savePart(ctx.db, toolPart('completed', 3));
    expect(await savePart(ctx.db, toolPart('running', 2))).toEqual({ outcome: 'stale' });
    expect(await savePart(ctx.db, toolPart('pending', 9))).toEqual({ outcome: 'stale' });
    expect(await savePart(ctx.db, toolPart('error', 9))).toEqual({ outcome: 'stale' });
    expect(await savePart(ctx.db, toolPart('completed', 3))).toEqual({ outcome: 'duplicate' });
    const dump = await canonicalDump(ctx.db, { tables: ['parts'] });
    expect(dump.parts).toEqual([expect.objectContaining({ status: 'completed', version: 3 })]);
  });

  it('every arrival order of pending, running, error gives error', async () => {
    const results = new Set<string>();
    for (const order of permutations([
      toolPart('pending', 1),
      toolPart('running', 2),
      toolPart('error', 3),
    ])) {
      await truncateAll(ctx.db);
      for (const p of [...order, ...order]) await savePart(ctx.db, p);
      results.add(JSON.stringify(await canonicalDump(ctx.db, { tables: ['parts'] })));
    }
    expect([...results]).toHaveLength(1);
    expect([...results][0]).toContain('"status":"error"');
  });
});

describe('saveUserMessage with promotion (R7.3, R14.2)', () => {
  it('writes the message and promotes the ledger row in one transaction; repeating is a no-op', async () => {
    await admit('in1');
    const input = {
      message: userMessage('m1'),
      parts: [textPart('m1', 'hello')],
      promote: { id: 'in1', sequence: 5, at: 9 },
    };
    expect(await saveUserMessage(ctx.db, input)).toEqual({ ok: true, promoted: 'promoted' });
    const once = await canonicalDump(ctx.db);
    expect(await saveUserMessage(ctx.db, input)).toEqual({
      ok: true,
      promoted: 'already_promoted',
    });
    expect(await canonicalDump(ctx.db)).toEqual(once);
    expect(await getInput(ctx.db, 's1', 'in1')).toMatchObject({
      status: 'promoted',
      message_id: 'm1',
      promoted_seq: 5,
    });
    const transcript = await loadTranscript(ctx.db, 's1');
    expect(transcript.map((t) => [t.message.id, t.parts.map((p) => p.id)])).toEqual([
      ['m1', ['m1-p1']],
    ]);
  });

  it('a failure inside the transaction rolls back both the promotion and the message', async () => {
    await admit('in1');
    const bad = textPart('m1', 'nul \u0000 byte'); // jsonb rejects \u0000: SQLSTATE 22P05
    const err = await saveUserMessage(ctx.db, {
      message: userMessage('m1'),
      parts: [bad],
      promote: { id: 'in1', at: 9 },
    }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(StoreError);
    expect(err).toMatchObject({ kind: 'bad_data', retryable: false });
    expect(await getInput(ctx.db, 's1', 'in1')).toMatchObject({
      status: 'admitted',
      message_id: null,
    });
    expect(await loadTranscript(ctx.db, 's1')).toEqual([]);
  });

  it('refuses a closed row and writes nothing', async () => {
    await admit('in1');
    await closeInput(ctx.db, {
      id: 'in1',
      sessionId: 's1',
      status: 'cancelled',
      reason: 'user_removed',
      sequence: 3,
      at: 3,
    });
    const outcome = await saveUserMessage(ctx.db, {
      message: userMessage('m1'),
      parts: [textPart('m1', 'hello')],
      promote: { id: 'in1', at: 9 },
    });
    expect(outcome).toEqual({
      ok: false,
      reason: 'input_not_admitted',
      status: 'cancelled',
      messageId: null,
    });
    expect(await loadTranscript(ctx.db, 's1')).toEqual([]);
  });

  it('refuses a row promoted by another message', async () => {
    await admit('in1');
    await saveUserMessage(ctx.db, {
      message: userMessage('m1'),
      parts: [],
      promote: { id: 'in1', at: 9 },
    });
    const outcome = await saveUserMessage(ctx.db, {
      message: userMessage('m2'),
      parts: [],
      promote: { id: 'in1', at: 9 },
    });
    expect(outcome).toMatchObject({ ok: false, status: 'promoted', messageId: 'm1' });
  });
});

describe('runOnce', () => {
  it('runs a message once and returns the stored outcome on redelivery', async () => {
    let runs = 0;
    const apply = () =>
      runOnce(ctx.db, { scope: 'command', id: 'cmd-1' }, async (trx) => {
        runs += 1;
        return saveMessage(trx, message('m1', 1));
      });
    expect(await apply()).toEqual({ duplicate: false, outcome: { outcome: 'applied' } });
    expect(await apply()).toEqual({ duplicate: true, outcome: { outcome: 'applied' } });
    expect(runs).toBe(1);
  });

  it('concurrent deliveries of one id apply once', async () => {
    let runs = 0;
    const apply = () =>
      runOnce(ctx.db, { scope: 'command', id: 'cmd-2' }, async (trx) => {
        runs += 1;
        return saveMessage(trx, message('m2', 1));
      });
    const results = await Promise.all([apply(), apply(), apply()]);
    expect(runs).toBe(1);
    expect(results.filter((r) => !r.duplicate)).toHaveLength(1);
  });

  it('a failing write records nothing, so the redelivery runs again', async () => {
    const failing = runOnce(ctx.db, { scope: 'command', id: 'cmd-3' }, (trx) =>
      savePart(trx, textPart('m3', 'bad \u0000')),
    );
    await expect(failing).rejects.toBeInstanceOf(StoreError);
    const retry = await runOnce(ctx.db, { scope: 'command', id: 'cmd-3' }, (trx) =>
      savePart(trx, textPart('m3', 'good')),
    );
    expect(retry).toEqual({ duplicate: false, outcome: { outcome: 'applied' } });
  });
});
