#!/usr/bin/env bash
# Starts the Temporal CLI dev server in the foreground (the run script backgrounds it).
# Usage: temporal/dev-server.sh <port> <ui-port|headless> [sqlite-file]
#   With a file, state survives restarts (SQLite in WAL mode); without, it is in memory (tests).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
port="${1:-7233}"; ui="${2:-8233}"; db="${3:-}"
cli="$("$here/ensure-cli.sh")"
args=(server start-dev --ip 127.0.0.1 --port "$port" --namespace default --log-level warn
      --search-attribute ChallengeId=Keyword --search-attribute AgentId=Keyword --search-attribute SubmissionStatus=Keyword
      --search-attribute MatchId=Keyword --search-attribute MatchStatus=Keyword --search-attribute AgentIds=KeywordList
      # One partition per task queue, as in dynamicconfig.yaml (docs/decisions/platform.md, "One
      # partition per task queue"): with the default four and a worker's two non-sticky pollers, a
      # first workflow task could wait over a second in a partition nobody polled, the worker idle.
      --dynamic-config-value matching.numTaskqueueReadPartitions=1
      --dynamic-config-value matching.numTaskqueueWritePartitions=1)
if [[ "$ui" == "headless" ]]; then args+=(--headless); else args+=(--ui-ip 127.0.0.1 --ui-port "$ui"); fi
if [[ -n "$db" ]]; then
  mkdir -p "$(dirname "$db")"
  args+=(--db-filename "$db" --sqlite-pragma journal_mode=wal --sqlite-pragma synchronous=normal)
fi
exec "$cli" "${args[@]}"
