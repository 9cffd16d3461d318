import Foundation
import SkyliftHTTPServer
import SkyliftCore

/// PROPPATCH (RFC 4918 §9.2) over either store: the instructions and answers here, the stored set in the
/// ``StoreBackend`` (extended attributes of a folder store, object metadata in a bucket). PROPFIND is
/// ``PropertyListing``.
extension StoreWrites {
    func proppatch(_ request: HTTPRequest, target: StoragePath, body: [UInt8]) -> HTTPResponse {
        let root: XMLTree
        do { root = try DAVXML.parse(body, root: "propertyupdate", method: "PROPPATCH") } catch { return error.response }
        let item: StoredItem
        do {
            guard let found = try backend.item(target) else { return .text(404, "not found: \(target.relative)") }
            item = found
        } catch { return error.response }
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
            if PropertyListing.liveProperties.contains(name) {
                if !protected.contains(name) { protected.append(name) }
            } else if !touched.contains(name) {
                touched.append(name)
            }
        }
        var status = 200
        do {
            try backend.updateProperties(target) { entries in
                status = 200
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
        } catch where error.status == 507 {
            status = 507
        } catch { return error.response }
        // All or nothing: a protected property fails the whole update (403 for it, 424 for the rest).
        var stats: [XMLTree] = []
        if !protected.isEmpty {
            stats.append(PropertyListing.propstat(protected.map(DAVXML.empty), 403))
            if !touched.isEmpty { stats.append(PropertyListing.propstat(touched.map(DAVXML.empty), 424)) }
        } else if !touched.isEmpty {
            stats.append(PropertyListing.propstat(touched.map(DAVXML.empty), status))
        }
        let response = DAVXML.dav("response", [DAVXML.dav("href", text: target.href(collection: item.isFolder))] + stats)
        return DAVXML.response(207, DAVXML.dav("multistatus", [response]))
    }
}
