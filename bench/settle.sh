# Sourced by benchmarks that time large writes: `settle MIB` before each timed run.
#
# This VM hands freed memory back to its host (virtio-balloon free page reporting, ~2 s after a free), and the
# first write into such a page faults on the host: that added up to 3 s of system time to whichever 1 GiB
# upload or PUT got those pages, and which one did followed the order of the runs, not the program. So: wait
# until what the last run freed has been handed back (3 s), then write and free MIB + 64 MiB of tmpfs memory
# (outside the timing; page cache and tmpfs draw on the same free memory), so the run writes into pages the host
# backs. SETTLE=0 turns it off.
settle() {
    [ "${SETTLE:-1}" = 1 ] || return 0
    sleep 3
    local warm=/dev/shm/skylift-bench-warm.$$
    head -c $((($1 + 64) << 20)) /dev/zero > "$warm"
    rm -f "$warm"
}
