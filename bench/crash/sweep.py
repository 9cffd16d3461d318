#!/usr/bin/env python3
"""Crash-consistency sweep of `skylift serve` (issue #26; after ALICE, OSDI '14, and SQLite's crash tests).

For each scenario (a state-changing request and the old state it starts from, see scenarios.py):

1. Plan: start the server on a fresh root, set up the old state over HTTP, observe it, attach
   `strace -f -y -e trace=%file,%desc` to the idle server, send the request, observe the new state. Every
   system call the server made on a path or descriptor under the root is a kill point, plus one more: right
   after the response.
2. For each kill point k: a fresh root, the same set-up (replayed over HTTP rather than copied: a digest record
   names its file's inode, so a copied root would serve no digests), then strace attached to the idle server with
   `-e inject=NAME:signal=KILL:when=J`, where J is the call's occurrence among the calls of that name in its
   thread (strace counts per thread, and the request's thread is new, so J counts from the request's start).
   The server dies on entry to that call, before it runs. Kill point "after the response" sends SIGKILL once
   the answer is in.
3. Restart the server on the same root (its start-up sweep and migrations run), wait until it answers, and
   check through HTTP: every name holds its old or its new state whole (content and dead properties together;
   a COPY/MOVE tree wholly old or wholly new), a served Repr-Digest is the body's, no `.skylift-*` name is
   listed, a MOVE's resource is at its source or its destination, a name that is gone left no dead properties
   behind (a file PUT there shows none), tus uploads answer HEAD and, continued from their offset, give the
   right file; and on disk: once the restarted server's sweep has run (--sweep-wait), no temporary remains
   (what counts as one: store.temporaries).

Prints per scenario the kill points tried and every violation (what was expected, what was seen), and closes
with `N passed, M failed` (kill points). Exit status 1 on any violation, 2 on a harness failure.

    python3 bench/crash/sweep.py [--bin .build/debug/skylift] [--scenario NAME]... [--max-points N] [--json]
"""
import argparse
import json
import os
import re
import select
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from scenarios import SCENARIOS, BY_NAME  # noqa: E402
from store import (Server, SetupError, StartError, observe, temporaries, uploads, describe_entry,  # noqa: E402
                   _describe, DAV)
import xml.etree.ElementTree as ET  # noqa: E402

RENAMES = {"rename", "renameat", "renameat2", "link", "linkat", "symlinkat", "unlink", "unlinkat", "rmdir",
           "mkdir", "mkdirat"}
WRITES = {"write", "pwrite64", "writev", "pwritev", "pwritev2", "ftruncate", "truncate", "fsetxattr", "setxattr",
          "lsetxattr", "fremovexattr", "removexattr", "fallocate", "copy_file_range", "sendfile"}
CALL = re.compile(r"^(\d+)\s+([a-z_0-9]+)\((.*)$")


class KillPoint:
    def __init__(self, k, pid, name, occurrence, raw, root):
        self.k, self.pid, self.name, self.occurrence = k, pid, name, occurrence
        self.call = shorten(name + "(" + raw, root)
        self.pattern = normalize(name + "(" + raw, root)

    def mutating(self):
        return self.name in RENAMES or self.name in WRITES or (self.name.startswith("open") and "O_CREAT" in self.call)


def shorten(text, root):
    text = re.sub(r"\d+<", "<", text.replace(root, "R"))
    text = re.sub(r"\s*<unfinished \.\.\.>\s*$", "", text.rstrip())
    return text if len(text) <= 140 else text[:137] + "..."


def normalize(text, root):
    """A call's text without what differs between runs (root, descriptors, temp names, ids, numbers)."""
    text = re.sub(r"\d+<", "<", text.replace(root, "R"))
    text = re.sub(r"run[0-9a-f]{16}", "RUN", text)
    text = re.sub(r"[0-9A-Fa-f]{8}(-[0-9A-Fa-f]{4}){3}-[0-9A-Fa-f]{12}", "UUID", text)
    text = re.sub(r"[0-9a-f]{32}", "ID", text)
    # Bytes and attribute values vary between runs (JSON key order, times); the file and attribute name do not.
    if text.startswith(("write(", "pwrite64(", "read(", "pread64(")):
        text = text.split(", ")[0]
    elif text.startswith(("fsetxattr(", "setxattr(", "lsetxattr(")):
        text = ", ".join(text.split(", ")[:2])
    # Only what strace shows on entry: a call killed there has no result and no decoded output arguments.
    text = re.sub(r"\s*<unfinished \.\.\.>.*$", "", text.rstrip())
    text = re.sub(r"\)\s*=\s*[^=]*$", "", text)
    return re.sub(r"\d+", "N", text)[:70]


