/** Test and bench kit of the query service: its process, and long sessions seeded fast. */
export { seedLongSession } from './seed-history.ts';
export { QUERY_MAIN } from './spawn-query.ts';
