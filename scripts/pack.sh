#!/usr/bin/env bash
# `pnpm pack:all DIR`: every package built and packed into DIR as the tarball npm installs, then checked. pnpm pack
# writes each `workspace:` range as the version it stands for; the check refuses a tarball that still holds one, that
# lacks its LICENSE (the project's own) or README, or that ships the build's own files (tsbuildinfo) or tests, and
# packages whose versions differ (they are released together, at one version). Prints the tarballs' paths, one a line.
set -euo pipefail
[ $# -eq 1 ] || { echo "usage: pnpm pack:all DIR" >&2; exit 2; }
# pnpm runs a script in the workspace's root: DIR is relative to where it was called from.
dir="$(cd "${INIT_CWD:-$PWD}" && mkdir -p "$1" && cd "$1" && pwd)"
cd "$(dirname "$0")/.."
packages=(core review node sql)

versions="$(for package in "${packages[@]}"; do node -p "require('./packages/$package/package.json').version"; done | sort -u)"
if [ "$(wc -l <<<"$versions")" -ne 1 ]; then
  echo "mneme: the packages' versions differ ($(tr '\n' ' ' <<<"$versions")): give them one version" >&2
  exit 1
fi

for package in "${packages[@]}"; do
  cmp -s LICENSE "packages/$package/LICENSE" || {
    echo "mneme: packages/$package/LICENSE is not the project's LICENSE: copy it there" >&2
    exit 1
  }
done

pnpm build >&2
for package in "${packages[@]}"; do
  tarball="$(cd "packages/$package" && pnpm pack --pack-destination "$dir" | tail -n 1)"
  files="$(tar -tzf "$tarball")"
  for needed in package/package.json package/LICENSE package/README.md package/dist/index.js package/dist/index.d.ts; do
    grep -qx "$needed" <<<"$files" || { echo "mneme: $tarball has no ${needed#package/}" >&2; exit 1; }
  done
  if grep -E '\.tsbuildinfo$|(^|/)test/|\.test\.' <<<"$files" >&2; then
    echo "mneme: $tarball ships the files above, which are the build's or the tests'" >&2
    exit 1
  fi
  if tar -xzOf "$tarball" package/package.json | grep -n 'workspace:' >&2; then
    echo "mneme: $tarball still names the workspace protocol (above), which npm cannot install" >&2
    exit 1
  fi
  echo "$tarball"
done
