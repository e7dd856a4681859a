#!/usr/bin/env bash
# `npm run coverage`: statement coverage of src/ over the whole `npm test` (arguments go to it),
# child processes included. Jest's workers report through jest's own V8 coverage (mapped through
# the swc transform; JEST_COVERAGE=1 makes scripts/test.sh ask each tier for it); every other
# Node process the run starts (the worker, API servers and CLIs spawned by tests, the esbuild
# child, tsx children) writes raw V8 coverage to NODE_V8_COVERAGE, which c8 maps through tsx's
# source maps. scripts/coverage-merge.mjs merges both and prints `statements: X%`.
set -uo pipefail
cd "$(dirname "$0")/.."
rm -rf coverage
mkdir -p coverage/raw
export NODE_V8_COVERAGE="$PWD/coverage/raw" JEST_COVERAGE=1
bash scripts/test.sh "$@"
status=$?
unset NODE_V8_COVERAGE
node scripts/coverage-merge.mjs || status=1
exit $status
