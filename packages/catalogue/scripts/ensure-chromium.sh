#!/usr/bin/env bash
# Makes sure a Chromium is installed for the catalogue site's browser test, and
# prints its path on stdout. Uses Debian's package `chromium` (apt-get) when it
# is missing and this user is root or may sudo without a password; otherwise it
# says what to do and exits 1. CHROMIUM_PATH names another binary to use.
set -euo pipefail

say() { printf 'ensure-chromium: %s\n' "$*" >&2; }

for candidate in "${CHROMIUM_PATH:-}" /usr/bin/chromium /usr/bin/chromium-browser; do
  if [ -n "$candidate" ] && [ -x "$candidate" ]; then
    printf '%s\n' "$candidate"
    exit 0
  fi
done

if ! command -v apt-get >/dev/null 2>&1; then
  say "Chromium is missing and this machine has no apt-get; install Chromium and set CHROMIUM_PATH to its binary"
  exit 1
fi

if [ "$(id -u)" -eq 0 ]; then
  as_root=()
elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
  as_root=(sudo -n)
else
  say "Chromium is missing; install it with 'sudo apt-get install -y chromium' (this user is not root and cannot sudo without a password)"
  exit 1
fi

export DEBIAN_FRONTEND=noninteractive
apt=("${as_root[@]}" apt-get -o DPkg::Lock::Timeout=300 -y -q)
say "installing Debian's chromium with apt-get"
if ! "${apt[@]}" install chromium >&2; then
  "${apt[@]}" update >&2
  "${apt[@]}" install chromium >&2
fi

if [ -x /usr/bin/chromium ]; then
  printf '%s\n' /usr/bin/chromium
  exit 0
fi
say "apt-get finished but /usr/bin/chromium is still missing"
exit 1
