#!/usr/bin/env bash
# Builds Skylift (release) and runs the main job: the embedded cloud serving the default store.
# Extra arguments go to `skylift serve`.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/deps.sh
swift build -c release --product skylift
exec .build/release/skylift serve "$@"
