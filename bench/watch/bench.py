"""Driver for bench/watch/run.sh: runs `skylift watch --json` and `watchman` and prints figures."""
import json, os, shutil, signal, statistics, subprocess, sys, tempfile, threading, time

SKYLIFT = os.environ["SKYLIFT_BIN"]
FILES = int(os.environ["FILES"])
IDLE = float(os.environ["IDLE_SECONDS"])
LATENCY_FILES = int(os.environ["LATENCY_FILES"])
SETTLES = [float(s) for s in os.environ["SETTLES"].split()]
TICK = os.sysconf("SC_CLK_TCK")
work = tempfile.mkdtemp(prefix="skylift-bench-watch-")


class Agent:
    """A `skylift watch DIR --json` child (embedded cloud, HOME in the work dir); events read on a thread."""

    def __init__(self, directory, settle, name):
        home = os.path.join(work, "home-" + name)
        os.makedirs(home, exist_ok=True)
        env = {"HOME": home, "PATH": "/usr/bin:/bin"}
        self.start = time.time()
        self.proc = subprocess.Popen([SKYLIFT, "watch", directory, "--json", "--settle", str(settle)],
                                     stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env, text=True)
        self.events, self.cond = [], threading.Condition()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self):
        for line in self.proc.stdout:
            try:
                event = json.loads(line)
            except ValueError:
                continue
            with self.cond:
                self.events.append(event)
                self.cond.notify_all()

    def wait(self, test, limit=600):
        deadline = time.time() + limit
        with self.cond:
            while True:
                for e in self.events:
                    if test(e):
                        return e
                left = deadline - time.time()
                if left <= 0:
                    raise SystemExit("timed out waiting for an event")
                self.cond.wait(left)

    def wait_count(self, name, n, limit=1200):
        deadline = time.time() + limit
        with self.cond:
            while sum(1 for e in self.events if e.get("event") == name) < n:
                left = deadline - time.time()
                if left <= 0:
                    raise SystemExit(f"timed out waiting for {n} {name} events")
                self.cond.wait(min(left, 1))

    def stop(self):
        self.proc.send_signal(signal.SIGTERM)
        self.proc.wait(60)


def cpu_seconds(pid):
    fields = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICK  # utime + stime


def peak_kib(pid):
    for line in open(f"/proc/{pid}/status"):
        if line.startswith("VmHWM:"):
            return int(line.split()[1])
    return 0


