/**
 * Builds the web client when its build is missing or older than its sources, for
 * `npm start` and the browser tests. The build is keyed by a hash of everything it is made
 * of (its sources, the contracts and domain sources it bundles, the lockfile), kept in
 * `node_modules/.build-hash`; an unchanged hash skips the build, so a second run costs one directory walk.
 */
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const webRoot = path.dirname(fileURLToPath(import.meta.url));
const repoRoot = path.resolve(webRoot, '../..');
/** Beside the build, not in it: the gateway serves every file of `dist/`. */
const STAMP = path.join(webRoot, 'node_modules', '.build-hash');

/** The files and folders the bundle is made of. */
const INPUTS = [
  'apps/web/src',
  'apps/web/index.html',
  'apps/web/vite.config.ts',
  'apps/web/package.json',
  'libs/contracts/src',
  'libs/domain/src',
  'pnpm-lock.yaml',
];

function files(entry: string): string[] {
  if (!statSync(entry).isDirectory()) return [entry];
  return readdirSync(entry)
    .filter((name) => !name.includes('.test.'))
    .sort()
    .flatMap((name) => files(path.join(entry, name)));
}

function sourceHash(): string {
  const hash = createHash('sha256');
  for (const input of INPUTS) {
    for (const file of files(path.join(repoRoot, input))) {
      hash.update(path.relative(repoRoot, file)).update('\0').update(readFileSync(file));
    }
  }
  return hash.digest('hex');
}

/** Where the built client is (`apps/web/dist`), built first when stale; `built` says so. */
export async function ensureWebBuilt(): Promise<{ dir: string; built: boolean }> {
  const dir = path.join(webRoot, 'dist');
  const hash = sourceHash();
  const fresh = existsSync(path.join(dir, 'index.html')) && existsSync(STAMP);
  if (fresh && readFileSync(STAMP, 'utf8') === hash) return { dir, built: false };
  const { build } = await import('vite');
  await build({
    root: webRoot,
    configFile: path.join(webRoot, 'vite.config.ts'),
    logLevel: 'warn',
  });
  writeFileSync(STAMP, hash);
  return { dir, built: true };
}
