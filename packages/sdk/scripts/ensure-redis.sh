#!/usr/bin/env bash
# Makes sure a redis-server is installed for the SDK's shared-budget tests, and
# prints its path on stdout. Uses Debian's package `redis-server` (apt-get) when
# it is missing and this user is root or may sudo without a password; otherwise
# it says what to do and exits 1. REDIS_SERVER names another binary to use.
# The tests start their own server on 127.0.0.1 (a free port, a temporary
# folder, no persistence) and never use a service the package may have started.
set -euo pipefail

say() { printf 'ensure-redis: %s\n' "$*" >&2; }

found() {
  for candidate in "${REDIS_SERVER:-}" "$(command -v redis-server 2>/dev/null || true)" /usr/bin/redis-server /usr/local/bin/redis-server; do
    if [ -n "$candidate" ] && [ -x "$candidate" ]; then
      printf '%s\n' "$candidate"
      return 0
    fi
  done
  return 1
}

if found; then exit 0; fi

if ! command -v apt-get >/dev/null 2>&1; then
  say "redis-server is missing and this machine has no apt-get; install Redis (7 or later) and set REDIS_SERVER to its redis-server binary"
  exit 1
fi

if [ "$(id -u)" -eq 0 ]; then
  as_root=()
elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
  as_root=(sudo -n)
else
  say "redis-server is missing; install it with 'sudo apt-get install -y redis-server' (this user is not root and cannot sudo without a password), or set REDIS_SERVER to a redis-server binary"
  exit 1
fi

export DEBIAN_FRONTEND=noninteractive
apt=("${as_root[@]}" apt-get -o DPkg::Lock::Timeout=300 -y -q --no-install-recommends)
say "installing Debian's redis-server with apt-get"
if ! "${apt[@]}" install redis-server >&2; then
  "${apt[@]}" update >&2
  "${apt[@]}" install redis-server >&2
fi

if found; then exit 0; fi
say "apt-get finished but redis-server is still missing"
exit 1
