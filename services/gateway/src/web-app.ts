import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance } from 'fastify';

/** The web client's build in this repository (`apps/web`, `vite build`). */
const BUILT_WEB_APP = fileURLToPath(new URL('../../../apps/web/dist', import.meta.url));

/**
 * Where the web client's files are: `AW_WEB_DIR` when set (`off` serves none), else the
 * repository's build when it exists, else none (docs/decisions/0210).
 */
export function webAppDir(setting: string | undefined): string | undefined {
  if (setting === 'off') return undefined;
  if (setting !== undefined) return setting;
  return existsSync(`${BUILT_WEB_APP}/index.html`) ? BUILT_WEB_APP : undefined;
}

/**
 * Serves the web client (`apps/web`) at `/`: one route per file found at start, so every
 * other path still gets the gateway's own 404 and no API route is shadowed. Hashed assets
 * are cached for a year, `index.html` never. Hidden from `/openapi.json`.
 */
export function registerWebApp(app: FastifyInstance, dir: string): void {
  void app.register(fastifyStatic, {
    root: dir,
    wildcard: false,
    index: 'index.html',
    cacheControl: false,
    setHeaders: (res, file) => {
      const immutable = file.includes('/assets/');
      res.header('cache-control', immutable ? 'public, max-age=31536000, immutable' : 'no-cache');
    },
  });
}
