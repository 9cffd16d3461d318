"""The served store as the crash sweep sees it: an HTTP client, the `skylift serve` process, and an observation of
everything a client can see (names, bodies, served digests, dead properties) plus the temporaries on disk.

Standard library only. Properties are read over HTTP (PROPFIND allprop), never from the server's own files, so
the checks hold whether dead properties live in sidecar files or in extended attributes.
"""
import base64
import hashlib
import http.client
import os
import re
import select
import signal
import subprocess
import time
import urllib.parse
import xml.etree.ElementTree as ET

DAV = "{DAV:}"
# Dead properties the sweep sets live in this namespace; live ones (DAV:, Skylift's digests) are not compared.
NS = "urn:skylift-crash"
LIVE_NAMESPACES = ("{DAV:}", "{urn:skylift}", "{http://owncloud.org/ns}")
TUS = {"Tus-Resumable": "1.0.0"}
OFFSET_TYPE = "application/offset+octet-stream"


def content(label, size):
    """`size` bytes that depend only on `label` (SHA-256 in counter mode): every run writes the same files."""
    out = bytearray()
    seed = label.encode()
    counter = 0
    while len(out) < size:
        out += hashlib.sha256(seed + counter.to_bytes(8, "big")).digest()
        counter += 1
    return bytes(out[:size])


class Client:
    """One request per connection (`Connection: close`), so every request runs on a fresh server thread."""

    def __init__(self, port):
        self.port = port

    def request(self, method, path, body=None, headers=None, timeout=30):
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=timeout)
        try:
            h = {"Connection": "close"}
            h.update(headers or {})
            conn.request(method, path, body=body, headers=h)
            response = conn.getresponse()
            data = response.read()
            return response.status, {k.lower(): v for k, v in response.getheaders()}, data
        finally:
            conn.close()

    def url(self, path):
        return "http://127.0.0.1:%d%s" % (self.port, path)

    # Set-up helpers: each fails loudly, since a scenario whose old state is not what it says checks nothing.
    def must(self, expected, method, path, body=None, headers=None):
        status, h, data = self.request(method, path, body, headers)
        if status not in expected:
            raise SetupError("%s %s answered %d: %s" % (method, path, status, data[:200].decode("utf-8", "replace")))
        return status, h, data

    def put(self, path, data):
        self.must((201, 204), "PUT", dav(path), data)

    def mkcol(self, path):
        self.must((201,), "MKCOL", dav(path))

    def proppatch(self, path, set_=None, remove=()):
        self.must((207,), "PROPPATCH", dav(path), proppatch_body(set_ or {}, remove),
                  {"Content-Type": "application/xml; charset=utf-8"})

    def tus_create(self, folder, length=None, filename=None, partial=False, body=None):
        headers = dict(TUS)
        if length is not None:
            headers["Upload-Length"] = str(length)
        if filename:
            headers["Upload-Metadata"] = tus_metadata(filename)
        if partial:
            headers["Upload-Concat"] = "partial"
        if body is not None:
            headers["Content-Type"] = OFFSET_TYPE
        _, h, _ = self.must((201,), "POST", dav(folder) + "/", body, headers)
        return h["location"].rsplit("/", 1)[-1]

    def tus_patch(self, upload_id, offset, data):
        headers = dict(TUS, **{"Content-Type": OFFSET_TYPE, "Upload-Offset": str(offset)})
        self.must((204,), "PATCH", "/uploads/" + upload_id, data, headers)

    def tus_head(self, upload_id):
        status, h, _ = self.request("HEAD", "/uploads/" + upload_id, headers=TUS)
        offset = int(h["upload-offset"]) if "upload-offset" in h else None
        length = int(h["upload-length"]) if "upload-length" in h else None
        return status, offset, length


class SetupError(Exception):
    pass


def dav(path):
    return "/dav/" + urllib.parse.quote(path)


def tus_metadata(filename):
    return "filename " + base64.b64encode(filename.encode()).decode()


def proppatch_body(set_, remove):
    parts = ['<?xml version="1.0" encoding="utf-8"?>',
             '<D:propertyupdate xmlns:D="DAV:" xmlns:c="%s">' % NS]
    if set_:
        parts.append("<D:set><D:prop>")
        parts += ["<c:%s>%s</c:%s>" % (k, v, k) for k, v in sorted(set_.items())]
        parts.append("</D:prop></D:set>")
    if remove:
        parts.append("<D:remove><D:prop>")
        parts += ["<c:%s/>" % k for k in remove]
        parts.append("</D:prop></D:remove>")
    parts.append("</D:propertyupdate>")
    return "".join(parts).encode()


