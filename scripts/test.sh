#!/usr/bin/env bash
# The one test command (README, `npm test`, CI): PostgreSQL up, Temporal CLI provisioned,
# then every jest suite against the real database, Temporal dev server and worker.
# Writes test-artifacts/jest-results.json and ends with the plain line "N passed, M failed".
set -uo pipefail
cd "$(dirname "$0")/.."
source scripts/lib.sh

ensure_node_modules || exit 1
ensure_postgres || exit 1
export TEMPORAL_CLI="$(temporal/ensure-cli.sh)" || { echo "no Temporal CLI" >&2; exit 1; }
mkdir -p test-artifacts

npx jest --json --outputFile=test-artifacts/jest-results.json "$@"
status=$?
node -e '
  const r = require("./test-artifacts/jest-results.json");
  const skipped = r.numPendingTests + r.numTodoTests;
  console.log(`${r.numPassedTests} passed, ${r.numFailedTests} failed` + (skipped ? `, ${skipped} skipped` : ""));
' 2>/dev/null || echo "0 passed, 1 failed"
exit $status
