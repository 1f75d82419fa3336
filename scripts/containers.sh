#!/usr/bin/env bash
# Sets up a container engine for the integration tests, as ../../shared/CONTAINERS.md
# describes: rootful Podman from Debian's packages serving the Docker-compatible API on a
# unix socket, and the test images built locally from Debian packages (no registry).
#
# Usage:
#   bash scripts/containers.sh          # set up (idempotent), then print the test env
#   eval "$(bash scripts/containers.sh)"  # ...and export it into the current shell
#   bash scripts/containers.sh env      # only print the env lines
#   bash scripts/containers.sh cleanup  # remove containers left by Testcontainers
#
# stdout carries only `export NAME=value` lines; progress goes to stderr. On any failure it
# prints "containers: FAILED: <reason>" as its last stderr line and exits non-zero, so that
# the caller can fall back to the machine's own servers. Steps already done are skipped:
# installed packages, the config, a running API service, images that already exist.
set -Eeuo pipefail
# Any unexpected failure still ends with the one "FAILED: <reason>" line callers look for.
trap 'fail "\`$BASH_COMMAND\` failed (exit $?, line $LINENO)"' ERR

AW_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
AW_SOCKET_DIR="${AGENTWIRE_PODMAN_SOCKET_DIR:-/run/agentwire}"
AW_SOCKET="$AW_SOCKET_DIR/podman.sock"
AW_BASE_IMAGE="localhost/debian:bookworm"
AW_PG_IMAGE="localhost/agentwire-postgres:15"
AW_NATS_IMAGE="localhost/agentwire-nats:2.9"
AW_PACKAGES=(podman debootstrap runc netavark aardvark-dns fuse-overlayfs slirp4netns uidmap
  iptables catatonit)
AW_CONF="/etc/containers/containers.conf"
AW_CONF_MARK="# managed by agentwire scripts/containers.sh"

log() { printf '[containers] %s\n' "$*" >&2; }
fail() {
  printf 'containers: FAILED: %s\n' "$*" >&2
  exit 1
}
now() { date +%s; }

print_env() {
  cat <<EOF
export DOCKER_HOST=unix://$AW_SOCKET
export TESTCONTAINERS_RYUK_DISABLED=true
export TESTCONTAINERS_HOST_OVERRIDE=127.0.0.1
export AGENTWIRE_TEST_PG_IMAGE=$AW_PG_IMAGE
export AGENTWIRE_TEST_NATS_IMAGE=$AW_NATS_IMAGE
EOF
}

