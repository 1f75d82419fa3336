import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { blobBucket } from '@agentwire/bus';
import type { SessionEvent } from '@agentwire/contracts';
import { openSse } from '@agentwire/gateway/testing';
import {
  fileOfBytes,
  loadTranscriptRows,
  type RuntimeStack,
  runLongSession,
  startRuntimeStack,
} from '@agentwire/runtime/testing';
import { waitUntil } from '@agentwire/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

/**
 * Issue 18, "done when": a tool result of 5 MB (the output cap raised by configuration) is
 * stored once in the blob store, content-addressed; every message on the session's subjects
 * stays under the bound (`AW_MAX_EVENT_BYTES`, docs/decisions/0162); a NATS frontend and an
 * SSE frontend read the whole result back (through the gateway, as checked fragments that
 * the client reassembles, decision 0200), and so does Postgres (the worker resolves the
 * part's output before it writes it).
 */

const RESULT_BYTES = 5 * 1024 * 1024;
const BOUND = 256 * 1024;
let stack: RuntimeStack;

beforeAll(async () => {
  stack = await startRuntimeStack(
    {
      name: 'large-tool-result-e2e',
      runtimeEnv: {
        AW_TOOL_OUTPUT_BYTES: String(6 * 1024 * 1024),
        AW_MAX_EVENT_BYTES: String(BOUND),
        // The next request must carry the 5 MB result: no automatic compaction (0229).
        AW_COMPACT_AT: 'off',
      },
      gateway: true,
    },
    ['rtA'],
  );
  await writeFile(path.join(stack.workspace, 'README.md'), fileOfBytes(RESULT_BYTES));
});

afterAll(async () => {
  await stack?.stop();
});

const resultOf = (events: readonly { type: string; payload: unknown }[]) => {
  const e = events.find((x) => x.type === 'tool_call_result') as
    | Extract<SessionEvent, { type: 'tool_call_result' }>
    | undefined;
  return e?.payload.result.content;
};

describe('a 5 MB tool result (issue 18)', () => {
  it('is stored once, every message stays under the bound, and every reader gets it whole', {
    timeout: 420_000,
  }, async () => {
    const opened = await stack.client.open();
    if (!opened.ok) throw new Error(opened.error.message);
    const sid = String(opened.sessionId);
    const follow = stack.client.follow(sid, 0);
    const sse = await openSse(`${stack.gatewayUrl}/sessions/${sid}/events?after=0`);
    try {
      const run = await runLongSession({
        bus: stack.bus,
        names: stack.names,
        client: stack.client,
        sessionId: sid,
        turns: 2,
        prompt: (n) =>
          n === 1 ? '[scenario:read_readme] read the big file' : '[scenario:streamed_text] next',
      });
      const largest = Math.max(...run.wire.map((m) => m.bytes));
      expect(largest).toBeLessThan(BOUND + 16 * 1024);
      const file = fileOfBytes(RESULT_BYTES);
      // Stored once, though the event, the next request and the part command all carry it.
      const objects = await stack.bus.jsm.streams.info(`OBJ_${blobBucket(stack.names)}`);
      expect(objects.state.bytes).toBeGreaterThan(RESULT_BYTES);
      expect(objects.state.bytes).toBeLessThan(1.2 * RESULT_BYTES);

      // A NATS frontend (followSession) reads it back whole.
      await waitUntil(() => follow.events.filter((e) => e.type === 'turn_complete').length === 2, {
        timeoutMs: 120_000,
        what: 'the NATS follower to see both turns',
      });
      expect(resultOf(follow.events) === file).toBe(true);
      const request = follow.events.filter((e) => e.type === 'model_request').at(1);
      expect(
        request?.type === 'model_request' &&
          request.payload.messages.some((m) => m.role === 'tool' && m.content === file),
      ).toBe(true);

      // So does an SSE frontend through the gateway.
      const lastSeq = follow.events.at(-1)?.sequenceNumber ?? 0;
      await waitUntil(() => (sse.events.at(-1)?.sequenceNumber ?? 0) >= lastSeq, {
        timeoutMs: 120_000,
        what: 'the SSE frontend to catch up (5 MB frames)',
      });
      expect(resultOf(sse.events as never) === file).toBe(true);
      // It came as checked fragments, none over the frame bound, reassembled by the
      // client's FrameReader with no resync (R15.3, decision 0200).
      const fragments = sse.frames.filter((f) => f.event === 'fragment');
      expect(fragments.length).toBeGreaterThanOrEqual(RESULT_BYTES / (256 * 1024));
      const largestFrame = Math.max(...sse.frames.map((f) => Buffer.byteLength(f.data ?? '')));
      expect(largestFrame).toBeLessThanOrEqual(256 * 1024);
      expect(sse.readings.filter((r) => r.kind !== 'events' && r.kind !== 'partial')).toEqual([]);

      // And Postgres: the worker read the part's output back before writing it.
      let output: string | null = null;
      await waitUntil(
        async () => {
          const { rows } = await loadTranscriptRows(stack.db, sid);
          output =
            rows.flatMap((r) => r.parts).find((p) => p.type === 'tool' && p.status === 'completed')
              ?.output ?? null;
          return output !== null;
        },
        { timeoutMs: 120_000, what: 'the tool part in Postgres' },
      );
      expect(output === file).toBe(true);
    } finally {
      sse.abort();
      await follow.stop();
    }
  });
});
