#!/usr/bin/env bash
# Set-up and tests in one: Node 22 and pnpm, dependencies, type-check of every package, then every test.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
source scripts/toolchain.sh
pnpm test
