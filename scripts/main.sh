#!/usr/bin/env bash
# The main job, offline: set up, build, review the example transcript with its recorded answers into a fresh memory
# folder (./memory-example), then show the memory it made. No model server is needed. Ends by naming the `mneme`
# command it built, which runs from any folder.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
source scripts/toolchain.sh
pnpm -s build >&2
mneme="$PWD/packages/node/bin/mneme"
rm -rf memory-example
"$mneme" review examples/transcript.jsonl --model replay:examples/answers.jsonl --memory memory-example
"$mneme" show --memory memory-example
echo >&2
echo "mneme: the command is $mneme (runs from any folder; to type just mneme: export PATH=\"$(dirname "$mneme"):\$PATH\")" >&2