class Watchman:
    """A private watchman daemon (own socket and state) so the run touches nothing else."""

    def __init__(self):
        self.dir = os.path.join(work, "watchman")
        os.makedirs(self.dir)
        self.sock = os.path.join(self.dir, "sock")
        self.proc = subprocess.Popen(["watchman", "--foreground", "--sockname=" + self.sock,
                                      "--statefile=" + os.path.join(self.dir, "state"),
                                      "--logfile=" + os.path.join(self.dir, "log"), "--no-save-state"],
                                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        for _ in range(200):
            if os.path.exists(self.sock):
                break
            time.sleep(0.05)

    def run(self, *args):
        subprocess.run(["watchman", "--sockname=" + self.sock, *args], check=True, stdout=subprocess.DEVNULL)

    def stop(self):
        subprocess.run(["watchman", "--sockname=" + self.sock, "shutdown-server"], stdout=subprocess.DEVNULL)
        self.proc.wait(30)


def make_tree(root, count):
    per_dir = 1000
    for d in range((count + per_dir - 1) // per_dir):
        path = os.path.join(root, f"d{d:04}")
        os.makedirs(path)
        for i in range(min(per_dir, count - d * per_dir)):
            with open(os.path.join(path, f"f{i:05}.jpg"), "wb") as f:
                f.write(b"x")


def latency():
    print("## latency: last write → settled report")
    print(f"{'settle s':>9} {'files':>6} {'median s':>9} {'max s':>7} {'median - settle ms':>19} {'max - settle ms':>16}")
    results = []
    for settle in SETTLES:
        d = os.path.join(work, f"lat-{settle}")
        os.makedirs(d)
        agent = Agent(d, settle, f"lat-{settle}")
        agent.wait(lambda e: e.get("event") == "scanned")
        lat = []
        for n in range(LATENCY_FILES):
            name = f"clip{n}.bin"
            with open(os.path.join(d, name), "wb") as f:
                for _ in range(5):  # a few writes, like a camera app flushing
                    f.write(os.urandom(64 << 10))
                    f.flush()
                    time.sleep(0.02)
            last_write = time.time()
            e = agent.wait(lambda e, name=name: e.get("event") == "settled" and e.get("path") == name)
            lat.append(e["t"] - last_write)
        agent.stop()
        med, worst = statistics.median(lat), max(lat)
        results.append((settle, med - settle, worst - settle))
        print(f"{settle:>9} {LATENCY_FILES:>6} {med:>9.3f} {worst:>7.3f} {(med - settle) * 1000:>19.1f} {(worst - settle) * 1000:>16.1f}")
    return results


def scan_and_idle():
    tree = os.path.join(work, "tree")
    os.makedirs(tree)
    t = time.time()
    make_tree(tree, FILES)
    print(f"\n## initial scan of {FILES} files in {(FILES + 999) // 1000} folders (tree made in {time.time() - t:.1f} s)")
    subprocess.run(["find", tree], stdout=subprocess.DEVNULL, check=True)  # same warm cache for both

    wm = Watchman()
    base_kib = peak_kib(wm.proc.pid)
    t0 = time.time()
    wm.run("watch", tree)
    wm.run("find", tree, "no-such-name-*")  # waits for the crawl (sync cookie) to finish
    wm_seconds = time.time() - t0
    wm_kib = peak_kib(wm.proc.pid)

    agent = Agent(tree, 2, "scan")
    scanned = agent.wait(lambda e: e.get("event") == "scanned")
    sk_total = scanned["t"] - agent.start
    sk_crawl = scanned["scan_seconds"]
    sk_kib = peak_kib(agent.proc.pid)
    agent.stop()  # it would now upload the whole tree; only the scan is measured here

    print(f"{'':>28} {'skylift':>10} {'watchman':>10} {'ratio':>7}")
    print(f"{'crawl + watches, s':>28} {sk_crawl:>10.3f} {wm_seconds:>10.3f} {sk_crawl / wm_seconds:>7.2f}")
    print(f"{'start to listing, s':>28} {sk_total:>10.3f} {wm_seconds:>10.3f} {sk_total / wm_seconds:>7.2f}")
    print(f"{'peak RSS, MiB':>28} {sk_kib / 1024:>10.1f} {wm_kib / 1024:>10.1f} {sk_kib / max(wm_kib, 1):>7.2f}")
    print(f"(watchman's daemon alone before the watch: {base_kib / 1024:.1f} MiB; skylift's figure includes its embedded cloud)")

    small = os.path.join(work, "idle")
    make_tree(small, min(FILES, 2000))
    print(f"\n## idle CPU over {IDLE:.0f} s, both watching the same settled {min(FILES, 2000)}-file tree (all uploaded first)")
    wm.run("watch", small)
    agent = Agent(small, 0.5, "idle")
    agent.wait(lambda e: e.get("event") == "scanned")
    n = min(FILES, 2000)
    agent.wait_count("uploaded", n)
    time.sleep(2)
    a0, w0 = cpu_seconds(agent.proc.pid), cpu_seconds(wm.proc.pid)
    time.sleep(IDLE)
    a1, w1 = cpu_seconds(agent.proc.pid), cpu_seconds(wm.proc.pid)
    print(f"skylift watch: {(a1 - a0) * 1000:.0f} ms CPU; watchman: {(w1 - w0) * 1000:.0f} ms CPU (clock tick {1000 / TICK:.0f} ms)")
    agent.stop()
    wm.stop()


try:
    latency()
    scan_and_idle()
finally:
    shutil.rmtree(work, ignore_errors=True)
