import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** The launcher of the end-to-end tests lives in `@agentwire/testing`. */
export {
  type ServiceProcess,
  startServiceProcess,
} from '@agentwire/testing';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../..');

/** Entry points of the service processes the end-to-end tests start. */
export const SERVICE_MAINS = {
  runtime: path.join(repoRoot, 'services/runtime/src/main.ts'),
  persistenceWorker: path.join(repoRoot, 'services/persistence-worker/src/main.ts'),
  titleSidecar: path.join(repoRoot, 'services/title-sidecar/src/main.ts'),
  projection: path.join(repoRoot, 'services/projection/src/main.ts'),
  gateway: path.join(repoRoot, 'services/gateway/src/main.ts'),
} as const;
