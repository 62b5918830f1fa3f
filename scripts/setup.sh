#!/usr/bin/env bash
# Set-up for a fresh machine: Node 22 and pnpm (cached outside the checkout), then the workspace's dependencies.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/toolchain.sh
pnpm install --frozen-lockfile >&2
