import {
  type BusConnection,
  connectBus,
  followSession,
  type SessionFollower,
} from '@agentwire/bus';
import { names, type SessionEvent } from '@agentwire/contracts';
import { type Stack, startStack } from '@agentwire/gateway/testing';
import { SERVICE_MAINS } from '@agentwire/runtime/testing';
import {
  createTestEnvironment,
  type ServiceProcess,
  startServiceProcess,
  type TestEnvironment,
  waitUntil,
} from '@agentwire/testing';
import { ensureWebBuilt } from '@agentwire/web/ensure-built';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort, launchBrowser, screenshot, seriousViolations, startGateway } from './web-kit.ts';

let env: TestEnvironment;
let stack: Stack;
let sidecar: ServiceProcess;
let gateway: ServiceProcess;
let browser: Browser;
let bus: BusConnection;
let port: number;
let webDir: string;
let base: string;

beforeAll(async () => {
  env = await createTestEnvironment();
  const built = ensureWebBuilt();
  stack = await startStack(env, {
    serviceEnv: { runtime: { AW_TITLE_GENERATION: 'on', AW_TITLE_REQUEST_TIMEOUT_MS: '10000' } },
  });
  const common = { NATS_URL: env.natsUrl, DATABASE_URL: env.databaseUrl, AW_PREFIX: env.prefix };
  [sidecar, { dir: webDir }, port, browser, bus] = await Promise.all([
    startServiceProcess(SERVICE_MAINS.titleSidecar, common, { readyWhen: 'title sidecar serving' }),
    built,
    freePort(),
    launchBrowser(),
    connectBus({ servers: env.natsUrl, name: 'web-e2e' }),
  ]);
  gateway = await startGateway(env, port, webDir);
  base = `http://127.0.0.1:${port}`;
});

afterAll(async () => {
  await browser?.close();
  gateway?.kill('SIGTERM');
  sidecar?.kill('SIGTERM');
  await Promise.all([gateway?.exited, sidecar?.exited]);
  await bus?.close();
  await stack?.stop();
  await env?.dispose();
});

async function post(path: string, body: unknown = {}): Promise<Record<string, unknown>> {
  const res = await fetch(`${base}${path}`, {
    method: 'POST',
    body: JSON.stringify(body),
    headers: { 'content-type': 'application/json' },
  });
  const json = (await res.json()) as Record<string, unknown>;
  if (!res.ok) throw new Error(`${path}: ${res.status} ${JSON.stringify(json)}`);
  return json;
}

/**
 * A page of the web client, 1280×860, with its errors collected: a tab of `context`, or of a
 * browser window of its own.
 */
async function openPage(
  hash = '',
  context?: BrowserContext,
): Promise<{ page: Page; errors: string[] }> {
  const window = context ?? (await browser.newContext({ viewport: { width: 1280, height: 860 } }));
  const page = await window.newPage();
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(e.message));
  await page.goto(`${base}/${hash}`);
  return { page, errors };
}

/**
 * Types a prompt in the prompt box and sends it with Enter, as a person does, and waits
 * until the box is empty again: the gateway took it.
 */
async function typePrompt(page: Page, text: string): Promise<void> {
  const box = page.getByRole('textbox', { name: 'Message' });
  await box.fill(text);
  await box.press('Enter');
  await waitUntil(async () => (await box.inputValue()) === '', { what: `${text} sent` });
}

/** The open session's id, from the page's URL (`#/s/<id>`). */
const openSessionId = (page: Page) => decodeURIComponent(new URL(page.url()).hash.slice(4));

const sessionAttrs = (page: Page) =>
  page.locator('section.session').evaluate((el) => ({
    lastSeq: Number(el.getAttribute('data-last-seq')),
    applied: Number(el.getAttribute('data-applied')),
  }));

/** Every event of a session as the bus has it, from 0, followed live: the reference. */
function reference(sessionId: string): { events: SessionEvent[]; follower: SessionFollower } {
  const follower = followSession(bus.js, names(env.prefix), sessionId, { afterSequence: 0 });
  const events: SessionEvent[] = [];
  void (async () => {
    for await (const e of follower) events.push(e);
  })();
  return { events, follower };
}

