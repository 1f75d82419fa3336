#!/usr/bin/env bash
# The project's task runner: bootstraps the toolchain (scripts/bootstrap.sh), then runs a task.
# Both `npm <task>` with any Node and `pnpm <task>` land here, so the Quick start works on a
# machine that has only an old Node and npm.
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/bootstrap.sh"
cd "$AW_ROOT"
export PATH="$AW_ROOT/node_modules/.bin:$PATH"

task="${1:-}"; shift || true
case "$task" in
  # The frontend end-to-end files need tmux and Chromium (scripts/frontend-tools.sh).
  test)      . scripts/frontend-tools.sh; ensure_frontend_tools || true; exec vitest run "$@" ;;
  test:unit) exec vitest run --project unit "$@" ;;
  test:int)  . scripts/frontend-tools.sh; ensure_frontend_tools || true; exec vitest run --project int "$@" ;;
  # Style (biome), then knip (knip.json, docs/decisions/0152): no unused file, dependency or
  # export, no undeclared dependency; then, production code only, no export that only tests
  # import (an export kept for its tests says so with `@internal`).
  lint)      node scripts/asyncapi.ts --check && biome check "$@" . && knip --no-progress --no-config-hints \
               && exec knip --no-progress --no-config-hints --production --include exports,types ;;
  format)    exec biome format --write "$@" . ;;
  typecheck) tsc -p tsconfig.json --noEmit "$@" && exec tsc -p apps/web/tsconfig.json --noEmit "$@" ;;
  bench)     exec node bench/src/main.ts "$@" ;;
  soak)      exec vitest run --config vitest.soak.config.ts "$@" ;;
  start)     exec node scripts/start.ts "$@" ;;
  migrate)   exec node libs/store/src/cli.ts "$@" ;;
  nats-config) exec node scripts/nats-config.ts "$@" ;;
  asyncapi)  exec node scripts/asyncapi.ts "$@" ;;
  node)      exec node "$@" ;;
  *) echo "usage: scripts/aw.sh test|test:unit|test:int|lint|format|typecheck|bench|soak|start|migrate|nats-config|asyncapi|node [args]" >&2; exit 2 ;;
esac
