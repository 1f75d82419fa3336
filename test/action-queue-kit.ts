import { type RuntimeStack, startRuntimeStack, type WireDriver } from '@agentwire/runtime/testing';
import { waitUntil } from '@agentwire/testing';

/**
 * The action-queue tests' stack and helpers (issue 11): two runtime instances, the
 * projection and a gateway, with long permission and confirmation timeouts.
 */
export interface ActionQueueKit {
  readonly stack: RuntimeStack;
  readonly client: WireDriver;
  /** One gateway call; the reply's status and JSON body. */
  http(
    method: string,
    route: string,
    body?: unknown,
  ): Promise<{ status: number; json: Record<string, unknown> }>;
  /**
   * A new session, followed from 0, whose turn on `inputId` waits on its permission request
   * (after the prompts of `before`, each run to its end); `answer` answers that request.
   */
  waitingTurn(
    inputId: string,
    before?: readonly string[],
  ): Promise<{
    sid: string;
    follow: ReturnType<WireDriver['follow']>;
    owner: string;
    answer(decision: 'allow' | 'deny'): Promise<void>;
  }>;
  /** One ledger row (R14.1) of the session. */
  ledgerRow(
    sid: string,
    inputId: string,
  ): Promise<{ id: string; status: string; status_reason: string | null } | undefined>;
}

export async function startActionQueueKit(name: string): Promise<ActionQueueKit> {
  const stack = await startRuntimeStack(
    {
      name,
      projection: true,
      gateway: true,
      runtimeEnv: { AW_PERMISSION_TIMEOUT_MS: '60000', AW_CONFIRM_TIMEOUT_MS: '20000' },
    },
    ['aqA', 'aqB'],
  );
  const { client } = stack;
  return {
    stack,
    client,
    async http(method, route, body) {
      const res = await fetch(`${stack.gatewayUrl}${route}`, {
        method,
        ...(body === undefined
          ? {}
          : { body: JSON.stringify(body), headers: { 'content-type': 'application/json' } }),
      });
      return { status: res.status, json: (await res.json()) as Record<string, unknown> };
    },
    async waitingTurn(inputId, before = []) {
      const opened = await client.open();
      if (!opened.ok) throw new Error(opened.error.message);
      const sid = String(opened.sessionId);
      const follow = client.follow(sid, 0);
      for (const text of before) {
        const reply = await client.op(sid, 'prompt', { text, wait: true }, 30_000);
        if (!reply.ok) throw new Error(`prompt ${text}: ${reply.error.message}`);
      }
      await client.op(sid, 'prompt', { text: '[scenario:run_command] go', inputId });
      await waitUntil(() => follow.events.some((e) => e.type === 'permission_requested'), {
        timeoutMs: 10_000,
        what: 'the permission request',
      });
      const answer = async (decision: 'allow' | 'deny') => {
        const request = follow.events.find((e) => e.type === 'permission_requested');
        if (request?.type !== 'permission_requested') throw new Error('no permission request');
        await client.op(sid, 'answer_permission', {
          requestId: request.payload.requestId,
          decision,
        });
      };
      return { sid, follow, owner: String(opened.owner), answer };
    },
    ledgerRow(sid, inputId) {
      return stack.db
        .selectFrom('session_inputs')
        .select(['id', 'status', 'status_reason'])
        .where('session_id', '=', sid)
        .where('id', '=', inputId)
        .executeTakeFirst();
    },
  };
}
