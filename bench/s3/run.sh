#!/usr/bin/env bash
# S3 multipart upload: Skylift's upload engine (parallel parts) vs the AWS CLI (`aws s3 cp`, PyPI awscli), to
# moto and to a one-node Ceph RGW (scripts/ceph-rgw.sh), both on loopback, in the same run.
#   bench/s3/run.sh [SIZE_MIB] [PARTS]      (defaults: 1024 MiB, 10 parts = the AWS CLI's max_concurrent_requests)
# Both use 8 MiB parts. Prints wall time, throughput and peak RSS of each client per peer, and the ratio.
set -euo pipefail
. "$(dirname "$0")/../quiet.sh"
quiet_begin
cd "$(dirname "$0")/../.."
SIZE_MIB=${1:-1024}
PARTS=${2:-10}
WORK=$(mktemp -d /tmp/s3-bench.XXXXXX)
MOTO_PID=""
cleanup() {
    quiet_end
    [ -n "$MOTO_PID" ] && kill "$MOTO_PID" 2>/dev/null
    [ -d "$WORK/rgw" ] && scripts/ceph-rgw.sh stop "$WORK/rgw" >/dev/null 2>&1
    rm -rf "$WORK"
}
trap cleanup EXIT

scripts/deps.sh curl bc time ceph-mon ceph-osd radosgw ceph-common
scripts/pip-deps.sh
python3 -m pip show -q awscli >/dev/null 2>&1 || python3 -m pip install -q --disable-pip-version-check awscli
swift build -c release --target SkyliftUploads >/dev/null
# The objects of the current sources only (a removed source file leaves its stale object behind).
objects() { for m in "$@"; do python3 -c 'import json,sys; print("\n".join(v["object"] for k, v in json.load(open(sys.argv[1])).items() if k.endswith(".swift") and "object" in v))' ".build/release/$m.build/output-file-map.json"; done; }
mapfile -t OBJECTS < <(objects SkyliftUploads SkyliftRemotes SkyliftBlobStream SkyliftHashing SkyliftHTTPClient SkyliftCore SkyliftSystem)
swiftc -O -parse-as-library bench/s3/main.swift -module-name S3Bench -I .build/release/Modules \
    -Xcc -fmodule-map-file=Sources/CCurl/module.modulemap -Xcc -fmodule-map-file=Sources/CCrypto/module.modulemap \
    "${OBJECTS[@]}" -lcurl -lcrypto -o "$WORK/s3-bench"
head -c $((SIZE_MIB << 20)) /dev/urandom > "$WORK/blob"

export AWS_REGION=us-east-1 AWS_CONFIG_FILE="$WORK/aws-config" AWS_SHARED_CREDENTIALS_FILE="$WORK/aws-credentials"
printf '[default]\ns3 =\n  max_concurrent_requests = %s\n  multipart_chunksize = 8MB\n  multipart_threshold = 8MB\n' "$PARTS" > "$AWS_CONFIG_FILE"

run() { # command... → "seconds peak_kib"
    /usr/bin/time -f "%e %M" -o "$WORK/time" "$@" >/dev/null
    cat "$WORK/time"
}

# One peer: aws s3 cp, then skylift, into the same bucket; checks the size; prints the figures.
compare() { # label
    local bucket="bench-$RANDOM"
    aws s3 mb "s3://$bucket" >/dev/null
    read -r aws_s aws_kib < <(run aws s3 cp --only-show-errors "$WORK/blob" "s3://$bucket/aws")
    aws s3 rm --only-show-errors "s3://$bucket/aws"
    read -r our_s our_kib < <(run "$WORK/s3-bench" "$WORK/blob" "s3://$bucket/" skylift "$PARTS")
    size=$(aws s3api head-object --bucket "$bucket" --key skylift --query ContentLength --output text)
    [ "$size" = $((SIZE_MIB << 20)) ] || { echo "$1: uploaded object has $size bytes" >&2; exit 1; }
    aws s3 rm --only-show-errors "s3://$bucket/skylift"
    echo "$1 on loopback, ${SIZE_MIB} MiB, ${PARTS} parts in flight, 8 MiB parts"
    printf '  aws s3 cp   %6.2f s  %7.1f MiB/s  peak RSS %6d KiB\n' "$aws_s" "$(echo "$SIZE_MIB / $aws_s" | bc -l)" "$aws_kib"
    printf '  skylift     %6.2f s  %7.1f MiB/s  peak RSS %6d KiB\n' "$our_s" "$(echo "$SIZE_MIB / $our_s" | bc -l)" "$our_kib"
    printf '  ratio (skylift / aws) %.2f\n' "$(echo "$aws_s / $our_s" | bc -l)"
}

PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
moto_server -H 127.0.0.1 -p "$PORT" >"$WORK/moto.log" 2>&1 &
MOTO_PID=$!
for _ in $(seq 100); do curl -fs "http://127.0.0.1:$PORT/" >/dev/null 2>&1 && break; sleep 0.1; done
AWS_ENDPOINT_URL="http://127.0.0.1:$PORT" AWS_ACCESS_KEY_ID=bench AWS_SECRET_ACCESS_KEY=bench-secret compare moto
kill "$MOTO_PID"; MOTO_PID=""

read -r _ rgw_port rgw_key rgw_secret < <(scripts/ceph-rgw.sh start "$WORK/rgw" | grep '^READY')
AWS_ENDPOINT_URL="http://127.0.0.1:$rgw_port" AWS_ACCESS_KEY_ID="$rgw_key" AWS_SECRET_ACCESS_KEY="$rgw_secret" compare "Ceph RGW 16.2"
