#!/usr/bin/env bash
# Type-checks every package, the acceptance tests, the benchmarks and the examples, one project after another.
set -euo pipefail
cd "$(dirname "$0")/.."
for project in packages/core packages/review packages/node packages/sql test bench examples; do
  [ -n "$(find "$project" -name "*.ts" -not -path "*/node_modules/*" -print -quit)" ] || continue
  echo "typecheck: $project"
  tsc -p "$project/tsconfig.json"
done