def same_call(landed_at, expected):
    """True when the killed call (entry only) is the expected one as far as strace showed it."""
    n = min(len(landed_at), len(expected))
    return n > 0 and landed_at[:n] == expected[:n] and landed_at.split("(")[0] == expected.split("(")[0]


def touches(args, root):
    return any(root + end in args for end in ("/", ">", '"'))


def kill_points(trace_path, root):
    """The calls of the trace that name a path or descriptor under `root`, each with its occurrence index among
    the calls of the same name in the same thread (what strace's `when=` counts)."""
    counts, points = {}, []
    with open(trace_path, errors="replace") as f:
        for line in f:
            match = CALL.match(line)
            if not match:
                continue
            pid, name, rest = match.groups()
            counts[(pid, name)] = counts.get((pid, name), 0) + 1
            if touches(rest, root):
                points.append(KillPoint(len(points) + 1, pid, name, counts[(pid, name)], rest, root))
    return points


def landed(trace_path, name, root):
    """The call strace killed the server at (the one line of `name` that ends in `= ?`), normalized."""
    try:
        with open(trace_path, errors="replace") as f:
            for line in f:
                match = CALL.match(line)
                if match and match.group(2) == name and line.rstrip().endswith("= ?"):
                    return normalize(name + "(" + match.group(3), root)
    except OSError:
        pass
    return None


class Strace:
    """strace attached to a running server; returns once every thread is attached."""

    def __init__(self, strace, pid, arguments, out, timeout=15):
        self.proc = subprocess.Popen([strace, "-f", "-p", str(pid), "-y", "-s", "80"] + arguments + ["-o", out],
                                     stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        self.messages = b""
        deadline = time.monotonic() + timeout
        fd = self.proc.stderr.fileno()
        while b"attached" not in self.messages:
            if time.monotonic() > deadline or self.proc.poll() is not None:
                self.stop()
                raise HarnessError("strace did not attach to %d: %s" % (pid, self.messages.decode("utf-8", "replace")))
            if select.select([fd], [], [], 0.1)[0]:
                chunk = os.read(fd, 4096)
                if not chunk:
                    continue
                self.messages += chunk
        self.drain = threading.Thread(target=self._drain, daemon=True)
        self.drain.start()

    def _drain(self):
        for _ in iter(lambda: self.proc.stderr.read(4096), b""):
            pass

    def stop(self, timeout=10):
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGINT)  # detaches and lets the server run on
            try:
                self.proc.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()

    def wait(self, timeout=10):
        try:
            self.proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.stop()


class HarnessError(Exception):
    pass


def send(scenario, client, ctx):
    method, path, body, headers = scenario.request(client, ctx)
    return client.request(method, path, body, headers, timeout=60)


# --- The plan: old state, new state, kill points ------------------------------------------------------------

class Plan:
    def __init__(self, old, new, points, status):
        self.old, self.new, self.points, self.status = old, new, points, status

    @property
    def total(self):
        return len(self.points) + 1  # the last kill point is right after the response


def plan(scenario, options, workdir):
    root = fresh_root(workdir, scenario.name + "-plan")
    server = Server(options.bin, root, os.path.join(workdir, scenario.name + "-plan.log"))
    try:
        ctx = scenario.setup(server.client)
        old, problems = observe(server.client, scenario.known)
        if problems:
            raise HarnessError("the old state reads wrong before the request: %s" % problems)
        time.sleep(options.settle)
        trace = os.path.join(workdir, scenario.name + "-plan.strace")
        strace = Strace(options.strace, server.pid, ["-e", "trace=%file,%desc"], trace)
        try:
            status, _, body = send(scenario, server.client, ctx)
            time.sleep(0.3)  # the request's thread closes its files after answering
        finally:
            strace.stop()
        if status not in scenario.ok:
            raise HarnessError("%s answered %d uninterrupted (expected %s): %s"
                               % (scenario.name, status, scenario.ok, body[:200].decode("utf-8", "replace")))
        new, problems = observe(server.client, scenario.known)
        if problems:
            raise HarnessError("the new state reads wrong after the uninterrupted request: %s" % problems)
        return Plan(old, new, kill_points(trace, root), status)
    finally:
        server.kill()


