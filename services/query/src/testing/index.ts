/** Test and bench kit of the query service: its process, and long sessions seeded fast. */
export { type SeedOptions, seededMessageId, seedLongSession } from './seed-history.ts';
export { QUERY_MAIN, spawnQuery } from './spawn-query.ts';
