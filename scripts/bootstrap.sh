#!/usr/bin/env bash
# Makes the project's toolchain available and installs dependencies from the lockfile.
#
# Source it (`. scripts/bootstrap.sh`) to get Node >= 22.22 and pnpm 12.4.2 on PATH.
# The system Node is used when it is new enough; otherwise a pinned Node 24 is installed
# from the npm registry into the git-ignored .tools/ folder. Idempotent and quiet when
# everything is already in place.
set -euo pipefail

AW_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
AW_NODE_VERSION="24.21.0"
AW_PNPM_VERSION="12.4.2"
AW_TOOLS="$AW_ROOT/.tools"

aw_log() { printf '[bootstrap] %s\n' "$*" >&2; }

aw_node_ok() {
  # true when the `node` on PATH is >= 22.22
  command -v node >/dev/null 2>&1 || return 1
  node -e 'const [a,b]=process.versions.node.split(".").map(Number); process.exit(a>22||(a===22&&b>=22)?0:1)'
}

if [ -x "$AW_TOOLS/node/node_modules/.bin/node" ]; then
  export PATH="$AW_TOOLS/node/node_modules/.bin:$PATH"
fi
if ! aw_node_ok; then
  command -v npm >/dev/null 2>&1 || { aw_log "npm is required to install Node $AW_NODE_VERSION"; exit 1; }
  aw_log "system Node $(node --version 2>/dev/null || echo none) is older than 22.22; installing Node $AW_NODE_VERSION into .tools/node"
  mkdir -p "$AW_TOOLS"
  npm install --prefix "$AW_TOOLS/node" --no-save --no-audit --no-fund --loglevel=error "node@$AW_NODE_VERSION" >&2
  export PATH="$AW_TOOLS/node/node_modules/.bin:$PATH"
  aw_node_ok || { aw_log "Node $AW_NODE_VERSION did not install correctly"; exit 1; }
fi

if [ -x "$AW_TOOLS/pnpm/node_modules/.bin/pnpm" ]; then
  export PATH="$AW_TOOLS/pnpm/node_modules/.bin:$PATH"
fi
if [ "$(pnpm --version 2>/dev/null || true)" != "$AW_PNPM_VERSION" ]; then
  aw_log "installing pnpm $AW_PNPM_VERSION into .tools/pnpm"
  npm install --prefix "$AW_TOOLS/pnpm" --no-save --no-audit --no-fund --loglevel=error "pnpm@$AW_PNPM_VERSION" >&2
  export PATH="$AW_TOOLS/pnpm/node_modules/.bin:$PATH"
fi

# Install dependencies only when the lockfile changed since the last install.
stamp="$AW_ROOT/node_modules/.aw-lock-stamp"
lock_sum="$(cat "$AW_ROOT/pnpm-lock.yaml" "$AW_ROOT/package.json" 2>/dev/null | cksum)"
if [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$lock_sum" ]; then
  aw_log "installing dependencies (pnpm install --frozen-lockfile)"
  (cd "$AW_ROOT" && pnpm install --frozen-lockfile --reporter=append-only >&2)
  printf '%s' "$lock_sum" >"$stamp"
fi
