#!/usr/bin/env bash
# Makes sure a program the tests need is installed, and prints its path on stdout.
#
#   tools/ensure-debian-package.sh PACKAGE ENV_VAR CANDIDATE...
#
# The first executable among $ENV_VAR and the candidates wins; otherwise Debian's
# PACKAGE is installed with apt-get when this user is root or may sudo without a
# password, and the candidates are looked at again. Anything else says what to
# do and exits 1.
set -euo pipefail

package="$1"
variable="$2"
shift 2
say() { printf 'ensure %s: %s\n' "$package" "$*" >&2; }

found() {
  local candidate
  for candidate in "${!variable:-}" "$@"; do
    if [ -n "$candidate" ] && [ -x "$candidate" ]; then
      printf '%s\n' "$candidate"
      return 0
    fi
  done
  return 1
}

if found "$@"; then exit 0; fi

if ! command -v apt-get >/dev/null 2>&1; then
  say "missing, and this machine has no apt-get; install it and set $variable to its binary"
  exit 1
fi

if [ "$(id -u)" -eq 0 ]; then
  as_root=()
elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
  as_root=(sudo -n)
else
  say "missing; install it with 'sudo apt-get install -y $package' (this user is not root and cannot sudo without a password), or set $variable to its binary"
  exit 1
fi

export DEBIAN_FRONTEND=noninteractive
apt=("${as_root[@]}" apt-get -o DPkg::Lock::Timeout=300 -y -q)
say "installing Debian's $package with apt-get"
if ! "${apt[@]}" install "$package" >&2; then
  "${apt[@]}" update >&2
  "${apt[@]}" install "$package" >&2
fi

if found "$@"; then exit 0; fi
say "apt-get finished but the program is still missing"
exit 1