describe('the web client in headless Chromium against the real stack', () => {
  it('lists sessions, opens one with its history, streams a prompt, allows a permission, shows the tool result and the generated title', async () => {
    // A session with history, made over HTTP before the page opens.
    const earlier = String((await post('/sessions')).sessionId);
    await post(`/sessions/${earlier}/prompt`, { text: '[scenario:markdown] plan it', wait: true });
    await waitUntil(
      async () => {
        const res = await fetch(`${base}/sessions`);
        const list = (await res.json()) as { sessions: { id: string; titleSource: string }[] };
        return list.sessions.some((s) => s.id === earlier && s.titleSource === 'generated');
      },
      { timeoutMs: 20_000, what: 'the earlier session listed with its generated title' },
    );

    const { page, errors } = await openPage();
    const listed = page.locator(`nav a[data-session-id="${earlier}"]`);
    await listed.waitFor();
    await page.getByText('Pick a session on the left').waitFor();
    expect(await seriousViolations(page)).toEqual([]);
    await screenshot(page, '01-session-list');

    await listed.click();
    await page.locator('.message-assistant .markdown h2', { hasText: 'Plan' }).waitFor();
    expect(await listed.getAttribute('aria-current')).toBe('page');
    const answer = page.locator('.message-assistant .markdown');
    expect(await answer.locator('strong').textContent()).toBe('read');
    expect(await answer.locator('li').allTextContents()).toEqual([
      'write a note',
      'say what changed',
    ]);
    expect((await answer.locator('pre code').textContent())?.trim()).toBe('cat README.md');
    // Links open beside the app; raw HTML from the model is sanitised (DOMPurify).
    const link = answer.locator('a', { hasText: 'the guide' });
    expect(await link.getAttribute('href')).toBe('https://example.com/guide');
    expect(await link.getAttribute('rel')).toBe('noopener noreferrer');
    expect(await answer.locator('span', { hasText: 'safely' }).count()).toBe(1);
    expect(await answer.locator('[onmouseover]').count()).toBe(0);
    const thinking = page.locator('details.reasoning');
    expect(await thinking.getAttribute('open')).toBeNull();
    expect(await thinking.locator('summary').textContent()).toBe('Thinking');
    expect(await seriousViolations(page)).toEqual([]);
    await screenshot(page, '02-session-history');

    // A new session: its first prompt streams, asks a permission, and gets a generated title.
    await page.getByRole('button', { name: 'New session' }).click();
    await page.waitForURL((url) => url.hash.startsWith('#/s/') && !url.hash.endsWith(earlier));
    const sid = openSessionId(page);
    await page.getByText('No messages yet').waitFor();
    await page.locator('[data-connection="live"]').waitFor();
    await typePrompt(page, '[scenario:two_tools] read the README and write a note');
    await page.locator('.message-user', { hasText: 'read the README and write a note' }).waitFor();
    await page.locator('.markdown', { hasText: 'Let me look at the workspace.' }).waitFor();
    await page.locator('[data-tool-name="read_file"] [data-status="completed"]').waitFor();
    const allow = page.getByRole('button', { name: 'Allow' });
    await allow.waitFor();
    expect(await page.locator('.permission h2').textContent()).toMatch(/Allow write_file\?/);
    expect(await page.locator('[data-tool-name="write_file"] [data-status]').textContent()).toBe(
      'Waiting',
    );
    expect(await seriousViolations(page)).toEqual([]);
    await screenshot(page, '03-permission-request');

    await allow.click();
    await page.locator('[data-tool-name="write_file"] [data-status="completed"]').waitFor();
    await page
      .locator('.markdown', { hasText: 'Done: read README.md and wrote notes.txt.' })
      .waitFor();
    await page.locator('.permission').waitFor({ state: 'detached' });
    await page.locator('[data-tool-name="write_file"] summary').click();
    expect(await page.locator('[data-tool-name="write_file"] .tool-output').textContent()).toBe(
      'wrote 21 bytes to notes.txt',
    );

    // The generated title, as the read side has it, appears in the header and the list.
    let generated = '';
    await waitUntil(
      async () => {
        const list = (await (await fetch(`${base}/sessions`)).json()) as {
          sessions: { id: string; title: string; titleSource: string }[];
        };
        const mine = list.sessions.find((s) => s.id === sid);
        generated = mine?.titleSource === 'generated' ? mine.title : '';
        return generated !== '';
      },
      { timeoutMs: 20_000, what: 'a generated title' },
    );
    await page.locator('#session-title', { hasText: generated }).waitFor();
    await page
      .locator(`nav a[data-session-id="${sid}"] .session-title`, { hasText: generated })
      .waitFor();
    expect(await seriousViolations(page)).toEqual([]);
    await screenshot(page, '04-turn-done');

    // Rename: the heading becomes a field; Enter saves; every view of the title follows.
    await page.getByRole('button', { name: 'Rename' }).click();
    const field = page.getByRole('textbox', { name: 'Session title' });
    expect(await field.inputValue()).toBe(generated);
    await field.fill('Notes on the README');
    await field.press('Enter');
    await page.locator('#session-title', { hasText: 'Notes on the README' }).waitFor();
    await page
      .locator(`nav a[data-session-id="${sid}"] .session-title`, { hasText: 'Notes on the README' })
      .waitFor();
    expect(errors).toEqual([]);
    await page.context().close();
  });

  it('streams text as it arrives, and after the gateway restarts mid-turn shows every event once', async () => {
    const { page, errors } = await openPage();
    await page.getByRole('button', { name: 'New session' }).click();
    await page.waitForURL(/#\/s\/.+/);
    const sid = openSessionId(page);
    const ref = reference(sid);
    await page.locator('[data-connection="live"]').waitFor();
    await typePrompt(page, '[scenario:slow_text] take your time');

    // Mid-stream: some words shown, not all.
    const text = page.locator('.message-assistant .markdown');
    await text.filter({ hasText: 'word3' }).waitFor();
    expect(await text.textContent()).not.toContain('word39');

    gateway.kill('SIGTERM');
    await gateway.exited;
    await page.locator('[data-connection="reconnecting"]').waitFor();
    await screenshot(page, '05-reconnecting');
    // The turn goes on without the gateway; it ends before the gateway is back.
    await waitUntil(() => ref.events.some((e) => e.type === 'turn_complete'), {
      timeoutMs: 20_000,
      what: 'the turn to end while the gateway is down',
    });
    expect(await page.locator('[data-connection="reconnecting"]').count()).toBe(1);
    gateway = await startGateway(env, port, webDir);

    await page.locator('[data-connection="live"]').waitFor({ timeout: 20_000 });
    const last = ref.events.at(-1)?.sequenceNumber ?? 0;
    await waitUntil(async () => (await sessionAttrs(page)).lastSeq >= last, {
      what: `the page to reach ${last}`,
    });
    const words = Array.from({ length: 40 }, (_, i) => `word${i}`).join(' ');
    expect((await text.textContent())?.trim()).toBe(words);
    expect(await text.count()).toBe(1);
    // Every event the bus holds for the session was applied once: none missing, none twice.
    expect(await sessionAttrs(page)).toEqual({ lastSeq: last, applied: ref.events.length });
    await screenshot(page, '06-reconnected');
    await ref.follower.stop();
    expect(errors).toEqual([]);
    await page.context().close();
  });

  it('keeps two tabs on one session identical, each operable by keyboard', async () => {
    const sid = String((await post('/sessions')).sessionId);
    const window = await browser.newContext({ viewport: { width: 1280, height: 860 } });
    const one = await openPage(`#/s/${sid}`, window);
    const two = await openPage(`#/s/${sid}`, window);
    for (const tab of [one, two]) await tab.page.locator('[data-connection="live"]').waitFor();

    // Tab one: Tab to the prompt box, type, Enter.
    await tabTo(one.page, '#prompt');
    await one.page.keyboard.type('[scenario:two_tools] tidy up');
    await one.page.keyboard.press('Enter');
    // Tab two answers the permission: Tab to Allow, Enter.
    await two.page.getByRole('button', { name: 'Allow' }).waitFor();
    await one.page.getByRole('button', { name: 'Allow' }).waitFor();
    await tabTo(two.page, '.permission button.primary');
    await two.page.keyboard.press('Enter');
    for (const tab of [one, two]) {
      await tab.page.locator('.markdown', { hasText: 'Done: read README.md' }).waitFor();
      await tab.page.locator('.permission').waitFor({ state: 'detached' });
    }
    await waitUntil(
      async () => {
        const [a, b] = await Promise.all([sessionAttrs(one.page), sessionAttrs(two.page)]);
        return a.lastSeq === b.lastSeq;
      },
      { timeoutMs: 10_000, what: 'both tabs at the same number' },
    );
    const transcript = (page: Page) => page.locator('.transcript').innerHTML();
    expect(await transcript(one.page)).toBe(await transcript(two.page));
    expect(await sessionAttrs(one.page)).toEqual(await sessionAttrs(two.page));
    await screenshot(one.page, '07-tab-one');
    await screenshot(two.page, '08-tab-two');
    expect([...one.errors, ...two.errors]).toEqual([]);
    await window.close();
  });
  it('steers and queues behind a running turn, moves and removes queued inputs, and interrupts', async () => {
    const { page, errors } = await openPage();
    await page.getByRole('button', { name: 'New session' }).click();
    await page.waitForURL(/#\/s\/.+/);
    await page.locator('[data-connection="live"]').waitFor();
    await typePrompt(page, '[scenario:held_stream] think it over');
    await page.locator('.markdown', { hasText: 'Thinking it over' }).waitFor();
    await page.getByRole('button', { name: 'Interrupt' }).and(page.locator(':enabled')).waitFor();

    await page.getByRole('radio', { name: 'Steer' }).check();
    await typePrompt(page, 'mind the tests');
    await page.getByRole('radio', { name: 'Queue' }).check();
    await typePrompt(page, 'first queued');
    await typePrompt(page, 'second queued');
    const queue = page.locator('.queue li');
    const rows = () => queue.evaluateAll((els) => els.map((el) => el.textContent ?? ''));
    await waitUntil(async () => (await queue.count()) === 3, { what: 'three waiting inputs' });
    expect(await rows()).toEqual([
      expect.stringMatching(/^Steering\s*mind the tests/),
      expect.stringMatching(/^Queued\s*first queued/),
      expect.stringMatching(/^Queued\s*second queued/),
    ]);
    expect(await seriousViolations(page)).toEqual([]);
    await screenshot(page, '09-queue');

    await page.getByRole('button', { name: 'Move “second queued” up' }).click();
    await waitUntil(async () => (await rows())[1]?.includes('second queued') === true, {
      what: 'second moved above first',
    });
    await page.getByRole('button', { name: 'Remove “first queued”' }).click();
    await waitUntil(async () => (await queue.count()) === 2, { what: 'first removed' });
    const texts = async () =>
      (await rows()).map((r) => r.replace(/^(Steering|Queued)\s*/, '').replace(/[✎↑↓✕]|Save/g, ''));
    expect(await texts()).toEqual(['mind the tests', 'second queued']);
    // Edit in place: the input keeps its place, with the new text.
    await page.getByRole('button', { name: 'Edit “second queued”' }).click();
    const edit = page.getByRole('textbox', { name: 'New text' });
    await edit.fill('second, edited');
    await edit.press('Enter');
    await waitUntil(async () => (await texts())[1] === 'second, edited', {
      what: 'the edited input',
    });
    expect(await texts()).toEqual(['mind the tests', 'second, edited']);

    await page.getByRole('button', { name: 'Interrupt' }).click();
    await page.getByText('Turn ended: cancelled').waitFor();
    // What still waits runs next (the scripted model's default answer), then the queue is empty.
    await page
      .locator('.markdown', { hasText: 'Hello from the scripted model.' })
      .first()
      .waitFor();
    await queue.first().waitFor({ state: 'detached', timeout: 20_000 });
    expect(errors).toEqual([]);
    await page.context().close();
  });
  it('after a gap resyncs once, and after a second gets a snapshot that replaces the view', async () => {
    const sid = String((await post('/sessions')).sessionId);
    await post(`/sessions/${sid}/prompt`, {
      text: '[scenario:reasoning] first question',
      wait: true,
    });
    const { page, errors } = await openPage();
    // The first two follows of the page get a frame that skips far ahead: a lost range.
    const asked: string[] = [];
    await page.route('**/sessions/*/events?*', async (route) => {
      const url = new URL(route.request().url());
      asked.push(url.search);
      if (asked.length > 2) return route.continue();
      if (asked.length === 2) {
        // While the page has no live feed, the session goes on: only the snapshot brings it.
        await post(`/sessions/${sid}/prompt`, { text: 'second question', wait: true });
      }
      const gap = 'id: 100000\ndata: {"fromSeq":99990,"toSeq":100000,"events":[]}\n\n';
      return route.fulfill({ status: 200, contentType: 'text/event-stream', body: gap });
    });
    await page.goto(`${base}/#/s/${sid}`);
    await page.locator('.markdown', { hasText: 'Hello from the scripted model.' }).waitFor();
    const base0 = Number(asked[0]?.replace('?after=', ''));
    expect(base0).toBeGreaterThan(0);
    expect(asked.slice(0, 3)).toEqual([`?after=${base0}`, `?after=${base0}`, '?snapshot=true']);
    const users = await page.locator('.message-user').allTextContents();
    expect(users.map((u) => u.replace(/^You/, ''))).toEqual([
      '[scenario:reasoning] first question',
      'second question',
    ]);
    expect(await page.locator('.markdown', { hasText: 'Here is a short answer.' }).count()).toBe(1);
    await page.locator('[data-connection="live"]').waitFor();
    expect(errors).toEqual([]);
    await page.context().close();
  });
});

/** Presses Tab until the focused element matches `selector` (at most 40 times), as a keyboard user. */
async function tabTo(page: Page, selector: string): Promise<void> {
  for (let i = 0; i < 40; i += 1) {
    await page.keyboard.press('Tab');
    if ((await page.locator(`${selector}:focus`).count()) === 1) return;
  }
  throw new Error(`Tab never reached ${selector}`);
}
