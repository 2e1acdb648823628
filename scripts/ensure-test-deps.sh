#!/usr/bin/env bash
# Test dependencies that npm cannot provide: Debian's Chromium for the browser tests
# (test/site), driven by playwright-core. Playwright cannot download its own browsers here, so
# the distribution's package is the browser. CI runs as root; elsewhere sudo is used if present.
set -euo pipefail

if [ -x /usr/bin/chromium ]; then exit 0; fi

SUDO=""
if [ "$(id -u)" -ne 0 ]; then
  if command -v sudo >/dev/null; then SUDO="sudo"; else
    echo "ensure-test-deps: /usr/bin/chromium is missing and this user cannot apt-get install it" >&2
    exit 1
  fi
fi

echo "ensure-test-deps: installing Debian chromium for the browser tests" >&2
export DEBIAN_FRONTEND=noninteractive
# Another apt run (a parallel session, unattended upgrades) may hold the lock: wait for it.
$SUDO apt-get -o DPkg::Lock::Timeout=600 update -qq
$SUDO apt-get -o DPkg::Lock::Timeout=600 install -y -qq --no-install-recommends chromium >/dev/null
/usr/bin/chromium --version >&2
