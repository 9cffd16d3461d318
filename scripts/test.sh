#!/usr/bin/env bash
# Installs what the tests need (Debian packages, PyPI peers) and runs the whole suite.
# Tests start every server they use themselves, on free loopback ports.
set -euo pipefail
cd "$(dirname "$0")/.."
# Every program a test runs (curl, nginx, litmus, rclone, ffmpeg, python3, systemd-analyze, zsh, fish …) is a row
# of scripts/test-programs.txt with the Debian or PyPI package that installs it; those packages are installed
# here, and the check fails the run when a test uses a program the table does not name.
scripts/deps.sh $(awk '$1 !~ /^#/ && NF == 3 && $2 == "debian" { print $3 }' scripts/test-programs.txt | sort -u)
scripts/pip-deps.sh
scripts/check-test-programs.sh
scripts/check-architecture.sh
scripts/check-sizes.sh
swift build --build-tests
# DocC for every library product from the debug build's symbol graphs; any docc warning fails the run.
scripts/docs.sh
# Serial: many tests wait on child processes, sockets and settle windows, and on a 2-core machine the
# cooperative pool has two threads; one test at a time keeps every wait meaningful (~2 minutes in all).
swift test --skip-build --no-parallel "$@"
# The installable binary: scripts/install.sh into a scratch prefix (a static release build in .build/static, a few
# minutes the first time), then --help, --version, serve and an upload with the toolchain hidden. Skipped when
# arguments (e.g. --filter) narrow the run to some tests.
if (($# == 0)); then scripts/check-install.sh; fi
# Every parser's libFuzzer target for a few seconds (instrumented modules are built apart, into .build/fuzz):
# a crash fails the run and leaves its input in Fuzz/crashes/. Skipped when the suite was filtered.
if [[ $# -eq 0 ]]; then scripts/fuzz.sh 3; fi
