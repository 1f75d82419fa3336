import { createHash } from 'node:crypto';
import type { ModelRequestMessage, SessionEvent } from '@agentwire/contracts';
import { ModelRequestChain } from '@agentwire/domain';
import { createScriptedProvider, type ModelProvider } from '@agentwire/model';
import { describe, expect, it } from 'vitest';
import { createSessionHarness } from '../testing/session-harness.ts';
import { startTurn } from '../testing/start-turn.ts';
import type { ContentHasher } from './ports.ts';
import { toRequestMessages } from './request-chain.ts';

const sha256: ContentHasher = {
  sha256Hex: (text) => createHash('sha256').update(text, 'utf8').digest('hex'),
};

/** The scripted model, recording the messages of every request it received. */
function recordingModel(): { model: ModelProvider; received: ModelRequestMessage[][] } {
  const inner = createScriptedProvider();
  const received: ModelRequestMessage[][] = [];
  const model: ModelProvider = {
    providerId: inner.providerId,
    modelId: inner.modelId,
    stream(request, signal) {
      received.push(structuredClone(toRequestMessages(request.messages)));
      return inner.stream(request, signal);
    },
  };
  return { model, received };
}

const mainRequests = (events: readonly SessionEvent[]) =>
  events.flatMap((e) =>
    e.type === 'model_request' && e.payload.querySource === 'main_turn' ? [e] : [],
  );

describe('model_request carries what is new since the previous request (issue 18, 0161)', () => {
  it('a consumer rebuilds every request exactly as the model received it, digests checked', async () => {
    const { model, received } = recordingModel();
    const h = createSessionHarness({ model, hasher: sha256 });
    for (let turn = 0; turn < 4; turn += 1) {
      const ticket = await startTurn(h.session, `[scenario:two_tools] turn ${turn}`);
      // write_file asks first: allow it.
      for (;;) {
        const asked = h.events.find(
          (e) =>
            e.type === 'permission_requested' &&
            e.turnId === ticket.turnId &&
            !h.events.some(
              (r) =>
                r.type === 'permission_resolved' && r.payload.requestId === e.payload.requestId,
            ),
        );
        if (asked?.type === 'permission_requested') {
          h.session.answerPermission(asked.payload.requestId ?? '', { decision: 'allow' });
          break;
        }
        await new Promise((r) => setTimeout(r, 1));
      }
      await expect(ticket.done).resolves.toMatchObject({ status: 'complete' });
    }
    const requests = mainRequests(h.events);
    expect(requests).toHaveLength(8);
    expect(received).toHaveLength(8);
    const chain = new ModelRequestChain((t) => sha256.sha256Hex(t));
    const rebuilt = h.events.flatMap((e) => {
      const messages = chain.add(e);
      return messages === undefined || e.type !== 'model_request' ? [] : [[...messages]];
    });
    expect(rebuilt).toEqual(received);
    // Only the first request is whole; each later one carries what is new and names its base.
    expect(requests[0]?.payload.base).toBeUndefined();
    for (let i = 1; i < requests.length; i += 1) {
      const p = requests[i]?.payload;
      expect(p?.base).toMatchObject({
        sequenceNumber: requests[i - 1]?.sequenceNumber,
        eventId: requests[i - 1]?.id,
        messageCount: received[i - 1]?.length,
      });
      expect(p?.messageCount).toBe(received[i]?.length);
      expect(p?.messages.length).toBe((received[i]?.length ?? 0) - (received[i - 1]?.length ?? 0));
      expect(p?.digest).toMatch(/^sha256:[0-9a-f]{64}$/);
    }
  });

  it('a tampered delta fails its digest; a request whose base was not seen is named', async () => {
    const h = createSessionHarness({ hasher: sha256 });
    await (await startTurn(h.session, '[scenario:streamed_text] one')).done;
    await (await startTurn(h.session, '[scenario:streamed_text] two')).done;
    const [first, second] = mainRequests(h.events);
    if (first === undefined || second === undefined) throw new Error('two requests expected');
    const hashing = () => new ModelRequestChain((t) => sha256.sha256Hex(t));
    const tampered = hashing();
    tampered.add(first);
    const changed = second.payload.messages.map((m) => ({ ...m, content: `${m.content}!` }));
    expect(() =>
      tampered.add({ ...second, payload: { ...second.payload, messages: changed } }),
    ).toThrow(expect.objectContaining({ name: 'ModelRequestChainError', code: 'digest_mismatch' }));
    expect(() => hashing().add(second)).toThrow(
      expect.objectContaining({ code: 'unknown_base', sequenceNumber: second.sequenceNumber }),
    );
    const fine = hashing();
    expect(fine.add(first)).toHaveLength(1);
    expect(fine.add(second)?.map((m) => m.content)).toEqual([
      '[scenario:streamed_text] one',
      'Hello from the scripted model.',
      '[scenario:streamed_text] two',
    ]);
  });
});
