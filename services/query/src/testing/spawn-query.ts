import { fileURLToPath } from 'node:url';

/** Entry point of the query service process. */
export const QUERY_MAIN = fileURLToPath(new URL('../main.ts', import.meta.url));
