# shellcheck shell=bash
# The two tools the frontend end-to-end tests drive: tmux (test/cli-chat.e2e.test.ts) and
# Debian's Chromium at /usr/bin/chromium (test/web.e2e.test.ts, through playwright-core,
# which cannot download a browser of its own here). Sourced by scripts/aw.sh (`test`,
# `test:int`) and .ci/run, so that `npm test` works on a fresh machine too.

# Installs the missing ones with apt-get when running as root; names each one still
# missing and the test that will fail without it. Returns 1 when one is still missing.
ensure_frontend_tools() {
  local want=()
  command -v tmux >/dev/null 2>&1 || want+=(tmux)
  [ -x /usr/bin/chromium ] || want+=(chromium)
  [ ${#want[@]} -eq 0 ] && return 0
  if [ "$(id -u)" -eq 0 ] && command -v apt-get >/dev/null 2>&1; then
    local aptlog=/var/log/agentwire-apt.log
    echo "installing ${want[*]} for the frontend tests (apt-get, log in $aptlog)" >&2
    { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${want[@]}"; } \
      >>"$aptlog" 2>&1 || echo "apt-get failed: $(tail -n 1 "$aptlog")" >&2
  fi
  local missing=0
  if ! command -v tmux >/dev/null 2>&1; then
    echo "tmux is missing: test/cli-chat.e2e.test.ts will fail (apt-get install tmux)" >&2
    missing=1
  fi
  if [ ! -x /usr/bin/chromium ]; then
    echo "/usr/bin/chromium is missing: test/web.e2e.test.ts will fail (apt-get install chromium)" >&2
    missing=1
  fi
  return $missing
}
