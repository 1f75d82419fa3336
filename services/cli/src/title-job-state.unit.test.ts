import type { SessionEvent } from '@agentwire/contracts';
import { describe, expect, it } from 'vitest';
import { nextTitleJobState, type TitleJobState, titleJobPending } from './title-job-state.ts';

/** Only `type` and `payload` matter to the state; the envelope is left out. */
function event(type: string, payload: Record<string, unknown>): SessionEvent {
  return { type, payload } as unknown as SessionEvent;
}

function run(events: readonly SessionEvent[]): TitleJobState {
  return events.reduce<TitleJobState>(nextTitleJobState, 'none');
}

const request = event('model_request', { querySource: 'session_title' });
const complete = event('model_complete', { querySource: 'session_title' });

describe('the title job as a follower sees it (flow 4)', () => {
  it('is pending from its model_request until the generated title arrives', () => {
    expect(run([request])).toBe('requested');
    expect(run([request, complete])).toBe('answered');
    expect(titleJobPending(run([request, complete]))).toBe(true);
    const updated = event('session_title_updated', { source: 'generated' });
    expect(run([request, complete, updated])).toBe('settled');
    expect(titleJobPending(run([request, complete, updated]))).toBe(false);
  });

  it('settles on its model_error and ignores the main turn and other titles', () => {
    expect(run([request, event('model_error', { querySource: 'session_title' })])).toBe('settled');
    const mainTurn = [
      event('model_request', { querySource: 'main_turn' }),
      event('model_complete', { querySource: 'main_turn' }),
      event('model_error', { querySource: 'main_turn' }),
      event('session_title_updated', { source: 'first_input' }),
    ];
    expect(run(mainTurn)).toBe('none');
    expect(run([request, ...mainTurn])).toBe('requested');
    expect(titleJobPending('none')).toBe(false);
  });
});
