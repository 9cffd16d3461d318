#!/usr/bin/env bash
# skylift watch benchmark, beside watchman on the same tree in the same run:
#   1. latency from a file's last write to its `settled` report, against the settle window
#   2. CPU used by an idle agent (and an idle watchman) over IDLE_SECONDS, from /proc/<pid>/stat
#   3. time and peak memory of the initial scan of a FILES-file tree: skylift's crawl vs watchman's crawl
# Usage: bench/watch/run.sh            (FILES=100000 IDLE_SECONDS=60 LATENCY_FILES=10 SETTLES="0.5 1 2")
#        FILES=5000 IDLE_SECONDS=5 LATENCY_FILES=3 SETTLES=0.5 bench/watch/run.sh   (quick check)
set -euo pipefail
. "$(dirname "$0")/../quiet.sh"
quiet_begin
trap quiet_end EXIT
cd "$(dirname "$0")/../.."
scripts/deps.sh watchman python3 >/dev/null
swift build -c release --product skylift >/dev/null
export SKYLIFT_BIN="$PWD/.build/release/skylift"
export FILES="${FILES:-100000}" IDLE_SECONDS="${IDLE_SECONDS:-60}" LATENCY_FILES="${LATENCY_FILES:-10}" SETTLES="${SETTLES:-0.5 1 2}"
exec python3 bench/watch/bench.py
