import Foundation
import SkyliftHTTPServer
import SkyliftCore

/// PROPFIND (depth 0 and 1) and PROPPATCH (RFC 4918 §9.1, §9.2).
extension WebDAV {
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
        guard let entry = FileTree.entry(target) else { return .text(404, "not found: \(target.relative)") }
        var resources = [(target, entry.stat)]
        if depth == "1" && entry.stat.isDirectory { resources += FileTree.members(of: entry, at: target) }
        // Members' properties are read through the folder, opened once, not by walking from the root for each.
        let folder = resources.count > 1 ? try? entry.target.openFolder() : nil
        defer { folder?.close() }
        let multistatus = DAVXML.dav("multistatus", resources.map { path, stat in
            describe(path, stat, wanted) {
                guard let folder, path != target else { return properties.load(path) }
                return properties.load(in: folder, path.name) ?? properties.load(path)
            }
        })
        return DAVXML.response(207, multistatus)
    }

    private func describe(_ path: StoragePath, _ stat: FileStat, _ wanted: Request,
                          loadDead: () -> [DeadProperties.Entry]) -> XMLTree {
        // A PROPFIND naming only live properties (most clients' listings) needs no read of the stored set.
        var needsDead = true
        if case let .some(names) = wanted { needsDead = names.contains { !Self.liveProperties.contains($0) } }
        let dead = needsDead ? loadDead() : []
        var found: [XMLTree] = [], missing: [XMLTree] = []
        switch wanted {
        case .all:
            found = Self.liveProperties.compactMap { live($0, path, stat) } + dead.compactMap { DAVXML.element($0.xml) }
        case .names:
            found = Self.liveProperties.filter { live($0, path, stat) != nil }.map(DAVXML.empty)
                + dead.map { DAVXML.empty($0.property) }
        case let .some(names):
            for name in names {
                if let value = live(name, path, stat) ?? dead.first(where: { $0.property == name }).flatMap({ DAVXML.element($0.xml) }) {
                    found.append(value)
                } else {
                    missing.append(DAVXML.empty(name))
                }
            }
        }
        var children = [DAVXML.dav("href", text: path.href(collection: stat.isDirectory))]
        if !found.isEmpty || missing.isEmpty { children.append(propstat(found, 200)) }
        if !missing.isEmpty { children.append(propstat(missing, 404)) }
        return DAVXML.dav("response", children)
    }

    func propstat(_ props: [XMLTree], _ status: Int) -> XMLTree {
        DAVXML.dav("propstat", [DAVXML.dav("prop", props), DAVXML.dav("status", text: DAVXML.statusLine(status))])
    }

    /// A live property's current value, nil when it does not apply to this resource.
    private func live(_ name: PropertyName, _ path: StoragePath, _ stat: FileStat) -> XMLTree? {
        guard name.namespace == "DAV:" else { return digestProperty(name, path, stat) }
        switch name.name {
        case "displayname": return DAVXML.dav("displayname", text: path.name)
        case "getcontentlength": return stat.isDirectory ? nil : DAVXML.dav("getcontentlength", text: String(stat.size))
        case "getcontenttype": return stat.isDirectory ? nil : DAVXML.dav("getcontenttype", text: MediaType.forPath(path.name))
        case "getetag": return DAVXML.dav("getetag", text: stat.etag)
        case "getlastmodified": return DAVXML.dav("getlastmodified", text: HTTPDate.format(stat.lastModified))
        case "resourcetype": return DAVXML.dav("resourcetype", stat.isDirectory ? [DAVXML.dav("collection")] : [])
        case "supportedlock":
            let entries = ["exclusive", "shared"].map { scope in
                DAVXML.dav("lockentry", [DAVXML.dav("lockscope", [DAVXML.dav(scope)]), DAVXML.dav("locktype", [DAVXML.dav("write")])])
            }
            return DAVXML.dav("supportedlock", entries)
        case "lockdiscovery": return lockDiscovery(locks.covering(path))
        default: return nil
        }
    }

    func proppatch(_ request: HTTPRequest, target: StoragePath, body: [UInt8]) -> HTTPResponse {
        let root: XMLTree
        do { root = try DAVXML.parse(body, root: "propertyupdate", method: "PROPPATCH") } catch { return error.response }
        guard FileSystem.stat(target.filePath) != nil else { return .text(404, "not found: \(target.relative)") }
        if let refusal = checkLocks(request, target: target, changes: [Change(path: target)]) { return refusal }
        // Parse every instruction first: a malformed body changes nothing.
        var instructions: [(set: Bool, element: XMLTree)] = []
        for instruction in DAVXML.children(root) {
            let isSet = DAVXML.isDAV(instruction, "set")
            guard isSet || DAVXML.isDAV(instruction, "remove"), let prop = DAVXML.child(instruction, "prop") else {
                return .text(400, "PROPPATCH expects set and remove elements holding DAV:prop")
            }
            instructions += DAVXML.children(prop).map { (isSet, $0) }
        }
        var touched: [PropertyName] = [], protected: [PropertyName] = []
        for (_, element) in instructions {
            let name = DAVXML.name(of: element)
            if Self.liveProperties.contains(name) {
                if !protected.contains(name) { protected.append(name) }
            } else if !touched.contains(name) {
                touched.append(name)
            }
        }
        var status = 200
        do {
            try properties.update(target) { entries in
                guard protected.isEmpty else { return false }
                for (isSet, element) in instructions {
                    let name = DAVXML.name(of: element)
                    entries.removeAll { $0.property == name }
                    if isSet { entries.append(.init(property: name, xml: DAVXML.standalone(element))) }
                }
                // RFC 4918 §9.2.1: 507 when the server cannot record the property; nothing is changed.
                if entries.reduce(0, { $0 + $1.xml.utf8.count }) > DeadProperties.maxBytesPerResource {
                    status = 507
                    return false
                }
                return true
            }
        } catch let e as FileSystemError where e.cannotHoldProperties {
            status = 507
        } catch { return .text(500, "cannot store properties of \(target.relative)") }
        // All or nothing: a protected property fails the whole update (403 for it, 424 for the rest).
        var stats: [XMLTree] = []
        if !protected.isEmpty {
            stats.append(propstat(protected.map(DAVXML.empty), 403))
            if !touched.isEmpty { stats.append(propstat(touched.map(DAVXML.empty), 424)) }
        } else if !touched.isEmpty {
            stats.append(propstat(touched.map(DAVXML.empty), status))
        }
        let response = DAVXML.dav("response", [DAVXML.dav("href", text: target.href(collection: FileSystem.stat(target.filePath)?.isDirectory == true))] + stats)
        return DAVXML.response(207, DAVXML.dav("multistatus", [response]))
    }
}
