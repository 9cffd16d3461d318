#!/usr/bin/env python3
"""CPU of the threads a process starts while this runs: what each of a PUT's threads (the connection thread,
the hash thread) cost, which the process's total in /proc/PID/stat does not tell apart.

Usage: threadcpu.py PID
Samples /proc/PID/task every 20 ms until SIGTERM or SIGINT (a thread's figures are gone once it ends, so the
last sample before that is what counts), then prints one line per thread that was not there at the start:
its user and system CPU seconds, and its voluntary and involuntary context switches.
"""
import os
import signal
import sys
import time

TICK = os.sysconf("SC_CLK_TCK")


def sample(pid: str, task: str):
    with open(f"/proc/{pid}/task/{task}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    with open(f"/proc/{pid}/task/{task}/status") as f:
        switches = {line.split(":")[0]: line.split()[1] for line in f if "ctxt_switches" in line}
    return (int(fields[11]) / TICK, int(fields[12]) / TICK,
            switches.get("voluntary_ctxt_switches", "?"), switches.get("nonvoluntary_ctxt_switches", "?"))


def main() -> int:
    if len(sys.argv) != 2:
        print("usage: threadcpu.py PID", file=sys.stderr)
        return 2
    pid = sys.argv[1]
    stop = []
    signal.signal(signal.SIGTERM, lambda *_: stop.append(1))
    signal.signal(signal.SIGINT, lambda *_: stop.append(1))
    existing = set(os.listdir(f"/proc/{pid}/task"))
    last = {}
    while not stop:
        try:
            tasks = os.listdir(f"/proc/{pid}/task")
        except OSError:
            break
        for task in tasks:
            if task in existing:
                continue
            try:
                last[task] = sample(pid, task)
            except (OSError, IndexError, ValueError):
                pass
        time.sleep(0.02)
    for task, (user, system, voluntary, involuntary) in sorted(last.items(), key=lambda kv: int(kv[0])):
        print(f"  thread {task}: user {user:.2f} s sys {system:.2f} s, context switches {voluntary} voluntary "
              f"{involuntary} involuntary")
    return 0


if __name__ == "__main__":
    sys.exit(main())
