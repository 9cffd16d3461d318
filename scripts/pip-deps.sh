#!/usr/bin/env bash
# PyPI peers for tests: tuspy (a tus client no one here wrote); moto[server] (an S3 server) and its botocore
# (the reference SigV4 signer) for the S3 tests; aiohttp-tus (a tus server) and wsgidav on cheroot (a WebDAV
# server) for the upload tests; selenium drives headless Chromium for the web app's tests.
set -euo pipefail
PKGS=(tuspy "moto[server]" flask-cors aiohttp-tus wsgidav cheroot selenium)
missing=()
for p in "${PKGS[@]}"; do python3 -m pip show -q "${p%%\[*}" >/dev/null 2>&1 || missing+=("$p"); done
if ((${#missing[@]})); then
    echo "pip installing: ${missing[*]}" >&2
    python3 -m pip install -q --disable-pip-version-check "${missing[@]}"
fi
