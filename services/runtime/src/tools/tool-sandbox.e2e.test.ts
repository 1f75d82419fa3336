import type { SessionEvent } from '@agentwire/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RuntimeStack, startRuntimeStack } from '../testing/runtime-stack.ts';

const MODEL_KEY = 'sk-e2e-model-secret-0815';
let stack: RuntimeStack;

beforeAll(async () => {
  stack = await startRuntimeStack(
    {
      name: 'tool-sandbox',
      runtimeEnv: {
        AW_MODEL_API_KEY: MODEL_KEY,
        AW_SANDBOX_PROBE: 'probe-visible',
        AW_TOOL_ENV_ALLOW: 'PATH,AW_SANDBOX_PROBE',
      },
    },
    ['rt1'],
  );
});
afterAll(() => stack?.stop());

describe('the runtime process runs commands without its secrets (issue 15)', () => {
  it('a run_command printing its environment shows the allowed variable and no secret', async () => {
    const opened = await stack.client.open();
    if (!opened.ok) throw new Error(opened.error.message);
    const sid = String(opened.sessionId);
    const follow = stack.client.follow(sid, 0, { answer: 'allow' });
    const reply = await stack.client.runTurn(sid, '[scenario:print_env] show me', follow);
    await follow.stop();
    expect(reply).toMatchObject({ ok: true, status: 'complete' });
    const result = follow.events.find(
      (e): e is Extract<SessionEvent, { type: 'tool_call_result' }> =>
        e.type === 'tool_call_result',
    );
    const printed = result?.payload.result.content ?? '';
    expect(printed).toContain('AW_SANDBOX_PROBE=probe-visible');
    for (const secret of [MODEL_KEY, stack.env.databaseUrl, stack.env.natsUrl]) {
      expect(printed).not.toContain(secret);
    }
    expect(printed).not.toMatch(/^(DATABASE_URL|NATS_URL|AW_MODEL_API_KEY|AW_PREFIX)=/m);
  });
});
