#!/usr/bin/env bash
# The one run command (README, `npm start`): PostgreSQL + Temporal dev server (Web UI on 8233,
# search attributes registered) + migrations + demo data + worker + API on :3000 + a scripted
# demo agent. Ctrl-C stops everything this script started. Processes left by a crashed run
# (recorded in .data/run/*.pid) are stopped first, so a second run starts cleanly.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT="$(pwd)"
source scripts/lib.sh

RUN_DIR=.data/run; LOG_DIR=.data/logs
mkdir -p "$RUN_DIR" "$LOG_DIR"
export PORT="${PORT:-3000}"
# The dev CLI mints `role: admin` operator JWTs; only development trusts that claim (refused in production).
export AUTH_TRUST_ROLE_CLAIM="${AUTH_TRUST_ROLE_CLAIM:-1}"
export TEMPORAL_ADDRESS="${TEMPORAL_ADDRESS:-127.0.0.1:7233}"
# Development runs accept webhook receivers on this machine (http, 127.0.0.1), so
# `npm run cli -- webhooks listen` works; production refuses the setting (src/config.ts).
[ "${NODE_ENV:-development}" != "production" ] && export WEBHOOK_ALLOW_PRIVATE="${WEBHOOK_ALLOW_PRIVATE:-1}"
TEMPORAL_UI_PORT="${TEMPORAL_UI_PORT:-8233}"
# The operators' console links each submission to its workflow in this Web UI.
export TEMPORAL_UI_URL="${TEMPORAL_UI_URL:-http://127.0.0.1:$TEMPORAL_UI_PORT}"

