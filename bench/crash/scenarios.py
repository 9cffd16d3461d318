"""The state-changing requests of issue #26, each with the old state it starts from.

A scenario sets up its old state through HTTP (files with known content, dead properties set with PROPPATCH,
folders with members, tus uploads), names the one request whose file-system calls are the kill points, and says
how the names it touches must look after a crash:

- every name holds its old or its new state whole (content and dead properties together), unless it belongs to
  a tree below: then the whole tree is old or new (COPY and MOVE of a folder);
- `moved` (MOVE): the moved resource is somewhere, never neither at its source nor at its destination;
- `after_crash` (tus): uploads the client was told about stay usable, and finishing them gives the right file.

The old and new states themselves are not written here: the sweep observes them, before and after the request
runs uninterrupted, so they are what the server really does (for example with dead properties on PUT).
"""
import hashlib

from store import content, tus_metadata, dav, TUS, OFFSET_TYPE

KB = 1000


class Scenario:
    def __init__(self, name, summary, setup, request, ok, known, trees=(), moved=None, after_crash=None):
        self.name, self.summary = name, summary
        self.setup, self.request, self.ok = setup, request, ok
        self.known = known
        self.trees = tuple(trees)
        self.moved = moved
        self.after_crash = after_crash


def _known(**sizes):
    return {label: content(label, size) for label, size in sizes.items()}


K = _known(A=200 * KB, B=300 * KB, C=50 * KB, D=70 * KB, E=90 * KB, KEEP=4 * KB,
           N=1536 * KB, U=200 * KB, T=400 * KB, P1=150 * KB, P2=120 * KB)


def build(*items):
    """A set-up made of (path, content label, dead properties) items in order; a label of None makes a folder."""
    def setup(client):
        for path, label, props in items:
            if label is None:
                client.mkcol(path)
            else:
                client.put(path, K[label])
            if props:
                client.proppatch(path, props)
        return {}
    return setup


# --- WebDAV -------------------------------------------------------------------------------------------------

DOCS = (("docs", None, {}), ("docs/keep.txt", "KEEP", {"note": "keep"}))
TWO_FILES = (("src.bin", "A", {"color": "red", "version": "a"}),
             ("dst.bin", "B", {"color": "blue", "version": "b", "only": "b"}),
             ("other.bin", "C", {}))
BYSTANDER = (("bystander.bin", "KEEP", {}),)


def source_tree(name):
    return ((name, None, {"tree": "source"}), (name + "/x.bin", "A", {"color": "red"}),
            (name + "/sub", None, {"level": "one"}), (name + "/sub/y.bin", "C", {"color": "green"}),
            (name + "/sub2", None, {}), (name + "/sub2/z.bin", "D", {}))


DESTINATION_TREE = (("dstt", None, {"tree": "destination"}), ("dstt/old.bin", "B", {"color": "blue"}),
                    ("dstt/sub", None, {}), ("dstt/sub/w.bin", "E", {"color": "black"}), ("dstt/only", None, {}))
PARENT = (("p", None, {}), ("p/here.bin", "KEEP", {}))
UPLOADS_FOLDER = (("up", None, {}), ("up/here.bin", "KEEP", {}))


def _destination(client, path):
    return {"Destination": client.url(dav(path)), "Overwrite": "T"}


def _copy_or_move(method, source, destination, depth=None):
    def request(client, ctx):
        headers = _destination(client, destination)
        if depth:
            headers["Depth"] = depth
        return method, dav(source), None, headers
    return request


PROPPATCH_CHANGE = ('<?xml version="1.0" encoding="utf-8"?><D:propertyupdate xmlns:D="DAV:" xmlns:c="urn:skylift-crash">'
                    "<D:set><D:prop><c:color>blue</c:color><c:owner>me</c:owner></D:prop></D:set>"
                    "<D:remove><D:prop><c:size/></D:prop></D:remove></D:propertyupdate>").encode()
LOCK_BODY = ('<?xml version="1.0" encoding="utf-8"?><D:lockinfo xmlns:D="DAV:"><D:lockscope><D:exclusive/></D:lockscope>'
             "<D:locktype><D:write/></D:locktype><D:owner>crash-sweep</D:owner></D:lockinfo>").encode()
XML = {"Content-Type": "application/xml; charset=utf-8"}


# --- tus ----------------------------------------------------------------------------------------------------

def _tus_create(client, ctx):
    headers = dict(TUS, **{"Upload-Length": str(len(K["U"])), "Upload-Metadata": tus_metadata("u.bin")})
    return "POST", dav("up") + "/", None, headers


