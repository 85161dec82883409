#!/usr/bin/env bash
# redis-server for the SDK's shared-budget tests: REDIS_SERVER, else Debian's
# redis-server (installed when missing). Prints its path on stdout. The tests
# start their own server on 127.0.0.1 (a free port, a temporary folder, no
# persistence) and never use a service the package may have started.
exec "$(dirname "$0")/../../../tools/ensure-debian-package.sh" redis-server REDIS_SERVER \
  "$(command -v redis-server 2>/dev/null || true)" /usr/bin/redis-server /usr/local/bin/redis-server
