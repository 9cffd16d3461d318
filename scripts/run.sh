#!/usr/bin/env bash
# Builds Skylift (release) and runs the main job: `skylift watch`, backing a folder up into the embedded
# cloud with nothing to configure. With no arguments it watches ~/Pictures (created if missing); otherwise
# the arguments go to `skylift watch` (DIR first). `skylift serve` runs the embedded cloud alone.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/deps.sh
swift build -c release --product skylift
if (($# == 0)); then
    mkdir -p "$HOME/Pictures"
    set -- "$HOME/Pictures"
fi
exec .build/release/skylift watch "$@"
