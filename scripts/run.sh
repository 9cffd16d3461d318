#!/usr/bin/env bash
# Builds Skylift (release, with the Swift runtime linked in, the same binary scripts/install.sh installs: it
# loads fewer libraries and peaks lower than a dynamic build, see BENCHMARKS.md) and runs the main job:
# `skylift watch`, backing a folder up into the embedded cloud with nothing to configure. With no arguments it watches ~/Pictures (created if missing); otherwise
# the arguments go to `skylift watch` (DIR first). `skylift serve` runs the embedded cloud alone.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/deps.sh
BUILD=(swift build -c release --static-swift-stdlib --scratch-path .build/static)
"${BUILD[@]}" --product skylift
BIN="$("${BUILD[@]}" --show-bin-path)/skylift"
if (($# == 0)); then
    mkdir -p "$HOME/Pictures"
    set -- "$HOME/Pictures"
fi
exec "$BIN" watch "$@"
