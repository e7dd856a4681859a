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

# ---- databases: create when missing, then apply the versioned schema up to the latest version
sql_tool() {
  SQL_PASSWORD="$pg_password" "$bin_dir/temporal-sql-tool" --plugin postgres12 --endpoint "$pg_host" --port "$pg_port" \
    --user "$pg_user" "$@"
}
migrate_db() {
  local db=$1 schema=$2
  sql_tool --database "$db" create-database >>"$run_dir/sql-tool.log" 2>&1 || true   # "already exists" is fine
  # setup-schema -v 0.0 only creates the version table (a no-op when present); update-schema then
  # applies every versioned step above the recorded version, so a second run changes nothing.
  sql_tool --database "$db" setup-schema -v 0.0 >>"$run_dir/sql-tool.log" 2>&1 \
    || { log "schema setup of $db failed; see $run_dir/sql-tool.log"; exit 1; }
  sql_tool --database "$db" update-schema -d "$bin_dir/schema/postgresql/v12/$schema/versioned" >>"$run_dir/sql-tool.log" 2>&1 \
    || { log "schema update of $db failed; see $run_dir/sql-tool.log"; exit 1; }
}
log "migrating databases $prefix and ${prefix}_visibility on $pg_host:$pg_port"
migrate_db "$prefix" temporal
migrate_db "${prefix}_visibility" visibility

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

cat > "$run_dir/config/dynamicconfig/dynamic.yaml" <<'YAML'
# New search attributes are usable at once (no namespace-cache lag between their creation and the
# first workflow that sets them).
system.forceSearchAttributesCacheRefreshOnRead:
  - value: true
# IDs must fit the visibility table's VARCHAR(255) columns (workflow_id, task_queue...).
limit.maxIDLength:
  - value: 255
# Visibility: per-namespace API rate (default 10/s is below what tests and the UI ask) and the
# ceilings on what one host may send to the visibility database.
frontend.namespaceRPS.visibility:
  - value: 200
frontend.namespaceBurstRatio.visibility:
  - value: 2
system.visibilityPersistenceMaxReadQPS:
  - value: 500
system.visibilityPersistenceMaxWriteQPS:
  - value: 1000
YAML

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

t() { "$cli" --address "$address" --command-timeout 10s "$@"; }
# retry SECONDS WHAT CMD...: the server answers some calls before its caches have caught up.
retry() {
  local secs=$1 what=$2; shift 2
  local deadline=$((SECONDS + secs)) out
  until out="$("$@" 2>&1)"; do
    kill -0 "$server_pid" 2>/dev/null || { log "server exited during start ($what)"; exit 1; }
    if (( SECONDS >= deadline )); then log "gave up: $what: $out"; kill -TERM "$server_pid"; exit 1; fi
    sleep 1
  done
}
retry 120 "frontend answers" t operator cluster health
if ! t operator namespace describe --namespace "$namespace" >/dev/null 2>&1; then
  retry 60 "create namespace $namespace" t operator namespace create --namespace "$namespace" --retention 72h
fi
retry 60 "namespace $namespace visible" t operator namespace describe --namespace "$namespace"
for attribute in ChallengeId AgentId SubmissionStatus; do
  if ! t operator search-attribute list --namespace "$namespace" 2>/dev/null | grep -qw "$attribute"; then
    retry 60 "create search attribute $attribute" t operator search-attribute create --namespace "$namespace" \
      --name "$attribute" --type Keyword
  fi
done
retry 60 "visibility query on the three attributes" t workflow list --namespace "$namespace" --limit 1 \
  --query 'ChallengeId = "ready-check" AND AgentId = "ready-check" AND SubmissionStatus = "ready-check"'

echo "TEMPORAL_POSTGRES_READY $address namespace=$namespace databases=$prefix,${prefix}_visibility"
wait "$server_pid" || true
log "server exited"
exit 1
