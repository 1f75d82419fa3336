/**
 * Builds the web client when its build is missing or older than its sources, for
 * `npm start` and the browser tests. The build is keyed by a hash of everything it is made
 * of (its sources, the contracts and domain sources it bundles, the lockfile), kept in
 * `node_modules/.build-hash`; an unchanged hash skips the build, so a second run costs one directory walk.
 */
import { createHash } from 'node:crypto';
import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
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

/** Held while one process builds: `mkdir` either creates it or fails, never both. */
const LOCK = path.join(webRoot, 'node_modules', '.build-lock');
/** A lock older than this was left by a process that died while building. */
const STALE_LOCK_MS = 120_000;

async function withBuildLock<T>(work: () => Promise<T>): Promise<T> {
  for (;;) {
    try {
      mkdirSync(LOCK);
      break;
    } catch {
      const age = Date.now() - (statSync(LOCK, { throwIfNoEntry: false })?.mtimeMs ?? Date.now());
      if (age > STALE_LOCK_MS) rmSync(LOCK, { recursive: true, force: true });
      else await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
  try {
    return await work();
  } finally {
    rmSync(LOCK, { recursive: true, force: true });
  }
}

function isFresh(dir: string, hash: string): boolean {
  if (!existsSync(path.join(dir, 'index.html')) || !existsSync(STAMP)) return false;
  return readFileSync(STAMP, 'utf8') === hash;
}

/**
 * Where the built client is (`apps/web/dist`), built first when stale; `built` says so.
 * Processes that call it at once (the test files of one run, `npm start`) build one at a
 * time, and the later ones find the first one's build fresh: nobody empties `dist/` under
 * a gateway that serves it.
 */
export async function ensureWebBuilt(): Promise<{ dir: string; built: boolean }> {
  const dir = path.join(webRoot, 'dist');
  const hash = sourceHash();
  if (isFresh(dir, hash)) return { dir, built: false };
  return withBuildLock(async () => {
    if (isFresh(dir, hash)) return { dir, built: false };
    const { build } = await import('vite');
    await build({
      root: webRoot,
      configFile: path.join(webRoot, 'vite.config.ts'),
      logLevel: 'warn',
    });
    writeFileSync(STAMP, hash);
    return { dir, built: true };
  });
}
