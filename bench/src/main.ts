/**
 * `pnpm bench [group ...]`: runs every benchmark group, or only those named, prints a table
 * and merges the figures into bench/results/latest.json. See bench/README.md.
 */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { Figure } from './figure.ts';
import type { BenchGroup } from './group.ts';
import { groups } from './groups/index.ts';
import { mergeResults } from './results.ts';
import { renderTable } from './table.ts';

function select(names: readonly string[]): readonly BenchGroup[] {
  if (names.length === 0) return groups;
  const known = groups.map((g) => g.name);
  const unknown = names.filter((n) => !known.includes(n));
  if (unknown.length > 0) {
    console.error(`unknown bench group(s): ${unknown.join(', ')}; known: ${known.join(', ')}`);
    process.exit(2);
  }
  return groups.filter((g) => names.includes(g.name));
}

async function runGroup(group: BenchGroup): Promise<readonly Figure[]> {
  const missing = (group.nodeFlags ?? []).filter((f) => !process.execArgv.includes(f));
  if (missing.length === 0) return group.run();
  const script = fileURLToPath(new URL('./run-group.ts', import.meta.url));
  const child = spawn(process.execPath, [...process.execArgv, ...missing, script, group.name], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let stdout = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    stdout += chunk;
  });
  const code = await new Promise<number | null>((resolve, reject) => {
    child.on('error', reject).on('close', resolve);
  });
  if (code !== 0) throw new Error(`group ${group.name} exited with code ${code}`);
  return JSON.parse(stdout) as Figure[];
}

const selected = select(process.argv.slice(2));
const figures: Figure[] = [];
let failed = false;
for (const group of selected) {
  console.error(`bench: ${group.name} (${group.description})`);
  const started = performance.now();
  try {
    figures.push(...(await runGroup(group)));
    console.error(
      `bench: ${group.name} done in ${((performance.now() - started) / 1000).toFixed(1)} s`,
    );
  } catch (error) {
    failed = true;
    console.error(`bench: ${group.name} failed`, error);
  }
}
console.log(renderTable(figures));
const path = await mergeResults(figures);
console.log(`\nwritten to ${path}`);
if (failed) process.exit(1);
