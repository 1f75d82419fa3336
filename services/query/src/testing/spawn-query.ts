import { fileURLToPath } from 'node:url';
import { type ServiceProcess, startServiceProcess } from '@agentwire/testing';

/** Entry point of the query service process. */
export const QUERY_MAIN = fileURLToPath(new URL('../main.ts', import.meta.url));

/**
 * Starts `services/query/src/main.ts` with `env` over the current environment and resolves
 * once it answers queries (`query serving`); rejects when it exits first.
 */
export function spawnQuery(env: Readonly<Record<string, string>>): Promise<ServiceProcess> {
  return startServiceProcess(
    QUERY_MAIN,
    { HTTP_PORT: '0', HTTP_HOST: '127.0.0.1', ...env },
    { readyWhen: 'query serving' },
  );
}
