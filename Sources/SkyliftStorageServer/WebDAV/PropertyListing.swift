import Foundation
import SkyliftHTTPServer
import SkyliftCore

/// PROPFIND, depth 0 and 1 (RFC 4918 §9.1), over either store: live properties from the store's items, dead
/// ones and digests as the store keeps them, active locks from the lock table.
struct PropertyListing: Sendable {
    let backend: any StoreBackend
    let locks: LockTable

    static let liveProperties = ["displayname", "getcontentlength", "getcontenttype", "getetag", "getlastmodified",
                                 "resourcetype", "supportedlock", "lockdiscovery"].map(PropertyName.dav)

    private enum Request {
        case all
        case names
        case some([PropertyName])
    }

    func propfind(_ request: HTTPRequest, target: StoragePath, body: [UInt8]) -> HTTPResponse {
        let depth = request.headers["Depth"]?.trimmingSpaces().lowercased() ?? "infinity"
        if depth == "infinity" { return DAVXML.error(403, condition: "propfind-finite-depth") }
        guard depth == "0" || depth == "1" else { return .text(400, "Depth must be 0, 1 or infinity") }
        var wanted = Request.all
        if !body.isEmpty {
            let root: XMLTree
            do { root = try DAVXML.parse(body, root: "propfind", method: "PROPFIND") } catch { return error.response }
            if let prop = DAVXML.child(root, "prop") {
                wanted = .some(DAVXML.children(prop).map { DAVXML.name(of: $0) })
            } else if DAVXML.child(root, "propname") != nil {
                wanted = .names
            } else if DAVXML.child(root, "allprop") == nil {
                return .text(400, "PROPFIND needs prop, propname or allprop")
            }
        }
        var resources: [StoredMember]
        do {
            guard let item = try backend.item(target) else { return .text(404, "not found: \(target.relative)") }
            resources = [StoredMember(path: target, item: item)]
            if depth == "1" && item.isFolder { resources += try backend.members(of: target) }
        } catch { return error.response }
        // The locks are read once for the whole answer, and only when lockdiscovery is asked for.
        var held = LockSet()
        let asksLocks = switch wanted {
        case .all: true
        case .names: false
        case let .some(names): names.contains(PropertyName.dav("lockdiscovery"))
        }
        if asksLocks {
            do { held = try locks.snapshot() } catch { return error.response }
        }
        let dead = backend.propertyReader(for: target, members: resources.count > 1)
        defer { dead.close() }
        let multistatus = DAVXML.dav("multistatus", resources.map { member in
            describe(member.path, member.item, wanted, held) { dead.properties(of: member.path) }
        })
        return DAVXML.response(207, multistatus)
    }

    private func describe(_ path: StoragePath, _ item: StoredItem, _ wanted: Request, _ held: LockSet,
                          loadDead: () -> [DeadProperties.Entry]) -> XMLTree {
        // A PROPFIND naming only live properties (most clients' listings) needs no read of the stored set.
        var needsDead = true
        if case let .some(names) = wanted { needsDead = names.contains { !Self.liveProperties.contains($0) } }
        let dead = needsDead ? loadDead() : []
        var found: [XMLTree] = [], missing: [XMLTree] = []
        switch wanted {
        case .all:
            found = Self.liveProperties.compactMap { live($0, path, item, held) } + dead.compactMap { DAVXML.element($0.xml) }
        case .names:
            found = Self.liveProperties.filter { live($0, path, item, held) != nil }.map(DAVXML.empty)
                + dead.map { DAVXML.empty($0.property) }
        case let .some(names):
            for name in names {
                if let value = live(name, path, item, held) ?? dead.first(where: { $0.property == name }).flatMap({ DAVXML.element($0.xml) }) {
                    found.append(value)
                } else {
                    missing.append(DAVXML.empty(name))
                }
            }
        }
        var children = [DAVXML.dav("href", text: path.href(collection: item.isFolder))]
        if !found.isEmpty || missing.isEmpty { children.append(Self.propstat(found, 200)) }
        if !missing.isEmpty { children.append(Self.propstat(missing, 404)) }
        return DAVXML.dav("response", children)
    }

    static func propstat(_ props: [XMLTree], _ status: Int) -> XMLTree {
        DAVXML.dav("propstat", [DAVXML.dav("prop", props), DAVXML.dav("status", text: DAVXML.statusLine(status))])
    }

    /// A live property's current value, nil when it does not apply to this resource.
    private func live(_ name: PropertyName, _ path: StoragePath, _ item: StoredItem, _ held: LockSet) -> XMLTree? {
        guard name.namespace == "DAV:" else { return digestProperty(name, path, item) }
        switch name.name {
        case "displayname": return DAVXML.dav("displayname", text: path.name)
        case "getcontentlength": return item.isFolder ? nil : DAVXML.dav("getcontentlength", text: String(item.size))
        case "getcontenttype": return item.isFolder ? nil : DAVXML.dav("getcontenttype", text: MediaType.forPath(path.name))
        case "getetag": return item.etag.map { DAVXML.dav("getetag", text: $0) }
        case "getlastmodified": return item.lastModified.map { DAVXML.dav("getlastmodified", text: HTTPDate.format($0)) }
        case "resourcetype": return DAVXML.dav("resourcetype", item.isFolder ? [DAVXML.dav("collection")] : [])
        case "supportedlock":
            let entries = ["exclusive", "shared"].map { scope in
                DAVXML.dav("lockentry", [DAVXML.dav("lockscope", [DAVXML.dav(scope)]), DAVXML.dav("locktype", [DAVXML.dav("write")])])
            }
            return DAVXML.dav("supportedlock", entries)
        case "lockdiscovery": return DAVLock.discovery(held.covering(path))
        default: return nil
        }
    }

    /// The value of a digest property (see `WebDAV+Digests`) for the file at `path` as `item` describes it;
    /// nil when the name is not one, the resource is a folder, or no record describes the file as it is.
    private func digestProperty(_ name: PropertyName, _ path: StoragePath, _ item: StoredItem) -> XMLTree? {
        guard name == WebDAV.reprDigestProperty || name == WebDAV.checksumsProperty, !item.isFolder,
              let record = backend.digestRecord(path, item) else { return nil }
        if name == WebDAV.reprDigestProperty {
            return XMLTree(XMLName(namespace: WebDAV.skyliftNamespace, local: "repr-digest", prefix: "S"), [],
                           text: RangedGet.reprDigest(record))
        }
        // ownCloud's form: one oc:checksum holding "TYPE:hex" words separated by spaces.
        var words: [String] = []
        if let sha1 = record.sha1 { words.append("SHA1:" + sha1.hexString) }
        if let md5 = record.md5 { words.append("MD5:" + md5.hexString) }
        words.append("SHA256:" + record.sha256.hexString)
        let checksum = XMLTree(XMLName(namespace: WebDAV.ownCloudNamespace, local: "checksum", prefix: "oc"), [],
                               text: words.joined(separator: " "))
        return XMLTree(XMLName(namespace: WebDAV.ownCloudNamespace, local: "checksums", prefix: "oc"), [checksum])
    }
}
