/**
 * `pnpm asyncapi`: writes docs/asyncapi.json, the AsyncAPI 3 document of the wire, from
 * the zod schemas of libs/contracts (scripts/asyncapi-document.ts). `--check` exits 1 when
 * the checked-in file differs (it is stale); `pnpm lint` runs it.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { asyncApiDocument } from './asyncapi-document.ts';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const file = path.join(root, 'docs/asyncapi.json');
const text = `${JSON.stringify(asyncApiDocument(), null, 2)}\n`;
if (process.argv.includes('--check')) {
  let current = '';
  try {
    current = readFileSync(file, 'utf8');
  } catch {
    // missing: stale
  }
  if (current !== text) {
    process.stderr.write(`${path.relative(root, file)} is stale: run pnpm asyncapi\n`);
    process.exit(1);
  }
} else {
  writeFileSync(file, text);
  process.stdout.write(`wrote ${path.relative(root, file)}\n`);
}