# A pid file names a process group we started; stop it only if it still runs our code.
stop_recorded() {
  local file=$1 pid
  pid="$(cat "$file" 2>/dev/null || true)"
  if [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null && grep -qa "$ROOT\|temporal\|tsx" "/proc/$pid/cmdline" 2>/dev/null; then
    kill -TERM -- "-$pid" 2>/dev/null || kill -TERM "$pid" 2>/dev/null || true
    for _ in $(seq 1 40); do kill -0 "$pid" 2>/dev/null || break; sleep 0.25; done
    kill -KILL -- "-$pid" 2>/dev/null || true
  fi
  rm -f "$file"
}
for f in "$RUN_DIR"/*.pid; do [ -e "$f" ] && { echo "stopping $(basename "$f" .pid) left by an earlier run"; stop_recorded "$f"; }; done

STARTED=()
cleanup() {
  trap - INT TERM EXIT
  echo; echo "stopping…"
  local i
  for (( i=${#STARTED[@]}-1; i>=0; i-- )); do stop_recorded "$RUN_DIR/${STARTED[$i]}.pid"; done
  echo "stopped."
}
trap 'cleanup; exit 130' INT
trap 'cleanup; exit 143' TERM
trap cleanup EXIT

# start NAME CMD... : runs CMD in its own process group, logs to .data/logs/NAME.log
start() {
  local name=$1; shift
  setsid "$@" > "$LOG_DIR/$name.log" 2>&1 &
  echo $! > "$RUN_DIR/$name.pid"
  STARTED+=("$name")
}

ensure_node_modules
ensure_postgres
ensure_bwrap
# The program judge's languages (python3, gcc/g++, golang, rustc, openjdk, node) from Debian.
ensure_program_runtimes
TEMPORAL_CLI="$(temporal/ensure-cli.sh)"; export TEMPORAL_CLI

t_host="${TEMPORAL_ADDRESS%:*}"; t_port="${TEMPORAL_ADDRESS##*:}"
if port_open "$t_host" "$t_port"; then
  echo "Temporal already answers on $TEMPORAL_ADDRESS: using it"
else
  echo "starting Temporal dev server on $TEMPORAL_ADDRESS (Web UI http://127.0.0.1:$TEMPORAL_UI_PORT, state in .data/temporal.db)"
  start temporal temporal/dev-server.sh "$t_port" "$TEMPORAL_UI_PORT" "$ROOT/.data/temporal.db"
  wait_for_port "$t_host" "$t_port" 120 || { echo "Temporal did not start; see $LOG_DIR/temporal.log"; exit 1; }
fi

echo "migrating and seeding the database"
npx tsx src/db/migrate-cli.ts
if [ -f src/dev/seed.ts ]; then npx tsx src/dev/seed.ts; fi

echo "starting the worker"
start worker npx tsx src/worker.ts
for _ in $(seq 1 240); do
  grep -q WORKER_READY "$LOG_DIR/worker.log" 2>/dev/null && break
  kill -0 "$(cat "$RUN_DIR/worker.pid")" 2>/dev/null || { echo "worker failed; see $LOG_DIR/worker.log"; tail -20 "$LOG_DIR/worker.log"; exit 1; }
  sleep 0.5
done

if port_open 127.0.0.1 "$PORT"; then echo "port $PORT is already in use by another program"; exit 1; fi
echo "starting the API"
start api node --max-semi-space-size=64 --initial-old-space-size=256 --import tsx src/api/server.ts
wait_for_port 127.0.0.1 "$PORT" 60 || { echo "API did not start; see $LOG_DIR/api.log"; tail -20 "$LOG_DIR/api.log"; exit 1; }

if [ "${DEMO_AGENT:-1}" != "0" ] && [ -f src/dev/demo-agent.ts ]; then
  echo "starting the scripted demo agent"
  start demo-agent npx tsx src/dev/demo-agent.ts
fi

cat <<MSG

  Challenges     http://127.0.0.1:$PORT/            (web pages; your submissions at /me)
  API            http://127.0.0.1:$PORT/api/v1/challenges
  API reference  http://127.0.0.1:$PORT/api/v1/docs
  Contest        http://127.0.0.1:$PORT/challenges/00000000-0000-4000-8000-00000000c008   (held-out tests, final selection, questions)
  Temporal UI    http://127.0.0.1:$TEMPORAL_UI_PORT
  Logs           $LOG_DIR/
  Dev JWT        npm run cli -- jwt mint --sub you@example.com
  Webhooks       loopback receivers allowed for development (WEBHOOK_ALLOW_PRIVATE=${WEBHOOK_ALLOW_PRIVATE:-0});
                 try: npm run -s cli -- webhooks listen --sub you@example.com

Press Ctrl-C to stop.
MSG
if [ -f "$RUN_DIR/demo-agent.pid" ]; then
  for _ in $(seq 1 60); do grep -q "watch live" "$LOG_DIR/demo-agent.log" 2>/dev/null && break; sleep 0.5; done
  url="$(grep -o 'http://[^"]*/watch' "$LOG_DIR/demo-agent.log" | head -1 || true)"
  [ -n "$url" ] && echo "  Watch page     $url   (two demo agents compete there now; 30 s delay)" || echo "  (demo agent: see $LOG_DIR/demo-agent.log)"
  arena="$(grep -o 'arena: http://[^ "]*' "$LOG_DIR/demo-agent.log" | head -1 | sed 's/^arena: //' || true)"
  [ -n "$arena" ] && echo "  Arena          $arena   (the demo agents meet head to head every 3 min; ladder: /weight-classes/arena-demo/ladder)"
  game="$(grep -o 'game: http://[^ "]*' "$LOG_DIR/demo-agent.log" | head -1 | sed 's/^game: //' || true)"
  [ -n "$game" ] && echo "  Game           $game   (the demo agents' programs play connect four every 3 min; replays on /matches/{id})"
fi

# Stop everything when any component dies.
while true; do
  for name in "${STARTED[@]}"; do
    [ "$name" = demo-agent ] && continue  # the demo is optional: its failure stops nothing
    if ! kill -0 "$(cat "$RUN_DIR/$name.pid" 2>/dev/null)" 2>/dev/null; then
      echo "$name exited; see $LOG_DIR/$name.log"; tail -5 "$LOG_DIR/$name.log"; exit 1
    fi
  done
  sleep 2
done
