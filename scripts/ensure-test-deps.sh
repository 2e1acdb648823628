#!/usr/bin/env bash
# Test dependencies that npm cannot provide, from Debian: Chromium for the browser tests
# (test/site), driven by playwright-core (Playwright cannot download its own browsers here, so the
# distribution's package is the browser); and the behaviour sandbox's tools (functions/sandbox):
# bubblewrap, strace, nftables and iproute2 for its network, util-linux for setpriv and nsenter,
# faketime for its pass a year ahead, python3 for its first process, and Ruby and Go, which the
# steps of a version run its `.rb` scripts and Go programs with (Go is the largest: about 80 MB
# to download, its standard library precompiled, so `go run` builds in about a second). CI runs
# as root; elsewhere sudo is used if present.
set -euo pipefail

# Each package, with the file that shows it is installed.
declare -A needed=(
  [chromium]=/usr/bin/chromium
  [bubblewrap]=/usr/bin/bwrap
  [strace]=/usr/bin/strace
  [nftables]=/usr/sbin/nft
  [iproute2]=/usr/sbin/ip
  [util-linux]=/usr/bin/nsenter
  [faketime]=/usr/bin/faketime
  [python3]=/usr/bin/python3
  [ruby]=/usr/bin/ruby
  [golang-go]=/usr/bin/go
)
missing=()
for package in "${!needed[@]}"; do
  [ -x "${needed[$package]}" ] || missing+=("$package")
done
if [ ${#missing[@]} -eq 0 ]; then exit 0; fi

SUDO=""
if [ "$(id -u)" -ne 0 ]; then
  if command -v sudo >/dev/null; then SUDO="sudo"; else
    echo "ensure-test-deps: ${missing[*]} missing and this user cannot apt-get install them" >&2
    exit 1
  fi
fi

echo "ensure-test-deps: installing Debian ${missing[*]} for the tests" >&2
export DEBIAN_FRONTEND=noninteractive
# Another apt run (a parallel session, unattended upgrades) may hold the lock: wait for it.
$SUDO apt-get -o DPkg::Lock::Timeout=600 update -qq
$SUDO apt-get -o DPkg::Lock::Timeout=600 install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
