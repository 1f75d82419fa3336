import { defineConfig } from 'vite';

/** The gateway the development server sends API requests to. */
const gateway = process.env.AW_GATEWAY_URL ?? 'http://127.0.0.1:8080';

/**
 * Vite for the web client: `pnpm --filter @agentwire/web dev` serves it with hot reload and
 * proxies the gateway's routes (SSE included); `vite build` writes `dist/`, which the
 * gateway serves in production (docs/decisions/0210).
 */
export default defineConfig({
  oxc: { jsx: { runtime: 'automatic', importSource: 'preact' } },
  build: { outDir: 'dist', emptyOutDir: true, sourcemap: true },
  server: {
    proxy: {
      '/sessions': { target: gateway, changeOrigin: false },
      '/openapi.json': { target: gateway },
    },
  },
});
