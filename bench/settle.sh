# Sourced by benchmarks that time large writes: `settle_begin` once, `settle MIB` before each timed run, `settle_done`
# in the script's exit trap.
#
# This VM hands freed memory back to its host (virtio-balloon free page reporting), and the first write into
# such a page faults on the host. A 1 GiB tmpfs write here takes 0.7 s of system time into pages the guest
# still holds and 2-3.5 s into pages it has handed back (`head -c 1G /dev/zero > /dev/shm/x`, 4 s after the
# last free), and with `min_free_ms` at 0 pages go back within a second of being freed: 90 MiB of a freed
# 1 GiB within 0.5 s, 420 MiB within 3.5 s (`reported_kib` under /sys/module/page_reporting/parameters). Which
# PUT or upload of a run got such pages followed the timing of the runs, not the program, and made single
# rounds differ by a factor of three.
#
# So, where this shell may (root, and the kernel offers the parameter), `settle_begin` holds reporting
# off for the rest of the run by raising `page_reporting_order` above the largest block the kernel allocates
# (then no free block is large enough to be reported), and `settle_done` puts the old value back. The memory
# freed meanwhile goes back to the host after the run. HOLD_REPORTING=0 leaves reporting alone.
# Where it cannot be held, `settle` falls back to what it did before: wait until what the last run freed has
# been handed back (3 s), then write and free MIB + 64 MiB of tmpfs memory outside the timing, so the run
# writes into pages the host backs. SETTLE=0 turns both off.
SETTLE_REPORTING_ORDER=/sys/module/page_reporting/parameters/page_reporting_order
SETTLE_HELD_ORDER=""
# Above x86-64's largest buddy block (order 10): no free block is ever large enough to be reported.
SETTLE_HOLD_ORDER=11
# Holds reporting off where it can; call it once, from the script's own shell (not a subshell), after sourcing.
settle_begin() {
    [ "${SETTLE:-1}" = 1 ] && [ "${HOLD_REPORTING:-1}" = 1 ] && [ -w "$SETTLE_REPORTING_ORDER" ] || return 0
    local order
    order=$(cat "$SETTLE_REPORTING_ORDER")
    [ "$order" = "$SETTLE_HOLD_ORDER" ] && return 0 # held already, by a run that is still going: leave it to that run
    if echo "$SETTLE_HOLD_ORDER" > "$SETTLE_REPORTING_ORDER" 2>/dev/null; then
        SETTLE_HELD_ORDER=$order
        echo "settle: free page reporting held off for this run (page_reporting_order $order -> $SETTLE_HOLD_ORDER, put back at exit)" >&2
    fi
}
settle() {
    [ "${SETTLE:-1}" = 1 ] || return 0
    [ -r "$SETTLE_REPORTING_ORDER" ] && [ "$(cat "$SETTLE_REPORTING_ORDER")" = "$SETTLE_HOLD_ORDER" ] && return 0
    sleep 3
    local warm=/dev/shm/skylift-bench-warm.$$
    head -c $((($1 + 64) << 20)) /dev/zero > "$warm"
    rm -f "$warm"
}
settle_done() {
    [ -n "$SETTLE_HELD_ORDER" ] || return 0
    echo "$SETTLE_HELD_ORDER" > "$SETTLE_REPORTING_ORDER" && SETTLE_HELD_ORDER=""
}
