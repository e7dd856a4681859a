#!/usr/bin/env bash
# Prints the path of a Temporal CLI binary, building it with Go when none is found.
# Order (DESIGN.md): $TEMPORAL_CLI, `temporal` on PATH, the per-user cache, else `go install`.
# The cache lives outside the clone so that CI's fresh clones on one machine reuse it.
set -euo pipefail
VERSIONS=(v1.5.1 v1.4.1 v1.3.0)
CACHE_ROOT="${XDG_CACHE_HOME:-$HOME/.cache}/challenge-service/temporal"

if [[ -n "${TEMPORAL_CLI:-}" && -x "${TEMPORAL_CLI}" ]]; then echo "$TEMPORAL_CLI"; exit 0; fi
if command -v temporal >/dev/null 2>&1; then command -v temporal; exit 0; fi
for v in "${VERSIONS[@]}"; do
  if [[ -x "$CACHE_ROOT/$v/temporal" ]]; then echo "$CACHE_ROOT/$v/temporal"; exit 0; fi
done
if ! command -v go >/dev/null 2>&1; then
  echo "Temporal CLI not found and Go is not installed: set TEMPORAL_CLI" >&2; exit 1
fi
# One build at a time per user (as ensure-server.sh): parallel callers (test runs started together
# on a fresh machine) each started their own `go install` of the same CLI, six at once on 2 cores.
mkdir -p "$CACHE_ROOT"
exec 9>"$CACHE_ROOT/.build.lock"
flock 9
for v in "${VERSIONS[@]}"; do
  if [[ -x "$CACHE_ROOT/$v/temporal" ]]; then echo "$CACHE_ROOT/$v/temporal"; exit 0; fi
done
for v in "${VERSIONS[@]}"; do
  echo "building Temporal CLI $v with $(go version) (first run only, takes a few minutes)" >&2
  mkdir -p "$CACHE_ROOT/$v"
  if GOBIN="$CACHE_ROOT/$v" GOFLAGS=-mod=mod go install "github.com/temporalio/cli/cmd/temporal@$v" >&2; then
    echo "$CACHE_ROOT/$v/temporal"; exit 0
  fi
  echo "building Temporal CLI $v failed; trying the next version" >&2
done
echo "could not build any Temporal CLI version (${VERSIONS[*]})" >&2
exit 1
