#!/usr/bin/env bash
# `npm run test:topology`: the production-topology run (test/topology/topology.topology.ts).
# PostgreSQL up, the Temporal CLI and the Temporal server provisioned (built once per user, minutes
# on the first run), then the run itself. Writes test-artifacts/jest-topology-results.json and
# .data/topology/summary.json; logs in .data/topology/logs/.
set -uo pipefail
cd "$(dirname "$0")/.."
source scripts/lib.sh
ensure_node_modules || exit 1
ensure_postgres || exit 1
temporal/ensure-cli.sh >/dev/null || { echo "no Temporal CLI" >&2; exit 1; }
temporal/ensure-server.sh >/dev/null || { echo "no Temporal server" >&2; exit 1; }
mkdir -p test-artifacts
exec npx jest -c jest.topology.config.js --json --outputFile=test-artifacts/jest-topology-results.json "$@"
