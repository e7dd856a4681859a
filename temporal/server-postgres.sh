#!/usr/bin/env bash
# A real Temporal server (v1.29.1, the one the dev server embeds) persisting to PostgreSQL, with
# SQL visibility, in the foreground. What docker-compose.yml runs for Docker users, without Docker.
#
# Usage: temporal/server-postgres.sh PORT [DB_PREFIX]
#   PORT       frontend gRPC port on 127.0.0.1; the server also uses PORT+1..PORT+8 (frontend HTTP
#              and membership, history, matching and worker gRPC and membership), all on loopback.
#   DB_PREFIX  databases DB_PREFIX and DB_PREFIX_visibility (default: temporal), created and
#              migrated when missing or behind (idempotent: a second start keeps the state).
# Environment: TEMPORAL_PG_HOST (127.0.0.1), TEMPORAL_PG_PORT (5432), TEMPORAL_PG_USER (postgres),
#   TEMPORAL_PG_PASSWORD (empty), TEMPORAL_PG_MAX_CONNS (6) and TEMPORAL_PG_VISIBILITY_MAX_CONNS (2)
#   per service and store, TEMPORAL_NAMESPACE (default), TEMPORAL_SERVER_RUN_DIR (config and log).
#
# Steps: build once (ensure-server.sh), create + migrate both databases, write the config and the
# dynamic config, start the server, create the namespace and the three search attributes with
# retries (a fresh server's namespace cache lags), wait until a visibility query on all three
# attributes answers, print "TEMPORAL_POSTGRES_READY 127.0.0.1:PORT", then wait. SIGTERM/SIGINT
# stop the server cleanly (it gets SIGTERM, then SIGKILL after 20 s).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
port="${1:?usage: temporal/server-postgres.sh PORT [DB_PREFIX]}"
prefix="${2:-temporal}"
[[ "$port" =~ ^[0-9]+$ ]] || { echo "PORT must be a number" >&2; exit 2; }
[[ "$prefix" =~ ^[a-z_][a-z0-9_]*$ ]] || { echo "DB_PREFIX must be a lower-case SQL identifier" >&2; exit 2; }

pg_host="${TEMPORAL_PG_HOST:-127.0.0.1}"
pg_port="${TEMPORAL_PG_PORT:-5432}"
pg_user="${TEMPORAL_PG_USER:-postgres}"
pg_password="${TEMPORAL_PG_PASSWORD:-}"
namespace="${TEMPORAL_NAMESPACE:-default}"
# One process runs four services; each opens its own pools. Worst case against PostgreSQL:
# 4 x (MAX_CONNS + VISIBILITY_MAX_CONNS) = 32 connections with the defaults, a third of a
# 100-connection server (docs/scaling.md, connection budget).
max_conns="${TEMPORAL_PG_MAX_CONNS:-6}"
vis_max_conns="${TEMPORAL_PG_VISIBILITY_MAX_CONNS:-2}"
run_dir="${TEMPORAL_SERVER_RUN_DIR:-${TMPDIR:-/tmp}/temporal-postgres-$(id -u)-$port}"
address="127.0.0.1:$port"

bin_dir="$("$here/ensure-server.sh")"
cli="$("$here/ensure-cli.sh")"
log() { echo "[temporal-postgres :$port] $*" >&2; }

mkdir -p "$run_dir/config/dynamicconfig"
: > "$run_dir/sql-tool.log"

# ---- databases: created when missing, migrated to the latest schema (idempotent)
log "migrating databases $prefix and ${prefix}_visibility on $pg_host:$pg_port"
SQL_PLUGIN=postgres12 SQL_HOST="$pg_host" SQL_PORT="$pg_port" SQL_USER="$pg_user" SQL_PASSWORD="$pg_password" \
  "$here/setup-schema.sh" "$bin_dir/temporal-sql-tool" "$bin_dir/schema/postgresql/v12" "$prefix" >>"$run_dir/sql-tool.log" 2>&1 \
  || { log "schema setup failed; see $run_dir/sql-tool.log"; exit 1; }