def fresh_root(workdir, name):
    root = os.path.join(workdir, name, "r")
    shutil.rmtree(os.path.dirname(root), ignore_errors=True)
    os.makedirs(root)
    return root


# --- One kill point ------------------------------------------------------------------------------------------

def run_point(scenario, the_plan, k, options, workdir):
    """Returns (violations, notes) for kill point k (1-based; the_plan.total is "after the response")."""
    point = the_plan.points[k - 1] if k <= len(the_plan.points) else None
    root = fresh_root(workdir, "%s-%d" % (scenario.name, k))
    log = os.path.join(os.path.dirname(root), "serve.log")
    notes = []
    server = Server(options.bin, root, log)
    try:
        ctx = scenario.setup(server.client)
        ctx["ids"] = list(uploads(root))
        if point:
            time.sleep(options.settle)
            trace = os.path.join(os.path.dirname(root), "inject.strace")
            strace = Strace(options.strace, server.pid,
                            ["-e", "trace=" + point.name, "-e", "inject=%s:signal=KILL:when=%d" % (point.name, point.occurrence)],
                            trace)
            try:
                answer = send(scenario, server.client, ctx)[0]
            except Exception:  # the server died mid-request: the point of the exercise
                answer = None
            if not server.wait_exit(20):
                notes.append("the request finished (%s) without reaching the kill point; killed after it" % answer)
            strace.wait()
            where = landed(trace, point.name, root)
            if server.proc.returncode is not None and where and not same_call(where, point.pattern):
                notes.append("the kill landed at %s, not at %s" % (where, point.pattern))
        else:
            send(scenario, server.client, ctx)
    finally:
        server.kill()
    try:
        restarted = Server(options.bin, root, log)
    except (StartError, OSError) as e:
        return [("no-restart", "the server does not start again on the root: %s" % e)], notes
    try:
        return Check(scenario, the_plan, ctx, restarted.client, root, options).run(), notes
    finally:
        restarted.kill()
        if not options.keep:
            shutil.rmtree(os.path.dirname(root), ignore_errors=True)


