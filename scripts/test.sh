#!/usr/bin/env bash
# Set-up and tests in one: Node 22 and pnpm, dependencies, Chromium for the browser tests, PostgreSQL for the
# Postgres backend's tests, type-check of every package, then every test.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
bash scripts/chromium.sh
bash scripts/postgres.sh
source scripts/toolchain.sh
pnpm test
