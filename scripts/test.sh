#!/usr/bin/env bash
# The one test command (README, `npm test`, CI): PostgreSQL up, Temporal CLI provisioned,
# then every jest suite against the real database, Temporal dev server and worker.
# With RUN_FAULTS=1 (CI sets it) the fault run (`npm run test:faults`) follows, with
# RUN_TOPOLOGY=1 (CI too) the production-topology run (`npm run test:topology`).
# Writes test-artifacts/*.json and ends with the plain line "N passed, M failed".
set -uo pipefail
cd "$(dirname "$0")/.."
source scripts/lib.sh

ensure_node_modules || exit 1
ensure_postgres || exit 1
ensure_bwrap || exit 1
export TEMPORAL_CLI="$(temporal/ensure-cli.sh)" || { echo "no Temporal CLI" >&2; exit 1; }
mkdir -p test-artifacts
rm -f test-artifacts/jest-results.json test-artifacts/jest-faults-results.json test-artifacts/jest-topology-results.json

npx jest --json --outputFile=test-artifacts/jest-results.json "$@"
status=$?

if [ "${RUN_FAULTS:-0}" = "1" ]; then
  started=$(date +%s)
  npx jest -c jest.faults.config.js --json --outputFile=test-artifacts/jest-faults-results.json
  faults_status=$?
  echo "fault run took $(( $(date +%s) - started )) s"
  [ $faults_status -ne 0 ] && status=$faults_status
fi

if [ "${RUN_TOPOLOGY:-0}" = "1" ]; then
  started=$(date +%s)
  bash scripts/topology.sh
  topology_status=$?
  echo "topology run took $(( $(date +%s) - started )) s"
  [ $topology_status -ne 0 ] && status=$topology_status
fi

# One closing line over every report written (a missing report counts as a failure).
node -e '
  const fs = require("fs");
  const files = ["test-artifacts/jest-results.json"];
  if (process.env.RUN_FAULTS === "1") files.push("test-artifacts/jest-faults-results.json");
  if (process.env.RUN_TOPOLOGY === "1") files.push("test-artifacts/jest-topology-results.json");
  let passed = 0, failed = 0, skipped = 0;
  for (const f of files) {
    if (!fs.existsSync(f)) { failed += 1; continue; }
    const r = JSON.parse(fs.readFileSync(f, "utf8"));
    passed += r.numPassedTests; failed += r.numFailedTests + (r.numRuntimeErrorTestSuites || 0);
    skipped += r.numPendingTests + r.numTodoTests;
  }
  console.log(`${passed} passed, ${failed} failed` + (skipped ? `, ${skipped} skipped` : ""));
'
exit $status
