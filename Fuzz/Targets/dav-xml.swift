import Foundation
import SkyliftCore
@testable import StorageServer

/// WebDAV request bodies (PROPFIND, PROPPATCH, LOCK) through DAVXML.parse, which reads them with XMLReader (no
/// DTD, bounded). Property: a tree the reader accepted, written out again (how a dead property is stored),
/// reads back to an element of the same name.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzDAVXML(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    guard let body = FuzzInput(data, size).xmlBody else { return 0 }
    for (root, method) in [("propfind", "PROPFIND"), ("propertyupdate", "PROPPATCH"), ("lockinfo", "LOCK")] {
        _ = try? DAVXML.parse(body, root: root, method: method)
    }
    guard let tree = try? XMLReader.tree(body, limits: .davRequest) else { return 0 }
    let stored = tree.xmlString
    guard let again = try? XMLReader.tree(Array(stored.utf8), limits: .serverResponse) else {
        require(false, "written form does not read back: \(stored)")
        return 0
    }
    require(again.name == tree.name, "written form renames \(stored)")
    return 0
}
