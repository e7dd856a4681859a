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
  # A worktree's node_modules linked to another checkout's is current when both lockfiles are the
  # same text (a worktree's lockfile is newer by mtime only): reinstalling here would empty the link.
  if [ -L node_modules ]; then
    local linked
    linked="$(dirname "$(readlink -f node_modules)")/package-lock.json"
    if [ -f "$linked" ] && cmp -s package-lock.json "$linked"; then return 0; fi
  fi
  if [ ! -d node_modules ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
    echo "installing npm dependencies" >&2
    # A node_modules that links to another checkout's: drop the link, never the other tree
    # (`npm ci` empties what the link points to before it installs).
    if [ -L node_modules ]; then rm node_modules; fi
    # `npm ci` only: the lockfile is the install (test/unit/static/lockfile.test.ts keeps it complete).
    # The lockfile names no tarball URLs (npm's omit-lockfile-registry-resolved), so npm asks the
    # registry for each package's metadata first (~930 requests) unless it may take it from its cache:
    # --prefer-offline. A cached metadata document older than a version the lockfile names fails
    # the install (npm does not look again): then once more online.
    npm ci --prefer-offline --no-audit --no-fund >&2 || {
      echo "npm ci from the cache failed; again, online" >&2
      npm ci --no-audit --no-fund >&2
    }
  fi
}

# Submitted code runs inside bubblewrap under a seccomp allow-list compiled at worker start by
# Debian's python3-seccomp (src/judging/sandbox/seccomp/); the worker refuses to start without
# either. Installs Debian's bubblewrap and python3-seccomp when missing (as .ci/run does for
# Chromium). JUDGE_SANDBOX=unsafe-process (development only) skips it.
ensure_bwrap() {
  if [ "${JUDGE_SANDBOX:-bwrap}" = "unsafe-process" ]; then return 0; fi
  if command -v bwrap >/dev/null 2>&1 && /usr/bin/python3 -c 'import seccomp' >/dev/null 2>&1; then return 0; fi
  echo "installing bubblewrap and python3-seccomp (the OS sandbox of the judges)" >&2
  local packages="bubblewrap python3 python3-seccomp"
  if [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null 2>&1; then
    (DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $packages >/dev/null 2>&1 || { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $packages >/dev/null; }) || true
  elif command -v sudo >/dev/null 2>&1 && command -v apt-get >/dev/null 2>&1; then
    sudo DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $packages >/dev/null || true
  fi
  command -v bwrap >/dev/null 2>&1 && /usr/bin/python3 -c 'import seccomp' >/dev/null 2>&1 && return 0
  echo "bwrap or python3-seccomp not found and could not be installed: install the Debian packages bubblewrap and python3-seccomp (apt-get install bubblewrap python3-seccomp), or for development only set JUDGE_SANDBOX=unsafe-process" >&2
  return 1
}

# The program judge's language runtimes, from Debian packages at fixed paths (never PATH shims:
# pyenv, rustup or a Go in /usr/local do not exist inside the sandbox). Installs what is missing;
# a language whose runtime stays missing is simply not offered (GET /api/v1/languages).
PROGRAM_JUDGE_PACKAGES=(
  "/usr/bin/python3:python3"
  "/usr/bin/gcc:gcc"
  "/usr/bin/g++:g++"
  "/usr/lib/go-*/bin/go:golang-go"
  "/usr/bin/rustc:rustc"
  "/usr/lib/jvm/java-17-openjdk-amd64/bin/javac:openjdk-17-jdk-headless"
  "/usr/bin/node:nodejs"
)
ensure_program_runtimes() {
  if [ "${JUDGE_SANDBOX:-bwrap}" = "unsafe-process" ]; then return 0; fi
  local missing=() entry path package
  for entry in "${PROGRAM_JUDGE_PACKAGES[@]}"; do
    path="${entry%%:*}"; package="${entry#*:}"
    # shellcheck disable=SC2086 # the glob (Go's versioned folder) must expand
    compgen -G $path >/dev/null || missing+=("$package")
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  echo "installing the program judge's runtimes: ${missing[*]}" >&2
  local sudo=""
  [ "$(id -u)" = "0" ] || sudo="sudo"
  if command -v apt-get >/dev/null 2>&1; then
    ($sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null 2>&1 \
      || { $sudo apt-get update -qq && DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null; }) \
      || echo "warning: could not install ${missing[*]}; those languages are not offered" >&2
  else
    echo "warning: no apt-get: ${missing[*]} missing; those languages are not offered" >&2
  fi
  return 0
}

# A PostgreSQL cluster of the test run's own (Debian's pg_createcluster, as root) for the fault run
# and the topology when they run beside the jest tiers: the fault run restarts its cluster, which
# would cut every jest file's connections on the machine's `main`, and the topology's Temporal
# server and four processes would take connections the tiers count on. Prints the cluster's
# name; returns non-zero (nothing made) where it cannot make one.
# make_side_cluster PORT
make_side_cluster() {
  local port=$1 version name
  [ "$(id -u)" = 0 ] && command -v pg_createcluster >/dev/null 2>&1 && [ -d /etc/postgresql ] || return 1
  version="$(ls /etc/postgresql | sort | head -1)"
  name="side_${port}"
  # A cluster left by an interrupted run on this port: start again from nothing.
  pg_dropcluster --stop "$version" "$name" >/dev/null 2>&1 || true
  pg_createcluster "$version" "$name" --port "$port" >/dev/null 2>&1 || return 1
  # Trust on loopback, as the machine's main cluster (a local test cluster, never production).
  cp "/etc/postgresql/$version/main/pg_hba.conf" "/etc/postgresql/$version/$name/pg_hba.conf"
  pg_ctlcluster --skip-systemctl-redirect "$version" "$name" start >/dev/null 2>&1 || {
    pg_dropcluster --stop "$version" "$name" >/dev/null 2>&1
    return 1
  }
  for _ in $(seq 1 60); do
    if pg_isready -h 127.0.0.1 -p "$port" -q 2>/dev/null; then
      echo "$version $name"
      return 0
    fi
    sleep 0.5
  done
  pg_dropcluster --stop "$version" "$name" >/dev/null 2>&1
  return 1
}
