#!/usr/bin/env bash
# Installs what the tests need (Debian packages, PyPI peers) and runs the whole suite.
# Tests start every server they use themselves, on free loopback ports.
set -euo pipefail
cd "$(dirname "$0")/.."
# Peers the tests talk to: curl (HTTP client), litmus (WebDAV suite), rclone (WebDAV client).
# ffmpeg: a real player decoding through `skylift proxy`.
scripts/deps.sh curl litmus rclone ffmpeg
scripts/pip-deps.sh
swift build --build-tests
# Serial: many tests wait on child processes, sockets and settle windows, and on a 2-core machine the
# cooperative pool has two threads; one test at a time keeps every wait meaningful (~2 minutes in all).
swift test --skip-build --no-parallel "$@"
# Every parser's libFuzzer target for a few seconds (instrumented modules are built apart, into .build/fuzz):
# a crash fails the run and leaves its input in Fuzz/crashes/. Skipped when the suite was filtered.
if [[ $# -eq 0 ]]; then scripts/fuzz.sh 3; fi
