#!/usr/bin/env bash
# A one-node Ceph cluster with an S3 gateway (RGW) on loopback, for tests and benchmarks.
#
# Usage: ceph-rgw.sh start DIR   starts mon, osd and radosgw with their state under DIR (which must not exist
#                                or be empty), prints "READY <port> <access key id> <secret access key>", returns
#        ceph-rgw.sh stop DIR    stops the daemons started under DIR and removes DIR
#        ceph-rgw.sh serve DIR   start, then stop once stdin closes (the process that started it exited,
#                                however it exited), like scripts/moto-s3.py
#
# Debian 12 packages: ceph-mon ceph-osd radosgw ceph-common (16.2). One monitor speaking msgr2 only with
# authentication off, one OSD on memstore (objects in memory, at most $CEPH_MEMSTORE_BYTES, default 2 GiB: a full
# OSD blocks every write, so benchmarks moving gigabytes raise it), pools of size 1, no ceph-mgr. The short paxos
# intervals matter: with the defaults start-up takes ~12 s and the first calls ~2 s each.
set -euo pipefail

usage() { echo "usage: $0 start|stop|serve DIR" >&2; exit 2; }
[ $# -eq 2 ] || usage
command=$1
dir=$2

free_port() {
    python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# Whether process $1 still runs (a zombie waiting for its reaper does not).
running() {
    [ -r "/proc/$1/stat" ] || return 1
    local state
    state=$(sed 's/.*) //' "/proc/$1/stat" | cut -d' ' -f1)
    [ "$state" != Z ] && [ "$state" != X ]
}

# Everything lives in memory and under DIR, which goes too: SIGKILL loses nothing that is kept.
stop() {
    [ -d "$dir" ] || return 0
    local pidfile pid pids=()
    for pidfile in "$dir"/run/*.pid; do
        [ -f "$pidfile" ] || continue
        pid=$(cat "$pidfile")
        [[ "$pid" =~ ^[0-9]+$ ]] && pids+=("$pid")
    done
    for pid in "${pids[@]}"; do kill -9 "$pid" 2>/dev/null || true; done
    for pid in "${pids[@]}"; do
        for _ in $(seq 100); do running "$pid" || break; sleep 0.05; done
    done
    rm -rf "$dir"
}

fail() {
    echo "ceph-rgw: $*" >&2
    for log in "$dir"/log/*.log; do [ -f "$log" ] && { echo "--- $log" >&2; tail -n 20 "$log" >&2; }; done
    stop
    exit 1
}

start() {
    for program in ceph-mon ceph-osd radosgw radosgw-admin ceph monmaptool; do
        command -v "$program" >/dev/null || { echo "ceph-rgw: $program is missing (scripts/deps.sh ceph-mon ceph-osd radosgw ceph-common)" >&2; exit 1; }
    done
    if [ -e "$dir" ] && [ -n "$(ls -A "$dir")" ]; then echo "ceph-rgw: $dir is not empty" >&2; exit 1; fi
    mkdir -p "$dir"/{run,log,mon,osd}
    dir=$(cd "$dir" && pwd)
    local mon_port rgw_port fsid conf key secret
    mon_port=$(free_port)
    rgw_port=$(free_port)
    fsid=$(python3 -c 'import uuid; print(uuid.uuid4())')
    conf="$dir/ceph.conf"
    cat >"$conf" <<EOF
[global]
fsid = $fsid
mon host = v2:127.0.0.1:$mon_port
mon initial members = a
auth cluster required = none
auth service required = none
auth client required = none
ms bind msgr1 = false
ms bind msgr2 = true
# With authentication off there are no session keys: "secure" connection mode (radosgw's default towards
# the monitor) cannot be negotiated.
ms mon client mode = crc
ms client mode = crc
osd pool default size = 1
osd pool default min size = 1
osd pool default pg num = 8
osd pool default pgp num = 8
osd pool default pg autoscale mode = off
mon allow pool size one = true
mon allow pool delete = true
osd objectstore = memstore
memstore device bytes = ${CEPH_MEMSTORE_BYTES:-2147483648}
osd crush chooseleaf type = 0
paxos propose interval = 0.1
paxos min wait = 0.01
client mount timeout = 20
run dir = $dir/run
admin socket = $dir/run/\$name.asok
pid file = $dir/run/\$name.pid
log file = $dir/log/\$name.log
mon data = $dir/mon/\$id
osd data = $dir/osd/\$id
keyring = $dir/keyring
[client.rgw.a]
rgw frontends = beast endpoint=127.0.0.1:$rgw_port
rgw dns name = 127.0.0.1
EOF
    export CEPH_CONF="$conf"
    touch "$dir/keyring"
    monmaptool --create --fsid "$fsid" --addv a "[v2:127.0.0.1:$mon_port]" "$dir/monmap" >/dev/null 2>&1 || fail "monmaptool failed"
    ceph-mon --mkfs -i a --monmap "$dir/monmap" >/dev/null 2>&1 || fail "ceph-mon --mkfs failed"
    ceph-mon -i a >/dev/null 2>&1 || fail "ceph-mon did not start"

    local osd_uuid id
    osd_uuid=$(python3 -c 'import uuid; print(uuid.uuid4())')
    id=$(timeout 30 ceph osd new "$osd_uuid" 2>/dev/null) || fail "ceph osd new failed"
    mkdir -p "$dir/osd/$id"
    ceph-osd -i "$id" --mkfs --osd-uuid "$osd_uuid" >/dev/null 2>&1 || fail "ceph-osd --mkfs failed"
    ceph-osd -i "$id" >/dev/null 2>&1 || fail "ceph-osd did not start"

    radosgw -n client.rgw.a >/dev/null 2>&1 || fail "radosgw did not start"
    local up=0
    for _ in $(seq 600); do
        if python3 -c "import urllib.request; urllib.request.urlopen('http://127.0.0.1:$rgw_port/', timeout=1)" 2>/dev/null; then up=1; break; fi
        sleep 0.1
    done
    [ $up = 1 ] || fail "radosgw did not answer on 127.0.0.1:$rgw_port within 60 s"

    key=$(python3 -c 'import secrets; print("SKY" + secrets.token_hex(8).upper())')
    secret=$(python3 -c 'import secrets; print(secrets.token_urlsafe(30))')
    timeout 60 radosgw-admin user create --uid test --display-name test --access-key "$key" --secret "$secret" \
        >/dev/null 2>&1 || fail "radosgw-admin user create failed"
    echo "READY $rgw_port $key $secret"
}

case "$command" in
    start) start ;;
    stop) stop ;;
    serve)
        trap stop EXIT
        start
        cat >/dev/null || true
        ;;
    *) usage ;;
esac
