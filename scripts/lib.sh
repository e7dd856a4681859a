# Shared shell helpers for scripts/run.sh and scripts/test.sh.

# Starts the machine's PostgreSQL cluster when nothing answers on 127.0.0.1:5432.
ensure_postgres() {
  if pg_isready -h 127.0.0.1 -p 5432 -q 2>/dev/null; then return 0; fi
  if command -v pg_ctlcluster >/dev/null 2>&1 && [ -d /etc/postgresql ]; then
    echo "starting PostgreSQL" >&2
    pg_ctlcluster --skip-systemctl-redirect "$(ls /etc/postgresql | head -1)" main start || true
  fi
  for _ in $(seq 1 60); do
    pg_isready -h 127.0.0.1 -p 5432 -q 2>/dev/null && return 0
    sleep 0.5
  done
  echo "PostgreSQL is not reachable on 127.0.0.1:5432 (set DATABASE_URL or start it)" >&2
  return 1
}

# wait_for_port HOST PORT SECONDS
wait_for_port() {
  local host=$1 port=$2 secs=$3
  for _ in $(seq 1 $((secs * 4))); do
    (exec 3<>"/dev/tcp/$host/$port") 2>/dev/null && return 0
    sleep 0.25
  done
  return 1
}

port_open() { (exec 3<>"/dev/tcp/$1/$2") 2>/dev/null; }

# Installs dependencies on a fresh clone (node_modules absent or older than the lockfile).
ensure_node_modules() {
  if [ ! -d node_modules ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
    echo "installing npm dependencies" >&2
    # npm 11 on this machine writes a lockfile without the other platforms' optional @swc/core
    # entries, which its own `npm ci` then refuses; `npm install` honours the same lockfile.
    npm ci --no-audit --no-fund >&2 2>/dev/null || npm install --no-audit --no-fund >&2
  fi
}

# The tests judge runs submitted code inside bubblewrap; the worker refuses to start without it.
# Installs Debian's bubblewrap when missing (as .ci/run does for Chromium). JUDGE_SANDBOX=unsafe-process
# (development only) skips it.
ensure_bwrap() {
  if [ "${JUDGE_SANDBOX:-bwrap}" = "unsafe-process" ] || command -v bwrap >/dev/null 2>&1; then return 0; fi
  echo "installing bubblewrap (the OS sandbox of the tests judge)" >&2
  if [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null 2>&1; then
    (apt-get install -y -qq bubblewrap >/dev/null 2>&1 || { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq bubblewrap >/dev/null; }) || true
  elif command -v sudo >/dev/null 2>&1 && command -v apt-get >/dev/null 2>&1; then
    sudo apt-get install -y -qq bubblewrap >/dev/null || true
  fi
  command -v bwrap >/dev/null 2>&1 && return 0
  echo "bwrap not found and could not be installed: install the Debian package bubblewrap (apt-get install bubblewrap), or for development only set JUDGE_SANDBOX=unsafe-process" >&2
  return 1
}
