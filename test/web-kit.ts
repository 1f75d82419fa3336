import { mkdirSync } from 'node:fs';
import { createServer } from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { SERVICE_MAINS } from '@agentwire/runtime/testing';
import { type ServiceProcess, startServiceProcess } from '@agentwire/testing';
import { AxeBuilder } from '@axe-core/playwright';
import { type Browser, chromium, type Page } from 'playwright-core';

/** Debian's Chromium (`apt-get install chromium`, .ci/run): a tool's own download fails here. */
const CHROMIUM = '/usr/bin/chromium';

/** Where the browser tests leave their screenshots (git-ignored). */
const ARTIFACTS = path.resolve(path.dirname(fileURLToPath(import.meta.url)), 'artifacts');

/** Headless Chromium, as quiet as it goes: no update, sync or background traffic. */
export function launchBrowser(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--no-first-run',
    ],
  });
}

/** A port nobody listens on now: the gateway restarts on it, so the page's URL stays. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
    });
  });
}

/** A gateway process on `port` that serves the built web client from `webDir`. */
export function startGateway(
  env: { readonly natsUrl: string; readonly prefix: string },
  port: number,
  webDir: string,
): Promise<ServiceProcess> {
  return startServiceProcess(
    SERVICE_MAINS.gateway,
    {
      NATS_URL: env.natsUrl,
      AW_PREFIX: env.prefix,
      HTTP_PORT: String(port),
      HTTP_HOST: '127.0.0.1',
      AW_WEB_DIR: webDir,
      AW_GATEWAY_HEARTBEAT_MS: '1000',
    },
    { readyWhen: 'gateway http listening' },
  );
}

/** Saves a full-page screenshot as `test/artifacts/<name>.png`. */
export async function screenshot(page: Page, name: string): Promise<void> {
  mkdirSync(ARTIFACTS, { recursive: true });
  await page.screenshot({ path: path.join(ARTIFACTS, `${name}.png`), fullPage: true });
}

/** The axe violations of impact serious or critical, as `rule: target` lines. */
export async function seriousViolations(page: Page): Promise<string[]> {
  const results = await new AxeBuilder({ page }).analyze();
  return results.violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .flatMap((v) => v.nodes.map((n) => `${v.id} (${v.impact}): ${n.target.join(' ')}`));
}
