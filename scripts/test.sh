#!/usr/bin/env bash
# The one test command (README, `npm test`, CI), in order, each step failing fast:
#   1. lint: eslint and prettier --check over the tree (one "test" in the closing line);
#   2. jest unit tier (no stack);           stops here when 1 or 2 failed;
#   3. jest service tier (PostgreSQL + Temporal, no worker, I/O-bound: more jest workers);
#   4. jest system tier (worker, sandbox, Chromium, builds; 3 jest workers: SYSTEM_MAX_WORKERS).
# Arguments go to each jest run (`npm test -- test/service/sessions.test.ts`: tiers without a
# match run nothing). SKIP_LINT=1 skips step 1. With RUN_FAULTS=1 (CI sets it) the fault run
# (`npm run test:faults`) runs too, beside the service and system tiers when a PostgreSQL cluster of
# its own can be made (as root: CI), else after the tiers (SIDE_RUNS=0 forces that); with
# RUN_TOPOLOGY=1 (CI too) the production-topology run follows the tiers. docs/testing.md, "CI's steps".
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

# The fault run waits on its own processes (300 paced submissions, kills, restarts) far more than
# it computes, so it runs beside the service and system tiers, on a cluster of its own: it restarts
# its cluster (make_side_cluster in scripts/lib.sh). The topology runs after the tiers, alone: beside
# them and six busy loops its webhook receiver fell behind and the spec's breaker (10 consecutive
# failures) disabled its subscriptions, twice (docs/testing.md, "CI's steps").
run_faults() {
  if [ "${RUN_FAULTS:-0}" = "1" ]; then
    local started=$(date +%s)
    npx jest -c jest.faults.config.js --json --outputFile=test-artifacts/jest-faults-results.json
    echo $? > test-artifacts/faults.status
    echo "fault run took $(( $(date +%s) - started )) s"
  fi
}
run_topology() {
  if [ "${RUN_TOPOLOGY:-0}" = "1" ]; then
    local started=$(date +%s)
    bash scripts/topology.sh
    echo $? > test-artifacts/topology.status
    echo "topology run took $(( $(date +%s) - started )) s"
  fi
}
rm -f test-artifacts/faults.status test-artifacts/topology.status test-artifacts/side-runs.log
side_pid=""
side_cluster=""
# Starts the fault run in the background on a cluster of its own; returns non-zero when it did not.
start_side_runs() {
  [ "${RUN_FAULTS:-0}" = "1" ] || return 1
  [ "${SIDE_RUNS:-1}" = "1" ] || return 1
  local port="${SIDE_PG_PORT:-5439}"
  if ! side_cluster="$(make_side_cluster "$port")"; then
    side_cluster=""
    echo "fault run: no PostgreSQL cluster of its own could be made (root and Debian's pg_createcluster needed); it runs after the tiers"
    return 1
  fi
  local version="${side_cluster% *}" name="${side_cluster#* }"
  echo "fault run: beside the tiers, on PostgreSQL cluster $name (port $port); its output follows the tiers' (test-artifacts/side-runs.log)"
  (
    export BENCH_PG_BASE="postgres://postgres@127.0.0.1:$port" FAULTS_PG_CLUSTER="$name" FAULTS_PG_VERSION="$version"
    # Their own ports below the kernel's ephemeral range, where the tiers' servers (port 0) never land.
    export BENCH_PORT_MIN="${BENCH_PORT_MIN:-17000}" BENCH_PORT_MAX="${BENCH_PORT_MAX:-17999}"
    run_faults
  ) > test-artifacts/side-runs.log 2>&1 &
  side_pid=$!
}
drop_side_cluster() {
  [ -n "$side_cluster" ] || return 0
  pg_dropcluster --stop "${side_cluster% *}" "${side_cluster#* }" >/dev/null 2>&1 || true
  side_cluster=""
}
trap 'drop_side_cluster' EXIT

for tier in "${TIERS[@]}"; do
  # Beside the service and system tiers, once lint and unit passed (fast failure: not after them).
  if [ "$tier" = "service" ] && [ $status -eq 0 ]; then start_side_runs; fi
  # Fast failure: a lint or unit failure stops the run before the stack starts; a service
  # failure skips the system tier (each tier not run counts as one failure in the closing line).
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

if [ -n "$side_pid" ]; then
  started=$(date +%s)
  wait "$side_pid"
  echo "waited $(( $(date +%s) - started )) s after the tiers for the fault run"
  cat test-artifacts/side-runs.log
  drop_side_cluster
else
  # Not beside the tiers (no cluster of its own, SIDE_RUNS=0, or a fast failure): after them, on `main`.
  run_faults
fi
run_topology
for run in faults topology; do
  if [ -f "test-artifacts/$run.status" ]; then
    run_status=$(cat "test-artifacts/$run.status")
    [ "$run_status" -ne 0 ] && status=$run_status
  fi
done

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