class Check:
    """The invariants after a crash and restart; run() returns violations as (kind, message)."""

    def __init__(self, scenario, the_plan, ctx, client, root, options):
        self.scenario, self.plan, self.ctx, self.client, self.root = scenario, the_plan, ctx, client, root
        self.options = options
        self.known = scenario.known
        self.observed = {}

    def uploads_on_disk(self):
        return uploads(self.root)

    def run(self):
        self.observed, out = observe(self.client, self.known)
        out += self.states()
        out += self.moved()
        out += self.leftovers()
        out += self.usable_uploads()
        if self.scenario.after_crash:
            out += self.scenario.after_crash(self)
        out += self.stale_properties()
        return out

    def describe(self, entry):
        return describe_entry(entry, self.known)

    def states(self):
        """Every name old or new (content and properties together); every tree wholly old or wholly new."""
        old, new, seen = self.plan.old, self.plan.new, self.observed
        trees = self.scenario.trees
        out = []
        for tree in trees:
            part = lambda s: {p: e for p, e in s.items() if within(p, tree)}  # noqa: E731
            o, n, s = part(old), part(new), part(seen)
            if s != o and s != n:
                out.append(("tree-neither-old-nor-new", "/%s is neither the old tree nor the new one: %s"
                            % (tree, self.tree_difference(o, n, s))))
        for path in sorted(set(old) | set(new) | set(seen)):
            if any(within(path, t) for t in trees):
                continue
            o, n, s = old.get(path), new.get(path), seen.get(path)
            if s != o and s != n:
                out.append((classify(o, n, s), "/%s: expected %s (old) or %s (new); saw %s"
                            % (path, self.describe(o), self.describe(n), self.describe(s))))
        return out

    def tree_difference(self, o, n, s):
        def against(ref, label):
            paths = [p for p in sorted(set(ref) | set(s)) if ref.get(p) != s.get(p)]
            shown = "; ".join("/%s %s %s, saw %s" % (p, label, self.describe(ref.get(p)), self.describe(s.get(p)))
                              for p in paths[:3])
            return "%d names differ from the %s tree (%s%s)" % (len(paths), label, shown, "; ..." if len(paths) > 3 else "")
        return against(o, "old") + "; " + against(n, "new")

    def moved(self):
        if not self.scenario.moved:
            return []
        source, destination = self.scenario.moved
        part = lambda s, t: {p: e for p, e in s.items() if within(p, t)}  # noqa: E731
        seen = self.observed
        gone = not part(seen, source)
        destination_old = part(seen, destination) == part(self.plan.old, destination)
        if gone and destination_old:
            return [("move-lost", "/%s is gone but /%s still holds its old state: the moved resource is nowhere"
                     % (source, destination))]
        return []

    def leftovers(self):
        deadline = time.monotonic() + self.options.sweep_wait
        while True:
            found = temporaries(self.root)
            if not found or time.monotonic() > deadline:
                break
            time.sleep(0.1)
        if not found:
            return []
        return [("temporaries-left", "%.1fs after the restarted server answered, %d temporaries remain: %s%s"
                 % (self.options.sweep_wait, len(found), ", ".join(found[:4]), ", ..." if len(found) > 4 else ""))]

    def usable_uploads(self):
        """Every upload with a record answers HEAD with an offset within its length."""
        out = []
        for upload_id, suffixes in sorted(self.uploads_on_disk().items()):
            if "info" not in suffixes or "data" not in suffixes:
                continue  # reported by leftovers()
            status, offset, length = self.client.tus_head(upload_id)
            if status != 200 or offset is None or (length is not None and offset > length):
                out.append(("tus-upload-unreadable", "HEAD /uploads/%s answered %d, offset %s of %s"
                            % (upload_id, status, offset, length)))
        return out

    def stale_properties(self):
        """A name that is gone must take its dead properties with it: a new file put there shows none."""
        out = []
        for path in sorted(set(self.plan.old) | set(self.plan.new)):
            if path in self.observed or not path:
                continue
            if not any(e is not None and e.props for e in (self.plan.old.get(path), self.plan.new.get(path))):
                continue
            parent = path.rsplit("/", 1)[0] if "/" in path else ""
            if parent not in self.observed or self.observed[parent].kind != "dir":
                continue
            target = "/dav/" + path
            status, _, _ = self.client.request("PUT", target, b"probe")
            if status not in (201, 204):
                continue
            status, _, body = self.client.request("PROPFIND", target, headers={"Depth": "0"})
            props = {}
            if status == 207:
                for response in ET.fromstring(body).findall(DAV + "response"):
                    props.update(_describe(response)[2] or {})
            if props:
                out.append(("stale-properties", "/%s is gone, but a new file put there shows dead properties %s"
                            % (path, sorted(re.sub(r"^\{[^}]*\}", "", k) for k in props))))
            self.client.request("DELETE", target)
        return out


def within(path, tree):
    return path == tree or path.startswith(tree + "/")


def classify(old, new, seen):
    if seen is None:
        return "name-lost"
    if old is None and new is None:
        return "unexpected-name"
    same_content = [e for e in (old, new) if e is not None and (e.kind, e.sha, e.size) == (seen.kind, seen.sha, seen.size)]
    if same_content:
        return "properties-mismatch"
    return "partial-or-wrong-content"


# --- Choosing kill points, running, reporting -----------------------------------------------------------------

def choose(the_plan, max_points, explicit):
    """All kill points, the listed ones, or at most max_points spread over the calls: the first and the last
    (after the response), then in turn a rename (killed just before it), a call just after a rename, another
    call that writes (creates, writes, unlinks, sets an attribute), and any call, each class taken from its
    middle outwards so a few points already cover it evenly."""
    total = the_plan.total
    if explicit:
        return sorted({k for k in explicit if 1 <= k <= total})
    if not max_points or max_points >= total:
        return list(range(1, total + 1))
    renames = [p.k for p in the_plan.points if p.name in ("rename", "renameat", "renameat2")]
    classes = [spread(renames), spread([k + 1 for k in renames]),
               spread([p.k for p in the_plan.points if p.mutating() and p.k not in renames]),
               spread(list(range(1, total + 1)))]
    chosen = [1, total][:max_points]
    while len(chosen) < max_points and any(classes):
        for candidates in classes:
            while candidates and candidates[0] in chosen:
                candidates.pop(0)
            if candidates and len(chosen) < max_points:
                chosen.append(candidates.pop(0))
    return sorted(chosen)


