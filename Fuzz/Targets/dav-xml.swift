import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif
@testable import StorageServer

/// WebDAV request bodies (PROPFIND, PROPPATCH, LOCK) through DAVXML.parse. Property: a parsed element's
/// stand-alone form (how a dead property is stored) parses again to an element of the same name.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzDAVXML(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    guard let body = FuzzInput(data, size).xmlBody, let root = DAVXML.parse(body) else { return 0 }
    var pending = [root]
    var visited = 0
    while let element = pending.popLast(), visited < 10_000 {
        visited += 1
        _ = DAVXML.name(of: element)
        _ = DAVXML.child(element, "prop")
        pending += DAVXML.children(element)
    }
    for element in [root] + DAVXML.children(root) {
        let stored = DAVXML.standalone(element)
        guard let again = DAVXML.parse(Array(stored.utf8)) else {
            require(false, "standalone form does not parse: \(stored)")
            return 0
        }
        require(DAVXML.name(of: again) == DAVXML.name(of: element), "standalone form renames \(stored)")
    }
    return 0
}
