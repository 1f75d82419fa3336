#!/bin/bash
# Entry point of localhost/agentwire-postgres:15, modelled on the official image's:
# on first start it initialises $PGDATA (as the postgres user), creates POSTGRES_USER /
# POSTGRES_DB, then runs the server in the foreground. With POSTGRES_PASSWORD set, remote
# logins need it (scram-sha-256); without it they are trusted.
set -euo pipefail

if [ "$(id -u)" = 0 ]; then
  mkdir -p "$PGDATA" /var/run/postgresql
  chown -R postgres:postgres "$PGDATA" /var/run/postgresql
  chmod 0700 "$PGDATA"
  exec setpriv --reuid=postgres --regid=postgres --init-groups "$0" "$@"
fi

if [ "${1:-postgres}" != postgres ]; then exec "$@"; fi
shift || true

user="${POSTGRES_USER:-postgres}"
db="${POSTGRES_DB:-$user}"

if [ ! -s "$PGDATA/PG_VERSION" ]; then
  pwfile="$(mktemp)"
  printf '%s\n' "${POSTGRES_PASSWORD:-}" >"$pwfile"
  auth=trust
  initargs=(--username="$user" --encoding=UTF8 --locale=C.UTF-8 -D "$PGDATA")
  if [ -n "${POSTGRES_PASSWORD:-}" ]; then
    auth=scram-sha-256
    initargs+=(--pwfile="$pwfile" --auth-host=scram-sha-256)
  fi
  initdb "${initargs[@]}" >/dev/null
  rm -f "$pwfile"
  {
    echo "listen_addresses = '*'"
    echo "unix_socket_directories = '/var/run/postgresql'"
  } >>"$PGDATA/postgresql.conf"
  echo "host all all all $auth" >>"$PGDATA/pg_hba.conf"

  # A temporary socket-only server for set-up; it logs the first "ready" line.
  pg_ctl -D "$PGDATA" -o "-c listen_addresses=''" -w start
  if [ "$db" != postgres ]; then
    psql -v ON_ERROR_STOP=1 -h /var/run/postgresql -U "$user" -d postgres \
      -c "CREATE DATABASE \"$db\""
  fi
  pg_ctl -D "$PGDATA" -m fast -w stop
fi

exec postgres -D "$PGDATA" "$@"
