#!/usr/bin/env bash
# Finds or installs the programs Plugboard's test suite needs from the system, and prints
# one line per program:
#
#   chromium      /usr/bin/chromium (Debian package chromium), or $CHROMIUM_PATH:
#                 the catalogue site's browser test
#   redis-server  on PATH (Debian package redis-server): the SDK's shared-budget tests
#   setpriv       /usr/bin/setpriv or /bin/setpriv (Debian package util-linux): the runtime ends
#                 an isolated plugin's process with its host through it; its test needs it
#   runuser       /usr/sbin/runuser or /sbin/runuser (Debian package util-linux): the worker's
#                 tests, run as root, start PostgreSQL as the system user postgres through it
#   script        /usr/bin/script (util-linux's, in Debian package bsdutils): the CLI's tests run
#                 the plugboard binary in a pseudo-terminal it makes, with no terminal of their own
#   openssl       on PATH (Debian package openssl): the wrapper's test makes the certificates of a
#                 registry served over HTTPS; the SDK's test of docs/triggers.md signs with it
#   curl          on PATH (Debian package curl): the SDK's test of docs/triggers.md posts the
#                 delivery the guide's shell lines sign
#   postgres      initdb, pg_ctl and postgres, on PATH or in /usr/lib/postgresql/<version>/bin
#                 (Debian package postgresql): the worker's tests start a PostgreSQL server of their
#                 own; as root they run it as the system user postgres (made here when missing)
#
# Idempotent: when every program is there it installs nothing and takes well under a second.
# A missing one is installed with apt-get (non-interactive), as root or with password-less
# sudo; `apt-get update` runs once, and only when apt does not know a package yet. Anything
# it cannot get is named, with the command that installs it by hand, and the exit code is 1.
# Tests only look for these programs; they never install anything.
#
# Usage: scripts/ensure-system.sh   (`./pbw test` runs it first)
set -euo pipefail

say() { printf 'ensure-system: %s\n' "$*"; }

# Where the tests look for each program; each program's Debian package has its name.
chromium_path() { printf '%s\n' "${CHROMIUM_PATH:-/usr/bin/chromium}"; }
redis_path() { command -v redis-server 2>/dev/null || true; }
# Where the runtime looks for it, whatever PATH says.
setpriv_path() { for path in /usr/bin/setpriv /bin/setpriv; do [ -x "$path" ] && { printf '%s\n' "$path"; return; }; done; true; }
script_path() { [ -x /usr/bin/script ] && printf '%s\n' /usr/bin/script; true; }
# In sbin, which a CI shell's PATH may leave out: the worker's tests look for it there.
runuser_path() { for path in /usr/sbin/runuser /sbin/runuser; do [ -x "$path" ] && { printf '%s\n' "$path"; return; }; done; true; }
openssl_path() { command -v openssl 2>/dev/null || true; }
curl_path() { command -v curl 2>/dev/null || true; }
# PostgreSQL's server programs (initdb, pg_ctl, postgres) side by side: on PATH first, then in
# Debian's folders, newest version first. Prints where postgres is.
postgres_path() {
  local on_path folder
  on_path="$(command -v postgres 2>/dev/null || true)"
  for folder in ${on_path:+"${on_path%/*}"} $(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -t/ -k4 -rn); do
    if [ -x "$folder/initdb" ] && [ -x "$folder/pg_ctl" ] && [ -x "$folder/postgres" ]; then
      printf '%s\n' "$folder/postgres"
      return
    fi
  done
  true
}

# PostgreSQL refuses to run as root: tests run as root start it as the system user postgres.
# Debian's package makes that user; a machine that got the programs otherwise may lack it.
ensure_postgres_user() {
  [ "$(id -u)" -eq 0 ] || return 0
  id -u postgres >/dev/null 2>&1 && return 0
  local useradd
  useradd="$(command -v useradd 2>/dev/null || printf '/usr/sbin/useradd')"
  if "$useradd" --system --user-group --no-create-home --home-dir /nonexistent --shell /usr/sbin/nologin postgres; then
    say "postgres: made the system user postgres, which the worker's tests run PostgreSQL as"
  else
    say "postgres: MISSING the system user postgres; make it by hand: useradd --system --user-group postgres"
    exit 1
  fi
}

path_of() {
  case "$1" in
    chromium) chromium_path ;;
    redis-server) redis_path ;;
    setpriv) setpriv_path ;;
    runuser) runuser_path ;;
    script) script_path ;;
    openssl) openssl_path ;;
    curl) curl_path ;;
    postgres) postgres_path ;;
  esac
}

# The Debian package a program comes in.
package_of() {
  case "$1" in
    setpriv | runuser) printf 'util-linux\n' ;;
    script) printf 'bsdutils\n' ;;
    postgres) printf 'postgresql\n' ;;
    *) printf '%s\n' "$1" ;;
  esac
}

version_of() {
  local version asked=--version
  # openssl says its version to a command, not an option.
  [ "$1" = openssl ] && asked=version
  version="$("$2" "$asked" 2>/dev/null | head -n 1)" || true
  printf '%s\n' "${version:-version unknown}"
}

present() {
  local path
  path="$(path_of "$1")"
  [ -n "$path" ] && [ -x "$path" ]
}

programs=(chromium redis-server setpriv runuser script openssl curl postgres)
missing=()
for program in "${programs[@]}"; do
  if present "$program"; then
    path="$(path_of "$program")"
    say "$program: found at $path, $(version_of "$program" "$path")"
  else
    missing+=("$program")
  fi
done
if [ ${#missing[@]} -eq 0 ]; then
  ensure_postgres_user
  exit 0
fi

packages=()
for program in "${missing[@]}"; do packages+=("$(package_of "$program")"); done
by_hand="sudo apt-get install -y ${packages[*]}"
give_up() {
  for program in "${missing[@]}"; do
    if ! present "$program"; then
      say "$program: MISSING; $1"
    fi
  done
  say "install by hand: $by_hand (Debian/Ubuntu), or put redis-server and PostgreSQL's initdb, pg_ctl and postgres on PATH and Chromium at /usr/bin/chromium (or set CHROMIUM_PATH)"
  exit 1
}

command -v apt-get >/dev/null 2>&1 || give_up "this machine has no apt-get"
if [ "$(id -u)" -eq 0 ]; then
  as_root=()
elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
  as_root=(sudo -n)
else
  give_up "this user is not root and cannot sudo without a password"
fi

export DEBIAN_FRONTEND=noninteractive
apt=("${as_root[@]}" apt-get -o DPkg::Lock::Timeout=300 -y -q)

# apt-get update once, only when apt has no candidate for a missing package yet.
for package in "${packages[@]}"; do
  if ! apt-cache policy "$package" 2>/dev/null | grep -q 'Candidate: [^(]'; then
    say "apt-get update (apt does not know $package yet)"
    "${apt[@]}" update >&2 || give_up "apt-get update failed"
    break
  fi
done

say "installing ${packages[*]} with apt-get"
"${apt[@]}" install "${packages[@]}" >&2 || give_up "apt-get install ${packages[*]} failed"

for program in "${missing[@]}"; do
  present "$program" || give_up "apt-get finished, but $program is still not where the tests look"
  path="$(path_of "$program")"
  say "$program: installed at $path, $(version_of "$program" "$path")"
done
ensure_postgres_user