def spread(ks):
    """`ks` reordered middle first, then the middles of the halves, and so on."""
    out, spans = [], [(0, len(ks))]
    while spans:
        lo, hi = spans.pop(0)
        if lo >= hi:
            continue
        mid = (lo + hi) // 2
        out.append(ks[mid])
        spans += [(lo, mid), (mid + 1, hi)]
    return out


def sweep_scenario(scenario, options, workdir, pool):
    started = time.monotonic()
    result = {"name": scenario.name, "summary": scenario.summary, "violations": [], "notes": [], "points": []}
    try:
        the_plan = plan(scenario, options, workdir)
    except (HarnessError, SetupError, StartError, OSError) as e:
        result.update(error=str(e), calls=0, total=0, tried=0, passed=0, failed=1, seconds=time.monotonic() - started)
        return result
    chosen = choose(the_plan, options.max_points, options.points)
    futures = {k: pool.submit(safe_point, scenario, the_plan, k, options, workdir) for k in chosen}
    failed = 0
    for k in chosen:
        violations, notes = futures[k].result()
        call = the_plan.points[k - 1].call if k <= len(the_plan.points) else "(after the response)"
        result["points"].append({"k": k, "call": call, "violations": len(violations)})
        failed += bool(violations)
        for kind, message in violations:
            result["violations"].append({"k": k, "call": call, "kind": kind, "message": message})
        for note in notes:
            result["notes"].append({"k": k, "call": call, "note": note})
    result.update(calls=len(the_plan.points), mutating=sum(p.mutating() for p in the_plan.points), total=the_plan.total,
                  tried=len(chosen), passed=len(chosen) - failed, failed=failed, seconds=time.monotonic() - started)
    return result


def safe_point(scenario, the_plan, k, options, workdir):
    try:
        return run_point(scenario, the_plan, k, options, workdir)
    except (HarnessError, SetupError, StartError, OSError) as e:
        return [("harness", "kill point %d could not run: %s" % (k, e))], []


def runs(result):
    """The scenario's violations with those of one kind and message at neighbouring kill points merged (the
    message with upload ids left out): (first k, last k, how many, the first violation)."""
    order = [p["k"] for p in result["points"]]
    merged = []
    for v in sorted(result["violations"], key=lambda v: (v["kind"], v["k"])):
        key = (v["kind"], re.sub(r"[0-9a-f]{32}", "ID", v["message"]))
        if merged and merged[-1][0] == key and order.index(v["k"]) == order.index(merged[-1][2]) + 1:
            merged[-1][2], merged[-1][3] = v["k"], merged[-1][3] + 1
        else:
            merged.append([key, v["k"], v["k"], 1, v])
    return sorted(((first, last, count, v) for _, first, last, count, v in merged), key=lambda m: (m[0], m[3]["kind"]))


def report(results, out, total_seconds):
    kinds = {}
    for r in results:
        if "error" in r:
            print("%s: HARNESS ERROR: %s" % (r["name"], r["error"]), file=out)
            continue
        print("%s: %d of %d kill points (%d file-system calls on the root, %d of them writes, + after the response), "
              "%d failed, %.1fs — %s" % (r["name"], r["tried"], r["total"], r["calls"], r["mutating"], r["failed"],
                                         r["seconds"], r["summary"]), file=out)
        for v in r["violations"]:
            kinds[v["kind"]] = kinds.get(v["kind"], 0) + 1
        for first, last, count, v in runs(r):
            where = "k=%d" % first if count == 1 else "k=%d..%d (%d kill points)" % (first, last, count)
            print("  %s, killed on entry to %s\n    %s: %s" % (where, v["call"], v["kind"], v["message"]), file=out)
        for n in r["notes"]:
            print("  k=%d note: %s" % (n["k"], n["note"]), file=out)
    passed = sum(r["passed"] for r in results if "error" not in r)
    failed = sum(r["failed"] for r in results)
    if kinds:
        print("violations by kind: " + ", ".join("%s %d" % kv for kv in sorted(kinds.items())), file=out)
    print("%d scenarios, %d kill points in %.0fs" % (len(results), passed + failed, total_seconds), file=out)
    print("%d passed, %d failed" % (passed, failed), file=out)
    return passed, failed


