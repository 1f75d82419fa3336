import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { type Figure, type StoredFigure, storedFigure } from './figure.ts';

/** Where the latest figures are kept (git-ignored). */
const RESULTS_PATH = new URL('../results/latest.json', import.meta.url);

async function readExisting(): Promise<Record<string, StoredFigure>> {
  try {
    return JSON.parse(await readFile(RESULTS_PATH, 'utf8')) as Record<string, StoredFigure>;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return {};
    throw error;
  }
}

/**
 * Merges `figures` into `latest.json`: figures of groups not run this time are kept, so
 * running one group never loses the others' numbers.
 */
export async function mergeResults(figures: readonly Figure[]): Promise<string> {
  const merged = await readExisting();
  for (const f of figures) merged[f.name] = storedFigure(f);
  const sorted = Object.fromEntries(Object.entries(merged).sort(([a], [b]) => a.localeCompare(b)));
  await mkdir(dirname(RESULTS_PATH.pathname), { recursive: true });
  await writeFile(RESULTS_PATH, `${JSON.stringify(sorted, null, 2)}\n`);
  return RESULTS_PATH.pathname;
}
