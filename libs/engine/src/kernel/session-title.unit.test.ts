import type { SessionEvent } from '@agentwire/contracts';
import { waitUntil } from '@agentwire/testing';
import { describe, expect, it } from 'vitest';
import { RecordingWriter } from '../testing/fake-ports.ts';
import { FakeTitles, titleReply } from '../testing/fake-titles.ts';
import { createSessionHarness } from '../testing/session-harness.ts';

const quickly = { timeoutMs: 2_000, intervalMs: 2 } as const;
const INPUT = 'please fix the flaky build on main';

/** A session with title generation on, a held sidecar and a writer a test may hold. */
function setup() {
  const titles = new FakeTitles();
  titles.result = { kind: 'reply', reply: titleReply() };
  const writer = new RecordingWriter();
  const harness = createSessionHarness({
    writer,
    titleGeneration: {},
    titleGenerator: titles,
  });
  return { ...harness, titles };
}

const titlesOf = (events: readonly SessionEvent[]) =>
  events.flatMap((e) =>
    e.type === 'session_title_updated' ? [`${e.payload.source}:${e.payload.title}`] : [],
  );

const titleQuery = (events: readonly SessionEvent[], type: string) =>
  events.some(
    (e) =>
      e.type === type &&
      (e.type === 'model_request' || e.type === 'model_complete') &&
      e.payload.querySource === 'session_title',
  );

/** A gate for one kind of confirmation: writes of that kind wait until `open()`. */
function hold(writer: RecordingWriter, kind: 'ensure_session' | 'update_title') {
  let open = () => {};
  const gate = new Promise<void>((resolve) => {
    open = resolve;
  });
  writer.beforeConfirm = (k) => (k === kind ? gate : Promise.resolve());
  return { open: () => open() };
}

describe('one order of effect for a title (issue 17, docs/decisions/0130)', () => {
  it('a rename before the first prompt: the row is born custom, the prompt neither titles nor asks (R9.3, R9.5)', async () => {
    const { session, events, writer, titles } = setup();
    await session.rename('Mine');
    const first = await session.submit(INPUT);
    if (!first.ok || first.delivery !== 'startNow') throw new Error('not started');
    await first.done;
    expect(titlesOf(events)).toEqual(['custom:Mine']);
    expect(titles.requests).toHaveLength(0);
    const births = writer.calls.filter((c) => c.kind === 'ensure_session');
    expect(births.map((c) => c.value)).toEqual([
      expect.objectContaining({ title: 'Mine', titleSource: 'custom', firstInput: null }),
    ]);
    expect(writer.calls.filter((c) => c.kind === 'update_title')).toHaveLength(0);
  });

  it('a rename asked while the row is being born follows it and stops generation', async () => {
    const { session, events, writer, titles } = setup();
    const birth = hold(writer, 'ensure_session');
    const first = await session.submit(INPUT);
    if (!first.ok || first.delivery !== 'startNow') throw new Error('not started');
    await waitUntil(() => writer.calls.some((c) => c.kind === 'ensure_session'), quickly);
    const renamed = session.rename('Mine');
    birth.open();
    await renamed;
    await first.done;
    expect(titlesOf(events)).toEqual([`first_input:${INPUT}`, 'custom:Mine']);
    expect(titles.requests).toHaveLength(0);
  });

  it('a generated title the sidecar answers after the rename was asked is never announced', async () => {
    const { session, events, writer, titles } = setup();
    const first = await session.submit(INPUT);
    if (!first.ok || first.delivery !== 'startNow') throw new Error('not started');
    await first.done;
    expect(titles.requests).toHaveLength(1);
    // The rename is asked; the worker has not committed it when the sidecar's reply lands.
    const commit = hold(writer, 'update_title');
    const renamed = session.rename('Mine');
    titles.release();
    await waitUntil(() => titleQuery(events, 'model_complete'), quickly);
    expect(titlesOf(events)).toEqual([`first_input:${INPUT}`]);
    commit.open();
    await renamed;
    // The job settles after the rename: its write-back came first in Postgres, so no event.
    await waitUntil(() => session.residencyFacts().inFlightWork === 0, quickly);
    expect(titlesOf(events)).toEqual([`first_input:${INPUT}`, 'custom:Mine']);
    expect(session.title).toBe('Mine');
  });

  it('a generated title announced before the rename is followed by the rename', async () => {
    const { session, events, titles } = setup();
    const first = await session.submit(INPUT);
    if (!first.ok || first.delivery !== 'startNow') throw new Error('not started');
    await first.done;
    titles.release();
    await waitUntil(() => titlesOf(events).length === 2, quickly);
    await session.rename('Mine');
    expect(titlesOf(events)).toEqual([
      `first_input:${INPUT}`,
      'generated:Fix the flaky build',
      'custom:Mine',
    ]);
    const generated = events.find(
      (e) => e.type === 'session_title_updated' && e.payload.source === 'generated',
    );
    expect(generated?.payload).toMatchObject({ previousTitle: INPUT });
  });

  it('the same rename twice is announced once (R16.5)', async () => {
    const { session, events } = setup();
    await session.rename('Mine');
    await session.rename('Mine');
    await session.rename('Yours');
    expect(titlesOf(events)).toEqual(['custom:Mine', 'custom:Yours']);
  });

  it('a rename the worker never confirms is refused write_not_confirmed and not announced', async () => {
    const { session, events, writer } = setup();
    writer.confirms = false;
    await expect(session.rename('Mine')).rejects.toMatchObject({ code: 'write_not_confirmed' });
    expect(titlesOf(events)).toEqual([]);
  });

  it('a birth whose first confirmation was lost is still announced, and the title generated', async () => {
    const { session, events, writer, titles } = setup();
    writer.losesFirstConfirmation = true;
    const first = await session.submit(INPUT);
    if (!first.ok || first.delivery !== 'startNow') throw new Error('not started');
    await first.done;
    titles.release();
    await waitUntil(() => titlesOf(events).length === 2, quickly);
    expect(titlesOf(events)).toEqual([`first_input:${INPUT}`, 'generated:Fix the flaky build']);
  });

  it('a row the worker never confirms asks for no title: none can meet a missing row', async () => {
    const { session, titles, writer, logger } = setup();
    writer.confirms = false;
    const first = await session.submit(INPUT);
    if (!first.ok || first.delivery !== 'startNow') throw new Error('not started');
    await first.done;
    expect(titles.requests).toHaveLength(0);
    expect(logger.lines.some((l) => l.msg === 'no title: the session row is not confirmed')).toBe(
      true,
    );
  });
});
