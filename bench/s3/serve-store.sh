#!/usr/bin/env bash
# `skylift serve --store s3://…` against the same transfers made straight to the bucket with boto3, on a one-node
# Ceph RGW (scripts/ceph-rgw.sh) on loopback, in the same run.
#   bench/s3/serve-store.sh [SIZE_MIB] [ROUNDS]      (defaults: 1024 MiB, 3 rounds; BIN=<skylift> to skip the build)
# (1) PUT of SIZE_MIB through serve (curl -T) vs boto3's upload_fileobj with the same 8 MiB parts and one part in
#     flight, as serve's write sends them; (2) GET of it through serve (curl -o /dev/null) vs boto3's get_object
#     read as one stream, both dropping the bytes (the object read through serve is checked in an untimed GET); (3) 8 PUTs of SIZE_MIB/8 at once through serve, and serve's peak RSS (VmHWM) over the whole run.
# One untimed PUT each warms RGW first. Prints the median seconds of each over ROUNDS (taking turns; three turns of
# GETs a round) and the ratio (boto3 time / serve time: 1.0 is as
# fast; goal >= 0.9), and checks every object's SHA-256.
set -euo pipefail
. "$(dirname "$0")/../quiet.sh"
quiet_begin
cd "$(dirname "$0")/../.."
SIZE_MIB=${1:-1024}
ROUNDS=${2:-3}
WORK=$(mktemp -d /dev/shm/serve-store-bench.XXXXXX)
SERVE_PID=""
cleanup() {
    quiet_end
    [ -n "$SERVE_PID" ] && kill "$SERVE_PID" 2>/dev/null
    [ -d "$WORK/rgw" ] && scripts/ceph-rgw.sh stop "$WORK/rgw" >/dev/null 2>&1
    rm -rf "$WORK"
}
trap cleanup EXIT

scripts/deps.sh curl ceph-mon ceph-osd radosgw ceph-common >/dev/null
scripts/pip-deps.sh >/dev/null
if [ -z "${BIN:-}" ]; then
    swift build -c release --product skylift >&2
    BIN="$(swift build -c release --show-bin-path)/skylift"
fi

head -c $((SIZE_MIB << 20)) /dev/urandom > "$WORK/blob"
SUM=$(sha256sum "$WORK/blob" | cut -d' ' -f1)
PIECE=$((SIZE_MIB / 8))
for i in $(seq 8); do head -c $((PIECE << 20)) "$WORK/blob" > "$WORK/piece$i"; done

# Room for every object the rounds and the warm-up write (RGW frees deleted data only later): a full OSD blocks all
# writes.
read -r _ RGW_PORT RGW_KEY RGW_SECRET < <(CEPH_MEMSTORE_BYTES=$(( (4 * ROUNDS + 5) * SIZE_MIB << 20 )) scripts/ceph-rgw.sh start "$WORK/rgw" | grep '^READY')
export AWS_ENDPOINT_URL="http://127.0.0.1:$RGW_PORT" AWS_ACCESS_KEY_ID="$RGW_KEY" AWS_SECRET_ACCESS_KEY="$RGW_SECRET" AWS_REGION=us-east-1
BUCKET="serve-bench-$RANDOM"
python3 - "$BUCKET" <<'PY'
import os, sys, boto3
from botocore.config import Config
boto3.client("s3", config=Config(s3={"addressing_style": "path"})).create_bucket(Bucket=sys.argv[1])
PY

PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
"$BIN" serve --store "s3://$BUCKET/store/" --s3-addressing path --no-auth --quiet --listen "127.0.0.1:$PORT" >"$WORK/serve.log" 2>&1 &
SERVE_PID=$!
for _ in $(seq 100); do curl -fs -o /dev/null "http://127.0.0.1:$PORT/dav/" && break; sleep 0.1; done
DAV="http://127.0.0.1:$PORT/dav"

