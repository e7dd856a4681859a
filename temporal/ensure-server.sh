#!/usr/bin/env bash
# Prints the directory holding the pinned Temporal server (`temporal-server`) and its SQL schema
# tool (`temporal-sql-tool`), building both with Go into the per-user cache when absent (2-4 min
# on 2 cores, first run only). Like ensure-cli.sh, the cache lives outside the clone so that CI's
# fresh clones on one machine reuse it; TEMPORAL_SERVER_DIR names a directory of prebuilt ones.
# The PostgreSQL schemas ship in the module source (schema/postgresql/v12); they are copied next
# to the binaries. Nothing else goes to stdout; progress goes to stderr.
set -euo pipefail
VERSION=v1.29.1   # the server the Temporal CLI v1.5.1 dev server embeds (dev and tests)
CACHE_ROOT="${XDG_CACHE_HOME:-$HOME/.cache}/challenge-service/temporal-server"
DIR="$CACHE_ROOT/$VERSION"

if [[ -n "${TEMPORAL_SERVER_DIR:-}" ]]; then DIR="$TEMPORAL_SERVER_DIR"; fi
complete() { [[ -x "$DIR/temporal-server" && -x "$DIR/temporal-sql-tool" && -f "$DIR/schema/postgresql/v12/temporal/schema.sql" ]]; }
if complete; then echo "$DIR"; exit 0; fi
if [[ -n "${TEMPORAL_SERVER_DIR:-}" ]]; then
  echo "TEMPORAL_SERVER_DIR=$DIR lacks temporal-server, temporal-sql-tool or schema/postgresql/v12" >&2; exit 1
fi
command -v go >/dev/null 2>&1 || { echo "Temporal server not built and Go is not installed (or set TEMPORAL_SERVER_DIR)" >&2; exit 1; }

mkdir -p "$CACHE_ROOT"
# One build at a time per user: a second caller waits for the first one's result.
exec 9>"$CACHE_ROOT/.build.lock"
flock 9
if complete; then echo "$DIR"; exit 0; fi
echo "building Temporal server $VERSION and temporal-sql-tool with $(go version) (first run only, takes a few minutes)" >&2
tmp="$(mktemp -d "$CACHE_ROOT/.build-XXXXXX")"
trap 'rm -rf "$tmp"' EXIT
( cd "$tmp" && GOBIN="$tmp" GOFLAGS=-mod=mod go install \
    "go.temporal.io/server/cmd/server@$VERSION" "go.temporal.io/server/cmd/tools/sql@$VERSION" ) >&2
mv "$tmp/server" "$tmp/temporal-server"
mv "$tmp/sql" "$tmp/temporal-sql-tool"
moddir="$(cd "$tmp" && GOFLAGS=-mod=mod go mod download -json "go.temporal.io/server@$VERSION" | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p')"
mkdir -p "$tmp/schema/postgresql"
cp -R "$moddir/schema/postgresql/v12" "$tmp/schema/postgresql/v12"
chmod -R u+w "$tmp/schema"
rm -rf "$DIR"
mv "$tmp" "$DIR"
trap - EXIT
echo "$DIR"
