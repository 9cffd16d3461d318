import Foundation
import SkyliftCore
@testable import SkyliftStorageServer

/// WebDAV request bodies (PROPFIND, PROPPATCH, LOCK) through DAVXML.parse, which reads them with XMLReader (no
/// DTD, bounded). Properties: the reader's events are balanced and its errors printable; a tree it accepted,
/// written out again (how a dead property is stored), reads back to an equal tree.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzDAVXML(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let body = FuzzInput(data, size).bytes
    XMLEventCheck.read(body, limits: .davRequest)
    for (root, method) in [("propfind", "PROPFIND"), ("propertyupdate", "PROPPATCH"), ("lockinfo", "LOCK")] {
        _ = try? DAVXML.parse(body, root: root, method: method)
    }
    guard let tree = try? XMLReader.tree(body, limits: .davRequest) else { return 0 }
    let stored = tree.xmlString
    guard let again = try? XMLReader.tree(Array(stored.utf8), limits: .serverResponse) else {
        require(false, "written form does not read back: \(stored)")
        return 0
    }
    require(again == tree, "written form reads back different: \(stored)")
    return 0
}
