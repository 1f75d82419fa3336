import type { TitleReply } from '@agentwire/contracts';
import type { TitleGenerator, TitleGeneratorResult } from '../kernel/title-job.ts';

/**
 * A title sidecar for unit tests: records each request and answers `result` once
 * `release()` is called (no answer until then), so a test decides when the reply lands.
 */
export class FakeTitles implements TitleGenerator {
  readonly requests: unknown[] = [];
  result: TitleGeneratorResult = {
    kind: 'unavailable',
    reason: 'no_responders',
    message: '503',
  };
  release: () => void = () => {};
  readonly gate = new Promise<void>((r) => {
    this.release = r;
  });
  async generate(request: unknown): Promise<TitleGeneratorResult> {
    this.requests.push(request);
    await this.gate;
    return this.result;
  }
}

/** A sidecar reply that wrote `Fix the flaky build` back; `over` changes any field. */
export const titleReply = (over: Partial<Extract<TitleReply, { ok: true }>> = {}): TitleReply => ({
  ok: true,
  sessionId: 's1',
  title: 'Fix the flaky build',
  applied: true,
  changed: true,
  source: 'generated',
  previousTitle: 'please fix the flaky build on main',
  model: { providerId: 'scripted', modelId: 'title' },
  completion: {
    content: '{"title":"Fix the flaky build"}',
    stopReason: 'stop',
    usage: { inputTokens: 3 },
    toolCallCount: 0,
  },
  durationMs: 1,
  ...over,
});
