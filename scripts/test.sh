#!/usr/bin/env bash
# Installs what the tests need (Debian packages, PyPI peers) and runs the whole suite.
# Tests start every server they use themselves, on free loopback ports.
set -euo pipefail
cd "$(dirname "$0")/.."
# Peers the tests talk to: curl (HTTP client), litmus (WebDAV suite), rclone (WebDAV client).
# ffmpeg: a real player decoding through `skylift proxy`. ceph-mon ceph-osd radosgw ceph-common: a one-node
# Ceph RGW for the S3 tests (scripts/ceph-rgw.sh).
scripts/deps.sh curl litmus rclone ffmpeg ceph-mon ceph-osd radosgw ceph-common
scripts/pip-deps.sh
swift build --build-tests
# Serial: many tests wait on child processes, sockets and settle windows, and on a 2-core machine the
# cooperative pool has two threads; one test at a time keeps every wait meaningful (~2 minutes in all).
exec swift test --skip-build --no-parallel "$@"
