#!/usr/bin/env bash
# The one test command (README, `npm test`, CI), in order, each step failing fast:
#   1. lint: eslint and prettier --check over the tree (one "test" in the closing line);
#   2. jest unit tier (no stack);           stops here when 1 or 2 failed;
#   3. jest service tier (PostgreSQL + Temporal, no worker, I/O-bound: more jest workers);
#   4. jest system tier (worker, sandbox, Chromium, builds; 3 jest workers: SYSTEM_MAX_WORKERS).
# Arguments go to each jest run (`npm test -- test/service/sessions.test.ts`: tiers without a
# match run nothing). SKIP_LINT=1 skips step 1. With RUN_FAULTS=1 (CI sets it) the fault run
# (`npm run test:faults`) follows, with RUN_TOPOLOGY=1 (CI too) the production-topology run.
# JEST_COVERAGE=1 (scripts/coverage.sh) makes each jest run write coverage/jest-<tier>.
# Writes test-artifacts/*.json and ends with the plain line "N passed, M failed".
set -uo pipefail
cd "$(dirname "$0")/.."
source scripts/lib.sh

ensure_node_modules || exit 1
ensure_postgres || exit 1
ensure_bwrap || exit 1
export TEMPORAL_CLI="$(temporal/ensure-cli.sh)" || { echo "no Temporal CLI" >&2; exit 1; }
mkdir -p test-artifacts
rm -f test-artifacts/lint-result.json test-artifacts/jest-results*.json test-artifacts/jest-faults-results.json test-artifacts/jest-topology-results.json
status=0
TIERS=(unit service system)

if [ "${SKIP_LINT:-0}" != "1" ]; then
  started=$(date +%s)
  # Errors only (warnings are advice: `npm run lint` prints them). eslint and prettier each use
  # one core: run side by side on the two, the step takes the longer of them, not their sum.
  npx eslint --quiet . &
  eslint_pid=$!
  npx prettier --check --log-level warn .
  prettier_status=$?
  wait "$eslint_pid"
  eslint_status=$?
  lint_status=$(( eslint_status != 0 ? eslint_status : prettier_status ))
  echo "lint took $(( $(date +%s) - started )) s"
  echo "{\"passed\": $([ $lint_status -eq 0 ] && echo 1 || echo 0)}" > test-artifacts/lint-result.json
  [ $lint_status -ne 0 ] && status=$lint_status
fi

for tier in "${TIERS[@]}"; do
  # Fast failure: a lint or unit failure stops the run before the stack starts.
  if [ $status -ne 0 ] && [ "$tier" != "unit" ]; then break; fi
  coverage=()
  if [ "${JEST_COVERAGE:-0}" = "1" ]; then
    coverage=(--coverage --coverageProvider=v8 --coverageReporters=json "--coverageDirectory=coverage/jest-$tier" "--collectCoverageFrom=src/**/*.ts")
  fi
  workers=()
  # The service tier waits on PostgreSQL and HTTP, not on the CPU: more files at once.
  [ "$tier" = "service" ] && workers=(--maxWorkers="${SERVICE_MAX_WORKERS:-4}")
  # The system tier's files wait on Temporal timers, judging and Chromium (~45 % of 2 cores with
  # 2 jest workers): a third keeps the cores busy (docs/testing.md, "The system tier's workers and order").
  [ "$tier" = "system" ] && workers=(--maxWorkers="${SYSTEM_MAX_WORKERS:-3}")
  started=$(date +%s)
  npx jest --selectProjects "$tier" --passWithNoTests "${workers[@]}" "${coverage[@]}" \
    --json --outputFile="test-artifacts/jest-results-$tier.json" "$@"
  tier_status=$?
  echo "$tier tier took $(( $(date +%s) - started )) s"
  [ $tier_status -ne 0 ] && status=$tier_status
done

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

# One closing line over every report written: the lint step counts as one test; a tier or run
# whose report is missing (not run after a fast failure, or crashed) counts as one failure.
node -e '
  const fs = require("fs");
  let passed = 0, failed = 0, skipped = 0;
  if (process.env.SKIP_LINT !== "1") {
    const lint = "test-artifacts/lint-result.json";
    if (fs.existsSync(lint) && JSON.parse(fs.readFileSync(lint, "utf8")).passed === 1) passed += 1;
    else failed += 1;
  }
  const files = ["unit", "service", "system"].map((t) => `test-artifacts/jest-results-${t}.json`);
  if (process.env.RUN_FAULTS === "1") files.push("test-artifacts/jest-faults-results.json");
  if (process.env.RUN_TOPOLOGY === "1") files.push("test-artifacts/jest-topology-results.json");
  for (const f of files) {
    if (!fs.existsSync(f)) { failed += 1; continue; }
    const r = JSON.parse(fs.readFileSync(f, "utf8"));
    passed += r.numPassedTests; failed += r.numFailedTests + (r.numRuntimeErrorTestSuites || 0);
    skipped += r.numPendingTests + r.numTodoTests;
  }
  console.log(`${passed} passed, ${failed} failed` + (skipped ? `, ${skipped} skipped` : ""));
'
exit $status
