#!/usr/bin/env bash
# Prints the path of redis-server for the benchmarks (tools/bench/lib.mjs) after
# scripts/ensure-system.sh found or installed it (its report goes to stderr).
set -euo pipefail
bash "$(dirname "$0")/../../../scripts/ensure-system.sh" >&2
command -v redis-server
