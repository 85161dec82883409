#!/usr/bin/env bash
# Chromium for the catalogue site's browser test: CHROMIUM_PATH, else Debian's
# chromium (installed when missing). Prints its path on stdout.
exec "$(dirname "$0")/../../../tools/ensure-debian-package.sh" chromium CHROMIUM_PATH /usr/bin/chromium /usr/bin/chromium-browser