# boto3 with serve's settings: 8 MiB parts, one in flight; a GET read as one stream. Prints seconds.
boto() { # put|get KEY
    python3 - "$1" "$BUCKET" "$2" "$WORK/blob" <<'PY'
import sys, time, hashlib, boto3
from boto3.s3.transfer import TransferConfig
from botocore.config import Config
op, bucket, key, path = sys.argv[1:5]
s3 = boto3.client("s3", config=Config(s3={"addressing_style": "path"}))
t = time.perf_counter()
if op == "put":
    with open(path, "rb") as f:
        s3.upload_fileobj(f, bucket, key, Config=TransferConfig(multipart_threshold=8 << 20, multipart_chunksize=8 << 20,
                                                                 max_concurrency=1, use_threads=False))
elif op == "sha":
    body = s3.get_object(Bucket=bucket, Key="store/" + key + ".bin")["Body"]
    h = hashlib.sha256()
    for chunk in iter(lambda: body.read(1 << 20), b""):
        h.update(chunk)
    print("the object in the bucket has SHA-256", h.hexdigest())
    sys.exit(0)
else:
    body = s3.get_object(Bucket=bucket, Key=key)["Body"]
    for chunk in iter(lambda: body.read(1 << 20), b""):
        pass
print(f"{time.perf_counter() - t:.3f}")
PY
}
seconds() { python3 -c 'import sys, time; print(f"{float(sys.argv[1]):.3f}")' "$1"; }
median() { python3 -c 'import sys, statistics; print(f"{statistics.median(float(x) for x in sys.argv[1:]):.3f}")' "$@"; }

# Untimed: a fresh RGW's first gigabyte goes in at half speed (its memstore allocating), whoever sends it.
boto put warm.bin >/dev/null
curl -sf -o /dev/null -T "$WORK/blob" "$DAV/warm.bin"

SP=() BP=() SG=() BG=() PAR=()
for round in $(seq "$ROUNDS"); do
    BP+=("$(boto put boto.bin)")
    t=$(curl -sf -o /dev/null -w '%{time_total}' -T "$WORK/blob" "$DAV/serve.bin"); SP+=("$(seconds "$t")")
    # GETs write nothing to the bucket, so each round takes three turns: RGW's own time per GET swings by 2x.
    for turn in 1 2 3; do
        BG+=("$(boto get boto.bin)")
        got=$(curl -sf "$DAV/serve.bin" -w '%{time_total}' -o /dev/null)
        SG+=("$(seconds "$got")")
    done
    # Checked untimed: both timed GETs drop the bytes as they come, so neither pays for hashing or storing them.
    if [ "$(curl -sf "$DAV/serve.bin" | sha256sum | cut -d' ' -f1)" != "$SUM" ]; then
        echo "the object read through serve differs from what was put (expected SHA-256 $SUM)" >&2
        boto sha serve >&2 || true
        exit 1
    fi
    start=$(date +%s.%N)
    puts=()
    for i in $(seq 8); do curl -sf -o /dev/null -T "$WORK/piece$i" "$DAV/piece$i.bin" & puts+=($!); done
    for p in "${puts[@]}"; do wait "$p" || { echo "a parallel PUT through serve failed" >&2; exit 1; }; done
    PAR+=("$(python3 -c "import sys; print(f'{float(sys.argv[2]) - float(sys.argv[1]):.3f}')" "$start" "$(date +%s.%N)")")
done
HWM=$(awk '/VmHWM/ {print $2}' "/proc/$SERVE_PID/status")
[ "$(curl -s "$DAV/serve.bin" | sha256sum | cut -d' ' -f1)" = "$SUM" ] || { echo "the stored object differs" >&2; exit 1; }

echo "serve --store on Ceph RGW 16.2 (memstore) on loopback, ${SIZE_MIB} MiB, 8 MiB parts, one in flight; median of $ROUNDS (GETs: of $((3 * ROUNDS)))"
ratio() { python3 -c 'import sys; print(f"{float(sys.argv[1]) / float(sys.argv[2]):.2f}")' "$1" "$2"; }
bp=$(median "${BP[@]}") sp=$(median "${SP[@]}") bg=$(median "${BG[@]}") sg=$(median "${SG[@]}") par=$(median "${PAR[@]}")
printf '  PUT  boto3 %7.2f s   serve %7.2f s   ratio %s   (runs: %s | %s)\n' "$bp" "$sp" "$(ratio "$bp" "$sp")" "${BP[*]}" "${SP[*]}"
printf '  GET  boto3 %7.2f s   serve %7.2f s   ratio %s   (runs: %s | %s)\n' "$bg" "$sg" "$(ratio "$bg" "$sg")" "${BG[*]}" "${SG[*]}"
printf '  8 PUTs of %s MiB at once through serve: %.2f s (runs: %s)\n' "$PIECE" "$par" "${PAR[*]}"
printf '  serve peak RSS over the run: %.1f MiB (goal <= 64 MiB)\n' "$(echo "$HWM / 1024" | bc -l)"
