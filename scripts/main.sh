#!/usr/bin/env bash
# The main job, offline: set up, build, review the example transcript with its recorded answers into a fresh memory
# folder (./memory-example), then show the memory it made. No model server is needed.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
source scripts/toolchain.sh
pnpm -s --filter @mneme/node run build
rm -rf memory-example
pnpm -s exec mneme review examples/transcript.jsonl --model replay:examples/answers.jsonl --memory memory-example
pnpm -s exec mneme show --memory memory-example
