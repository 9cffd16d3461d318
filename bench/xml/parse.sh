#!/usr/bin/env bash
# bench/xml/parse.sh: XMLReader alone, in one process: parse rate and RSS growth over N parses of a PROPFIND body
# and of an S3 ListParts answer (bench/xml/parse.swift), built with swiftc -O against SkyliftCore as it is in
# REV (default: the working tree), so two revisions compare with the same driver.
# Usage: bench/xml/parse.sh [N] [REV]      e.g. bench/xml/parse.sh 20000 cf55715 (before the own parser)
set -euo pipefail
. "$(dirname "$0")/../quiet.sh"
quiet_begin
cd "$(dirname "$0")/../.."
N="${1:-20000}"
REV="${2:-}"
WORK=$(mktemp -d /tmp/skylift-bench-xmlparse.XXXXXX)
trap 'quiet_end; rm -rf "$WORK"' EXIT
if [ -n "$REV" ]; then
    git archive "$REV" Sources/SkyliftCore | tar -x -C "$WORK"
    SOURCES="$WORK/Sources/SkyliftCore"
else
    SOURCES=Sources/SkyliftCore
fi
swiftc -O -parse-as-library -swift-version 6 -module-name XMLParseBench bench/xml/parse.swift $(find "$SOURCES" -name '*.swift' | sort) -o "$WORK/parse"
echo "XMLReader of ${REV:-the working tree}:"
"$WORK/parse" "$N"