class Server:
    """`skylift serve --root ROOT --no-auth --listen 127.0.0.1:0 --quiet`; the bound port is read from its banner."""

    def __init__(self, binary, root, log_path, timeout=30):
        self.log = open(log_path, "ab")
        self.proc = subprocess.Popen([binary, "serve", "--root", root, "--no-auth", "--listen", "127.0.0.1:0", "--quiet"],
                                     stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=self.log, cwd="/",
                                     start_new_session=True)
        self.pid = self.proc.pid
        try:
            self.port = self._read_port(timeout)
            self.client = Client(self.port)
            self._wait_answering(timeout)
        except Exception:
            self.kill()
            raise

    def _read_port(self, timeout):
        deadline = time.monotonic() + timeout
        text = b""
        fd = self.proc.stdout.fileno()
        while time.monotonic() < deadline:
            match = re.search(rb"http://127\.0\.0\.1:(\d+)/dav/", text)
            if match:
                return int(match.group(1))
            ready, _, _ = select.select([fd], [], [], 0.2)
            if ready:
                chunk = os.read(fd, 4096)
                if not chunk:
                    break
                text += chunk
        raise StartError("skylift serve printed no URL within %ds (exit %s): %s"
                         % (timeout, self.proc.poll(), text.decode("utf-8", "replace")[-300:]))

    def _wait_answering(self, timeout):
        deadline = time.monotonic() + timeout
        last = None
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise StartError("skylift serve exited with %s during start-up" % self.proc.returncode)
            try:
                status, _, _ = self.client.request("PROPFIND", "/dav/", headers={"Depth": "0"}, timeout=5)
                if status == 207:
                    return
                last = status
            except OSError as e:
                last = e
            time.sleep(0.05)
        raise StartError("skylift serve did not answer PROPFIND /dav/ within %ds (last: %s)" % (timeout, last))

    def wait_exit(self, timeout):
        try:
            self.proc.wait(timeout=timeout)
            return True
        except subprocess.TimeoutExpired:
            return False

    def kill(self):
        if self.proc.poll() is None:
            os.kill(self.proc.pid, signal.SIGKILL)
        self.proc.wait()
        if self.proc.stdout:
            self.proc.stdout.close()
        self.log.close()


class StartError(Exception):
    pass


# --- Observation -------------------------------------------------------------------------------------------

class Entry:
    """What a client sees at one name: a folder or a file (its bytes' SHA-256 and size), with its dead properties."""

    __slots__ = ("kind", "sha", "size", "props")

    def __init__(self, kind, props, sha=None, size=None):
        self.kind, self.props, self.sha, self.size = kind, props, sha, size

    def key(self):
        return (self.kind, self.sha, self.size, tuple(sorted(self.props.items())))

    def __eq__(self, other):
        return isinstance(other, Entry) and self.key() == other.key()

    def __hash__(self):
        return hash(self.key())


def canonical(element):
    """A dead property's value as comparable text (namespace-qualified names, whitespace-trimmed text)."""
    inner = "".join(canonical(child) for child in element)
    return "<%s>%s%s</>" % (element.tag, (element.text or "").strip(), inner)


def observe(client, known):
    """Walks /dav/ with PROPFIND Depth 1 (allprop) and GETs every file.

    Returns (snapshot, problems): snapshot maps a path below /dav/ ("" is the root) to an Entry; problems are
    violations visible while reading: a `.skylift-*` name in a listing, a listed file that cannot be read, a
    served `Repr-Digest` that is not the body's.
    """
    snapshot, problems = {}, []
    todo = [""]
    while todo:
        folder = todo.pop()
        status, _, body = client.request("PROPFIND", dav(folder) + ("/" if folder else ""), headers={"Depth": "1"})
        if status != 207:
            problems.append(("unreadable", "PROPFIND of /%s answered %d" % (folder, status)))
            continue
        for response in ET.fromstring(body).findall(DAV + "response"):
            path, kind, props = _describe(response)
            if path is None:
                continue
            if path == folder:
                if folder == "":
                    snapshot[""] = Entry("dir", props)
                continue
            if path.rsplit("/", 1)[-1].startswith(".skylift-"):
                problems.append(("hidden-name-visible", "PROPFIND of /%s lists the server's own name /%s" % (folder, path)))
                continue
            if kind == "dir":
                snapshot[path] = Entry("dir", props)
                todo.append(path)
            else:
                entry, problem = _read_file(client, path, props, known)
                if problem:
                    problems.append(problem)
                if entry:
                    snapshot[path] = entry
    return snapshot, problems


def _describe(response):
    href = response.findtext(DAV + "href") or ""
    path = urllib.parse.unquote(urllib.parse.urlsplit(href).path)
    if not path.startswith("/dav"):
        return None, None, None
    path = path[len("/dav"):].strip("/")
    kind, props = "file", {}
    for propstat in response.findall(DAV + "propstat"):
        if " 200" not in (propstat.findtext(DAV + "status") or ""):
            continue
        for prop in propstat.find(DAV + "prop") or []:
            if prop.tag == DAV + "resourcetype":
                kind = "dir" if prop.find(DAV + "collection") is not None else "file"
            elif not prop.tag.startswith(LIVE_NAMESPACES):
                props[prop.tag] = canonical(prop)
    return path, kind, props


