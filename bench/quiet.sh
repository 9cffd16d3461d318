# Sourced by every benchmark: a figure counts only from a quiet machine. On two cores a busy machine slows the
# peer as much as Skylift, so a ratio measured beside a build or a test run says nothing (0.44x read as 1.27x).
#
# `quiet_begin` prints the load average and refuses to start when the last minute's is above QUIET_MAX (1.0);
# FORCE=1 runs anyway and says, at start and at the end, that the figures were taken on a busy machine.
# `quiet_end` (in the script's exit trap) prints the load at the end, so every output carries both.
QUIET_MAX=${QUIET_MAX:-1.0}
QUIET_FORCED=0

quiet_load() { cut -d' ' -f1-3 /proc/loadavg; }

quiet_begin() {
    local load one
    load=$(quiet_load)
    one=${load%% *}
    echo "load average at start: $load (1, 5, 15 min)"
    if awk -v l="$one" -v m="$QUIET_MAX" 'BEGIN { exit !(l > m) }'; then
        if [ "${FORCE:-0}" = 1 ]; then
            QUIET_FORCED=1
            echo "FORCE=1: running on a busy machine (load $one > $QUIET_MAX); these figures do not count"
        else
            echo "$(basename "$0"): the machine is busy (load $one > $QUIET_MAX): wait for it to settle, or FORCE=1 to run anyway" >&2
            exit 3
        fi
    fi
}

quiet_end() {
    echo "load average at end: $(quiet_load)$([ "$QUIET_FORCED" = 1 ] && echo " (FORCE=1: started busy; figures do not count)")"
}
