/**
 * Child-process entry: runs one group and writes its figures as JSON to stdout. The harness
 * (main.ts) starts it with the group's `nodeFlags`.
 */
import { groups } from './groups/index.ts';

const name = process.argv[2];
const group = groups.find((g) => g.name === name);
if (group === undefined) {
  console.error(`unknown group ${name}`);
  process.exit(2);
}
const figures = await group.run();
process.stdout.write(JSON.stringify(figures));
