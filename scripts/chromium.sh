#!/usr/bin/env bash
# Debian's Chromium for the panel's browser tests (driven by playwright-core at /usr/bin/chromium), installed with
# apt-get when it is missing. Needs root and Debian's packages; without them it says what to install, and fails.
set -euo pipefail
[ -x /usr/bin/chromium ] && exit 0
if [ "$(id -u)" != 0 ] || ! command -v apt-get >/dev/null 2>&1; then
  echo "mneme: the panel's browser tests need Debian's chromium at /usr/bin/chromium: install it as root" \
    "(apt-get install -y chromium)" >&2
  exit 1
fi
echo "mneme: installing chromium for the panel's browser tests" >&2
if ! { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium; } >/tmp/mneme-chromium.log 2>&1; then
  echo "mneme: apt-get could not install chromium (see /tmp/mneme-chromium.log):" >&2
  tail -n 5 /tmp/mneme-chromium.log >&2
  exit 1
fi
[ -x /usr/bin/chromium ] || { echo "mneme: chromium was installed, but /usr/bin/chromium is not there" >&2; exit 1; }