def arguments(argv):
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    here = os.path.dirname(os.path.abspath(__file__))
    parser.add_argument("--bin", default=os.environ.get("BIN") or os.path.join(here, "..", "..", ".build", "debug", "skylift"),
                        help="the skylift binary (default: $BIN, else .build/debug/skylift)")
    parser.add_argument("--strace", default=os.environ.get("STRACE") or shutil.which("strace") or "strace",
                        help="the strace binary (default: $STRACE, else strace on PATH)")
    parser.add_argument("--scenario", action="append", choices=[s.name for s in SCENARIOS], metavar="NAME",
                        help="run only this scenario (repeatable; default: all of %s)" % ", ".join(BY_NAME))
    parser.add_argument("--max-points", type=int, default=0, metavar="N",
                        help="at most N kill points per scenario, spread over its calls (the bounded sweep; default: all)")
    parser.add_argument("--points", type=lambda s: [int(x) for x in s.split(",")], metavar="K,K,...",
                        help="only these kill points (1-based; the last is after the response)")
    parser.add_argument("--jobs", type=int, default=1, metavar="N", help="kill points run side by side (default 1)")
    parser.add_argument("--sweep-wait", type=float, default=5.0, metavar="SECONDS",
                        help="how long after the restarted server answers its start-up sweep may take (default 5)")
    parser.add_argument("--settle", type=float, default=0.15, metavar="SECONDS",
                        help="pause between the set-up and attaching strace, so the server is idle (default 0.15)")
    parser.add_argument("--json", action="store_true", help="print a JSON summary on stdout (the report goes to stderr)")
    parser.add_argument("--keep", action="store_true", help="keep every root and log (in the printed work folder)")
    parser.add_argument("--list", action="store_true", help="list the scenarios and exit")
    return parser.parse_args(argv)


def main(argv=None):
    options = arguments(argv)
    # A parent may start us with signals blocked (the Swift test runner does), and children inherit the mask:
    # strace would then never see the SIGINT that detaches it. Every thread and child starts from this one.
    signal.pthread_sigmask(signal.SIG_SETMASK, [])
    if options.list:
        for s in SCENARIOS:
            print("%-18s %s" % (s.name, s.summary))
        return 0
    options.bin = os.path.abspath(options.bin)
    if not os.access(options.bin, os.X_OK):
        print("sweep: no skylift binary at %s (swift build --product skylift, or --bin/BIN)" % options.bin, file=sys.stderr)
        return 2
    if not shutil.which(options.strace):
        print("sweep: strace not found (apt-get install -y strace, or --strace/STRACE)", file=sys.stderr)
        return 2
    scenarios = [BY_NAME[n] for n in options.scenario] if options.scenario else SCENARIOS
    out = sys.stderr if options.json else sys.stdout
    workdir = tempfile.mkdtemp(prefix="slc-", dir="/tmp")
    print("sweep: %s, %d scenarios, %s kill points each, work folder %s"
          % (options.bin, len(scenarios), options.max_points or "all", workdir), file=out, flush=True)
    started = time.monotonic()
    results = []
    try:
        # The binary under test is copied first, so a rebuild during the sweep neither changes it nor fails it.
        shutil.copy2(options.bin, os.path.join(workdir, "skylift"))
        options.bin = os.path.join(workdir, "skylift")
        with ThreadPoolExecutor(max_workers=max(1, options.jobs)) as pool:
            for scenario in scenarios:
                results.append(sweep_scenario(scenario, options, workdir, pool))
                r = results[-1]
                print("  %s: %s" % (scenario.name, r.get("error") or "%d/%d kill points passed" % (r["passed"], r["tried"])),
                      file=sys.stderr, flush=True)
    finally:
        if not options.keep:
            shutil.rmtree(workdir, ignore_errors=True)
    seconds = time.monotonic() - started
    passed, failed = report(results, out, seconds)
    if options.json:
        json.dump({"binary": options.bin, "max_points": options.max_points, "seconds": round(seconds, 1),
                   "passed": passed, "failed": failed, "scenarios": results}, sys.stdout, indent=1)
        print()
    if any("error" in r for r in results):
        return 2
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