# Removes Testcontainers containers whose run is over: those labelled by the harness with an
# owner process that no longer exists, and unlabelled ones that have stopped. Containers of
# a test run still going on this machine are left alone.
cleanup() {
  command -v podman >/dev/null 2>&1 || return 0
  local id pid state stale=()
  while IFS='|' read -r id pid state; do
    [ -n "$id" ] || continue
    if [[ "$pid" =~ ^[0-9]+$ ]]; then
      kill -0 "$pid" 2>/dev/null || stale+=("$id")
    elif [[ "$state" != Up* && "$state" != running ]]; then
      stale+=("$id")
    fi
  done < <(podman ps -a --filter label=org.testcontainers=true \
    --format '{{.ID}}|{{index .Labels "org.agentwire.test-owner-pid"}}|{{.State}}' 2>/dev/null)
  if [ ${#stale[@]} -gt 0 ]; then
    log "removing ${#stale[@]} leftover Testcontainers container(s)"
    podman rm -f -t 0 "${stale[@]}" >/dev/null 2>&1 || log "could not remove some leftover containers"
  fi
}

install_packages() {
  local missing=() p
  for p in "${AW_PACKAGES[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  log "installing ${missing[*]} (apt-get)"
  local t0; t0=$(now)
  local aptlog=/var/log/agentwire-apt.log
  DEBIAN_FRONTEND=noninteractive apt-get update >"$aptlog" 2>&1 ||
    fail "apt-get update failed: $(tail -n 1 "$aptlog")"
  DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "${missing[@]}" \
    >>"$aptlog" 2>&1 || fail "apt-get install ${missing[*]} failed: $(tail -n 1 "$aptlog")"
  log "packages installed in $(($(now) - t0)) s"
}

write_config() {
  if [ -f "$AW_CONF" ] && grep -qF "$AW_CONF_MARK" "$AW_CONF"; then return 0; fi
  if [ -f "$AW_CONF" ]; then
    cp "$AW_CONF" "$AW_CONF.agentwire-backup"
    log "saved the previous $AW_CONF as $AW_CONF.agentwire-backup"
  fi
  mkdir -p "$(dirname "$AW_CONF")"
  cat >"$AW_CONF" <<EOF
$AW_CONF_MARK
# Settings this sandbox needs (see CONTAINERS.md): limits the sandbox can grant, runc
# (crun refuses the hybrid cgroup layout), cgroupfs and file events (no systemd).
[containers]
default_ulimits = ["nofile=20000:20000", "nproc=32768:32768"]

[engine]
runtime = "runc"
cgroup_manager = "cgroupfs"
events_logger = "file"

[network]
network_backend = "netavark"
EOF
  log "wrote $AW_CONF"
}

api_answers() {
  [ -S "$AW_SOCKET" ] && curl -fsS --max-time 3 --unix-socket "$AW_SOCKET" http://d/_ping \
    >/dev/null 2>&1
}

start_service() {
  if api_answers; then return 0; fi
  mkdir -p "$AW_SOCKET_DIR"
  rm -f "$AW_SOCKET"
  log "starting podman system service on unix://$AW_SOCKET"
  # setsid + nohup: the service outlives this script and the caller's process group.
  setsid nohup podman system service --time=0 "unix://$AW_SOCKET" \
    >>/var/log/agentwire-podman.log 2>&1 </dev/null &
  local i
  for i in $(seq 1 50); do
    api_answers && return 0
    sleep 0.2
  done
  fail "podman API did not answer on $AW_SOCKET within 10 s (see /var/log/agentwire-podman.log)"
}

# The first bookworm mirror of the machine's apt sources (deb822 or one-line format).
apt_mirror() {
  local m=""
  if [ -f /etc/apt/sources.list.d/debian.sources ]; then
    m="$(awk '/^URIs:/ {print $2; exit}' /etc/apt/sources.list.d/debian.sources)"
  fi
  if [ -z "$m" ] && [ -f /etc/apt/sources.list ]; then
    m="$(awk '$1 == "deb" && $3 ~ /^bookworm$/ {print $2; exit}' /etc/apt/sources.list)"
  fi
  printf '%s' "${m:-http://deb.debian.org/debian}"
}

build_base() {
  if podman image exists "$AW_BASE_IMAGE"; then return 0; fi
  local t0 rootfs mirror f
  t0=$(now)
  mirror="$(apt_mirror)"
  rootfs="$(mktemp -d /var/tmp/agentwire-rootfs.XXXXXX)"
  log "building $AW_BASE_IMAGE with debootstrap from $mirror"
  debootstrap --variant=minbase bookworm "$rootfs" "$mirror" >/var/log/agentwire-debootstrap.log \
    2>&1 || {
    rm -rf "$rootfs"
    fail "debootstrap from $mirror failed (see /var/log/agentwire-debootstrap.log)"
  }
  rm -rf "$rootfs"/var/cache/apt/archives/*.deb "$rootfs"/var/lib/apt/lists/*
  # The machine's Debian apt sources, so builds on top of the image use the same mirror.
  rm -f "$rootfs/etc/apt/sources.list"
  [ -f /etc/apt/sources.list ] && cp /etc/apt/sources.list "$rootfs/etc/apt/sources.list"
  for f in /etc/apt/sources.list.d/*.sources /etc/apt/sources.list.d/*.list; do
    [ -f "$f" ] && grep -qi debian "$f" && ! grep -qiE 'nodesource|google|docker' "$f" &&
      cp "$f" "$rootfs/etc/apt/sources.list.d/"
  done
  tar -C "$rootfs" -c . | podman import --change 'CMD ["/bin/bash"]' - "$AW_BASE_IMAGE" >/dev/null ||
    {
      rm -rf "$rootfs"
      fail "podman import of the base image failed"
    }
  rm -rf "$rootfs"
  log "$AW_BASE_IMAGE built in $(($(now) - t0)) s"
}

check_runtime() {
  podman run --rm --pull=never "$AW_BASE_IMAGE" true >/dev/null 2>/tmp/agentwire-podman-run.err ||
    fail "podman cannot run a container: $(tail -n 1 /tmp/agentwire-podman-run.err)"
}

build_image() {
  local image="$1" dir="$2" t0
  if podman image exists "$image"; then return 0; fi
  t0=$(now)
  log "building $image from ${dir#"$AW_ROOT"/}"
  podman build --pull=never --network=host -t "$image" -f "$dir/Containerfile" "$dir" \
    >/var/log/agentwire-build.log 2>&1 ||
    fail "building $image failed (see /var/log/agentwire-build.log)"
  log "$image built in $(($(now) - t0)) s"
}

main() {
  case "${1:-setup}" in
  env)
    print_env
    return 0
    ;;
  cleanup)
    cleanup
    return 0
    ;;
  setup) ;;
  *)
    echo "usage: scripts/containers.sh [setup|env|cleanup]" >&2
    return 2
    ;;
  esac
  local t0; t0=$(now)
  [ "$(id -u)" = 0 ] || fail "needs root (rootful Podman); run it as root or with sudo"
  command -v apt-get >/dev/null 2>&1 || fail "no apt-get: this script supports Debian-based machines"
  install_packages
  write_config
  start_service
  build_base
  check_runtime
  cleanup
  build_image "$AW_PG_IMAGE" "$AW_ROOT/deploy/images/postgres"
  build_image "$AW_NATS_IMAGE" "$AW_ROOT/deploy/images/nats"
  log "ready in $(($(now) - t0)) s: DOCKER_HOST=unix://$AW_SOCKET, images $AW_PG_IMAGE $AW_NATS_IMAGE"
  print_env
}

main "$@"