def _read_file(client, path, props, known):
    status, headers, body = client.request("GET", dav(path), headers={"Want-Repr-Digest": "sha-256=10"})
    if status != 200:
        return None, ("unreadable", "/%s is listed but GET answered %d" % (path, status))
    sha = hashlib.sha256(body).hexdigest()
    entry = Entry("file", props, sha, len(body))
    served = re.search(r"sha-256=:([A-Za-z0-9+/=]+):", headers.get("repr-digest", ""))
    if served and base64.b64decode(served.group(1)).hex() != sha:
        return entry, ("digest-mismatch", "/%s: served Repr-Digest sha-256 %s but the body (%s) hashes to %s"
                       % (path, base64.b64decode(served.group(1)).hex()[:16], describe_bytes(body, known), sha[:16]))
    return entry, None


def describe_bytes(body, known):
    """Names a body by the known contents: `A`, `the first 4096 of 200000 bytes of A`, or its size and hash."""
    sha = hashlib.sha256(body).hexdigest()
    for label, data in known.items():
        if hashlib.sha256(data).hexdigest() == sha:
            return "content %s (%d B)" % (label, len(data))
    for label, data in known.items():
        if body and len(body) < len(data) and data.startswith(body):
            return "the first %d of %d bytes of %s" % (len(body), len(data), label)
    if body and body.count(0) == len(body):
        return "%d zero bytes" % len(body)
    return "%d unknown bytes (sha256 %s)" % (len(body), sha[:16])


def describe_entry(entry, known):
    if entry is None:
        return "absent"
    props = ", ".join("%s=%s" % (re.sub(r"^\{[^}]*\}", "", k), re.sub(r"^<[^>]*>|</>$", "", v))
                      for k, v in sorted(entry.props.items()))
    if entry.kind == "dir":
        what = "folder"
    else:
        what = _label(entry, known)
    return "%s, props {%s}" % (what, props)


def _label(entry, known):
    for label, data in known.items():
        if len(data) == entry.size and hashlib.sha256(data).hexdigest() == entry.sha:
            return "file %s (%d B)" % (label, entry.size)
    return "file of %d unknown bytes (sha256 %s)" % (entry.size, entry.sha[:16])


# --- Temporaries on disk ---------------------------------------------------------------------------------

# Names the server keeps for good at the root (state, not temporaries).
PERSISTENT_AT_ROOT = {".skylift-uploads", ".skylift-webapp", ".skylift-scrub.json", ".skylift-props-root",
                      ".skylift-journal", ".skylift-thumbs"}
UPLOADS = ".skylift-uploads"
# Intent records of unfinished operations (a MOVE replacing a folder): the next start finishes them, so after
# its sweep the folder is empty.
JOURNAL = ".skylift-journal"
# The server's temp-file name patterns outside its prefix (AtomicFile's default temp name).
ATOMIC_TEMP = re.compile(r"^\..+\.\d+\.tmp$")


def temporaries(root):
    """Every temporary the store holds: `.skylift-*` names other than the server's lasting state (anywhere
    below the root; `.skylift-props.*` sidecars count as state), AtomicFile temp names, every entry of the
    journal folder, and in the uploads folder `.joining` and `.tmp` files and files of an upload that has no
    `.info` record (or a record without its `.data`)."""
    found = []
    for folder, dirs, files in os.walk(root):
        relative = os.path.relpath(folder, root)
        relative = "" if relative == "." else relative + "/"
        for name in list(dirs) + files:
            if name.startswith(".skylift-"):
                if (folder == root and name in PERSISTENT_AT_ROOT) or name.startswith(".skylift-props."):
                    continue
                found.append(relative + name)
            elif ATOMIC_TEMP.match(name):
                found.append(relative + name)
        # Never walk into the server's state folders or into a temporary folder (reported once, whole).
        dirs[:] = [d for d in dirs if not d.startswith(".skylift-")]
    journal = os.path.join(root, JOURNAL)
    found += [JOURNAL + "/" + name for name in (os.listdir(journal) if os.path.isdir(journal) else [])]
    found += upload_leftovers(root)
    return sorted(found)


def uploads(root):
    """The uploads folder's files grouped by upload id: {id: {suffix, ...}}."""
    by_id = {}
    folder = os.path.join(root, UPLOADS)
    for name in os.listdir(folder) if os.path.isdir(folder) else []:
        upload_id, _, suffix = name.partition(".")
        by_id.setdefault(upload_id, set()).add(suffix)
    return by_id


def upload_leftovers(root):
    found = []
    for upload_id, suffixes in sorted(uploads(root).items()):
        for suffix in sorted(suffixes):
            name = "%s/%s.%s" % (UPLOADS, upload_id, suffix)
            if suffix.endswith("joining") or suffix.endswith("tmp"):
                found.append(name)
            elif "info" not in suffixes:
                found.append(name + " (no .info record)")
            elif suffix == "info" and "data" not in suffixes:
                found.append(name + " (no .data file)")
    return found