def _tus_create_with_upload(client, ctx):
    headers = dict(TUS, **{"Upload-Length": str(len(K["U"])), "Upload-Metadata": tus_metadata("u.bin"),
                           "Content-Type": OFFSET_TYPE})
    return "POST", dav("up") + "/", K["U"], headers


def _tus_patch_setup(client):
    build(*UPLOADS_FOLDER)(client)
    data = K["T"]
    upload_id = client.tus_create("up", len(data), "t.bin")
    client.tus_patch(upload_id, 0, data[:len(data) // 2])
    return {"id": upload_id}


def _tus_patch(client, ctx):
    data = K["T"]
    half = len(data) // 2
    headers = dict(TUS, **{"Content-Type": OFFSET_TYPE, "Upload-Offset": str(half)})
    return "PATCH", "/uploads/" + ctx["id"], data[half:], headers


def _tus_concat_setup(client):
    build(*UPLOADS_FOLDER)(client)
    ids = []
    for label in ("P1", "P2"):
        upload_id = client.tus_create("up", len(K[label]), partial=True)
        client.tus_patch(upload_id, 0, K[label])
        ids.append(upload_id)
    return {"partials": ids}


def _tus_concat(client, ctx):
    headers = dict(TUS, **{"Upload-Concat": "final;" + " ".join("/uploads/" + i for i in ctx["partials"]),
                           "Upload-Metadata": tus_metadata("j.bin")})
    return "POST", dav("up") + "/", None, headers


# After-crash checks of the tus scenarios: each returns violations as (kind, message).

def _whole(observed, path, data):
    entry = observed.get(path)
    return entry is not None and entry.kind == "file" and entry.sha == hashlib.sha256(data).hexdigest()


def resume(client, upload_id, data, target, observed, acknowledged):
    """Continues an upload found after the crash from the offset the server reports; the target must then hold
    `data` whole. `acknowledged`: the client was told about the upload (it must not vanish with its file)."""
    status, offset, length = client.tus_head(upload_id)
    if status == 404:
        if acknowledged and not _whole(observed, target, data):
            return [("tus-upload-lost", "upload %s was acknowledged, is gone (HEAD 404), and %s is not there"
                     % (upload_id, target))]
        return []
    if status != 200 or offset is None:
        return [("tus-upload-unreadable", "HEAD /uploads/%s answered %d (offset %s)" % (upload_id, status, offset))]
    if length is not None and offset == length:
        if not _whole(observed, target, data):
            return [("tus-complete-not-placed", "HEAD /uploads/%s reports all %d bytes, so a client is done, but %s "
                     "does not hold them" % (upload_id, length, target))]
        return []
    if offset > len(data):
        return [("tus-offset-past-length", "HEAD /uploads/%s reports offset %d of %d" % (upload_id, offset, len(data)))]
    headers = dict(TUS, **{"Content-Type": OFFSET_TYPE, "Upload-Offset": str(offset)})
    status, _, body = client.request("PATCH", "/uploads/" + upload_id, data[offset:], headers)
    if status != 204:
        return [("tus-resume-refused", "PATCH /uploads/%s from offset %d answered %d: %s"
                 % (upload_id, offset, status, body[:120].decode("utf-8", "replace")))]
    status, _, body = client.request("GET", dav(target))
    if status != 200 or body != data:
        return [("tus-resume-wrong-bytes", "after resuming /uploads/%s from offset %d, GET %s answered %d with %d bytes "
                 "that are not the upload's" % (upload_id, offset, target, status, len(body)))]
    return []


def _new_uploads(check):
    return [i for i, suffixes in check.uploads_on_disk().items() if "info" in suffixes and i not in check.ctx.get("ids", ())]


def _after_tus_create(check):
    out = []
    for upload_id in _new_uploads(check):
        out += resume(check.client, upload_id, K["U"], "up/u.bin", check.observed, acknowledged=False)
    return out


def _after_tus_patch(check):
    return resume(check.client, check.ctx["id"], K["T"], "up/t.bin", check.observed, acknowledged=True)


def _after_tus_concat(check):
    if _whole(check.observed, "up/j.bin", K["P1"] + K["P2"]):
        return []
    out = []
    for upload_id, label in zip(check.ctx["partials"], ("P1", "P2")):
        status, offset, length = check.client.tus_head(upload_id)
        if status != 200 or offset != len(K[label]) or length != len(K[label]):
            out.append(("tus-partial-not-intact", "up/j.bin is not in place, so the client asks again, but partial upload "
                        "%s answers HEAD %d with offset %s of %s (was %d of %d)"
                        % (upload_id, status, offset, length, len(K[label]), len(K[label]))))
    if out:
        return out
    method, path, body, headers = _tus_concat(check.client, check.ctx)
    status, _, answer = check.client.request(method, path, body, headers)
    got_status, _, got = check.client.request("GET", dav("up/j.bin"))
    if status != 201 or got != K["P1"] + K["P2"]:
        out.append(("tus-concat-retry-failed", "asking again for the final upload answered %d (%s); GET up/j.bin %d with "
                    "%d bytes" % (status, answer[:100].decode("utf-8", "replace"), got_status, len(got))))
    return out


SCENARIOS = [
    Scenario("put-new", "PUT of a new 1.5 MB file into a folder", build(*DOCS),
             lambda c, ctx: ("PUT", dav("docs/new.bin"), K["N"], {}), (201,), K),
    Scenario("put-replace", "PUT replacing a file that has dead properties",
             build(*DOCS, ("docs/a.bin", "A", {"color": "red", "version": "old"})),
             lambda c, ctx: ("PUT", dav("docs/a.bin"), K["B"], {}), (204,), K),
    Scenario("copy-file", "COPY of a file with properties onto an existing file with others", build(*TWO_FILES),
             _copy_or_move("COPY", "src.bin", "dst.bin"), (204,), K),
    Scenario("copy-tree", "COPY of a tree (3 files, 3 folders, properties) onto an existing tree",
             build(*source_tree("srct"), *DESTINATION_TREE, *BYSTANDER),
             _copy_or_move("COPY", "srct", "dstt", "infinity"), (204,), K, trees=("dstt",)),
    Scenario("move-file", "MOVE of a file with properties onto an existing file with others", build(*TWO_FILES),
             _copy_or_move("MOVE", "src.bin", "dst.bin"), (204,), K, moved=("src.bin", "dst.bin")),
    Scenario("move-tree", "MOVE of a tree onto an existing tree",
             build(*source_tree("srct"), *DESTINATION_TREE, *BYSTANDER),
             _copy_or_move("MOVE", "srct", "dstt"), (204,), K, trees=("srct", "dstt"), moved=("srct", "dstt")),
    Scenario("move-tree-new", "MOVE of a tree with properties to a new name", build(*source_tree("srct"), *BYSTANDER),
             _copy_or_move("MOVE", "srct", "moved"), (201,), K, trees=("srct", "moved"), moved=("srct", "moved")),
    Scenario("delete-file", "DELETE of a file with dead properties",
             build(("f.bin", "A", {"color": "red", "version": "old"}), ("g.bin", "B", {})),
             lambda c, ctx: ("DELETE", dav("f.bin"), None, {}), (204,), K),
    Scenario("delete-tree", "DELETE of a tree with properties at every level", build(*source_tree("gone"), *BYSTANDER),
             lambda c, ctx: ("DELETE", dav("gone"), None, {}), (204,), K),
    Scenario("proppatch", "PROPPATCH setting two properties and removing one", build(("f.bin", "A", {"color": "red", "size": "small"})),
             lambda c, ctx: ("PROPPATCH", dav("f.bin"), PROPPATCH_CHANGE, XML), (207,), K),
    Scenario("mkcol", "MKCOL of a new folder", build(*PARENT),
             lambda c, ctx: ("MKCOL", dav("p/newdir"), None, {}), (201,), K),
    Scenario("lock", "LOCK of an unmapped name (creates an empty file)", build(*PARENT),
             lambda c, ctx: ("LOCK", dav("p/locked.txt"), LOCK_BODY, dict(XML, Depth="0", Timeout="Second-600")), (201,), K),
    Scenario("tus-create", "tus creation (POST, Upload-Length, no body)", build(*UPLOADS_FOLDER),
             _tus_create, (201,), K, after_crash=_after_tus_create),
    Scenario("tus-create-upload", "tus creation-with-upload carrying the whole 200 KB file", build(*UPLOADS_FOLDER),
             _tus_create_with_upload, (201,), K, after_crash=_after_tus_create),
    Scenario("tus-patch", "tus PATCH of the second half of an upload (completes it)", _tus_patch_setup,
             _tus_patch, (204,), K, after_crash=_after_tus_patch),
    Scenario("tus-concat", "tus final concatenation of two partial uploads", _tus_concat_setup,
             _tus_concat, (201,), K, after_crash=_after_tus_concat),
]

BY_NAME = {s.name: s for s in SCENARIOS}
