import Foundation
@testable import SkyliftStorageServer

/// The WebDAV `If` header: parsing and evaluation never trap; every token evaluation sees was parsed; a list
/// of only `Not` conditions on tokens nobody holds holds.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzIfHeader(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let input = FuzzInput(data, size)
    guard let header = IfHeader(input.text) else { return 0 }
    let root = StoragePath(segments: [], rootPath: "/nonexistent-fuzz-root")
    let tokens = header.tokens
    var asked = Set<String>()
    _ = header.evaluate(requestPath: root, resolve: { _ in root }, etag: { _ in "\"fuzz\"" },
                        locks: { _ in asked.insert("locks"); return [] })
    for list in header.lists {
        for c in list.conditions { if case let .token(t) = c.kind { require(tokens.contains(t), "token \(t) missing") } }
    }
    let allNegatedTokens = header.lists.contains { list in
        list.resource == nil && !list.conditions.isEmpty
            && list.conditions.allSatisfy { c in if case .token = c.kind { c.negated } else { false } }
    }
    if allNegatedTokens {
        let holds = header.evaluate(requestPath: root, resolve: { _ in root }, etag: { _ in nil }, locks: { _ in [] })
        require(holds, "a list of Not <token> conditions failed with no locks held")
    }
    return 0
}
