/**
 * Entry point of the title sidecar process: `node services/title-sidecar/src/main.ts`.
 * Reads its environment (config.ts), serves /healthz, /readyz and /metrics, connects to
 * NATS and Postgres and answers `<prefix>.titles.generate` in its queue group until
 * SIGTERM drains it (stop taking requests, finish those in flight, exit 0).
 */
import { runServiceMain } from '@agentwire/service';
import { TitleSidecarConfig } from './config.ts';
import { startTitleSidecar, TITLE_SIDECAR, type TitleSidecar } from './title-sidecar.ts';

await runServiceMain({
  name: TITLE_SIDECAR,
  config: TitleSidecarConfig,
  setup: ({ config, logger }) => {
    let sidecar: TitleSidecar | undefined;
    return {
      start: async () => {
        sidecar = await startTitleSidecar(config, { logger });
      },
      stop: async () => {
        await sidecar?.stop();
      },
    };
  },
});
