#!/usr/bin/env bash
# Runs a command while every core is kept busy (one busy loop per `nproc`), the way a loaded
# CI machine runs it, then stops the loops and exits with the command's exit code. The loops
# stop when the command ends and on Ctrl-C; should this script be killed outright (kill -9),
# each loop notices within a second or two that it is gone and stops.
#
# Usage: scripts/under-load.sh <command> [args...]     e.g. scripts/under-load.sh ./pbw test
set -u

if [ $# -eq 0 ]; then
  echo "usage: $0 <command> [args...]" >&2
  exit 2
fi

burners=()
stop_burners() {
  [ ${#burners[@]} -eq 0 ] && return
  kill "${burners[@]}" 2>/dev/null
  wait "${burners[@]}" 2>/dev/null
  burners=()
}
trap stop_burners EXIT
trap 'stop_burners; exit 130' INT
trap 'stop_burners; exit 143' TERM HUP

me=$$
cores="$(nproc)"
for _ in $(seq "$cores"); do
  (
    i=0
    while :; do
      i=$((i + 1))
      if [ $((i % 100000)) -eq 0 ]; then kill -0 "$me" 2>/dev/null || exit 0; fi
    done
  ) &
  burners+=($!)
done
echo "under-load: $cores busy loops on $cores cores while running: $*" >&2

# In the foreground, so the command keeps its terminal, its stdin and its Ctrl-C.
"$@"
code=$?
stop_burners
exit "$code"
