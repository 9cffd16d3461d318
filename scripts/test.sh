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
# Serial: many tests block a thread on a child process or socket, and on a 2-core machine Swift Testing's
# default parallel run starves the 2-thread cooperative pool until nothing moves.
exec swift test --skip-build --no-parallel "$@"