# ---- configuration: loopback only, pools within budget, no archival, no pprof or metrics port
datastore() {
  cat <<YAML
      sql:
        pluginName: "postgres12"
        databaseName: "$1"
        connectAddr: "$pg_host:$pg_port"
        connectProtocol: "tcp"
        user: "$pg_user"
        password: "$pg_password"
        maxConns: $2
        maxIdleConns: $2
        maxConnLifetime: "1h"
YAML
}
service() {
  cat <<YAML
  $1:
    rpc:
      grpcPort: $2
      membershipPort: $3
      bindOnLocalHost: true
YAML
}
{
  cat <<YAML
log:
  stdout: true
  level: warn
persistence:
  defaultStore: default
  visibilityStore: visibility
  # Chosen once: history shards cannot be changed on an existing cluster (docs/scaling.md).
  numHistoryShards: ${TEMPORAL_HISTORY_SHARDS:-4}
  datastores:
    default:
YAML
  datastore "$prefix" "$max_conns"
  echo "    visibility:"
  datastore "${prefix}_visibility" "$vis_max_conns"
  cat <<YAML
global:
  membership:
    maxJoinDuration: 30s
    broadcastAddress: "127.0.0.1"
services:
  frontend:
    rpc:
      grpcPort: $port
      httpPort: $((port + 1))
      membershipPort: $((port + 2))
      bindOnLocalHost: true
YAML
  service history $((port + 3)) $((port + 4))
  service matching $((port + 5)) $((port + 6))
  service worker $((port + 7)) $((port + 8))
  cat <<YAML
clusterMetadata:
  enableGlobalNamespace: false
  failoverVersionIncrement: 10
  masterClusterName: "active"
  currentClusterName: "active"
  clusterInformation:
    active:
      enabled: true
      initialFailoverVersion: 1
      rpcName: "frontend"
      rpcAddress: "$address"
dcRedirectionPolicy:
  policy: "noop"
dynamicConfigClient:
  filepath: "$run_dir/config/dynamicconfig/dynamic.yaml"
  pollInterval: "10s"
YAML
} > "$run_dir/config/development.yaml"

cp "$here/dynamicconfig.yaml" "$run_dir/config/dynamicconfig/dynamic.yaml"

# ---- start, then namespace and search attributes
server_pid=""
stop() {
  trap - INT TERM
  if [[ -n "$server_pid" ]] && kill -0 "$server_pid" 2>/dev/null; then
    log "stopping"
    kill -TERM "$server_pid" 2>/dev/null || true
    for _ in $(seq 1 80); do kill -0 "$server_pid" 2>/dev/null || break; sleep 0.25; done
    kill -KILL "$server_pid" 2>/dev/null || true
    wait "$server_pid" 2>/dev/null || true
  fi
  exit 0
}
trap stop INT TERM

# --allow-no-auth: every port is bound to 127.0.0.1 (bindOnLocalHost); see docs/scaling.md for
# what a multi-host deployment needs instead (mTLS or an authorizer).
log "starting; server log in $run_dir/server.log"
"$bin_dir/temporal-server" --root "$run_dir" --config config --env development --allow-no-auth start \
  >>"$run_dir/server.log" 2>&1 &
server_pid=$!

# Namespace and search attributes (retried: a fresh server's namespace cache lags), then a query
# on all three attributes; in the background, so that a server that dies meanwhile ends the wait.
"$here/setup-namespace.sh" "$cli" "$address" "$namespace" >&2 &
setup_pid=$!
while kill -0 "$setup_pid" 2>/dev/null; do
  kill -0 "$server_pid" 2>/dev/null || { log "server exited during setup; see $run_dir/server.log"; kill "$setup_pid" 2>/dev/null; exit 1; }
  sleep 0.5
done
wait "$setup_pid" || { log "namespace setup failed"; kill -TERM "$server_pid"; wait "$server_pid" || true; exit 1; }

echo "TEMPORAL_POSTGRES_READY $address namespace=$namespace databases=$prefix,${prefix}_visibility"
wait "$server_pid" || true
log "server exited"
exit 1
