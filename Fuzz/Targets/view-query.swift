import Foundation
@testable import SkyliftStorageServer

/// The query of `?thumb=` and `?timeline` requests: any text parses or is refused without trapping; a parse keeps
/// within the bounds, and every name it reports is found again by `has` and `value`.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzViewQuery(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let input = FuzzInput(data, size)
    guard let query = ViewQuery(input.text) else { return 0 }
    require(input.text.utf8.count <= ViewQuery.maxLength && query.pairs.count <= ViewQuery.maxPairs, "bounds not kept")
    for pair in query.pairs {
        require(query.has(pair.name) && query.value(pair.name) != nil, "\(pair.name) parsed but not found")
    }
    return 0
}
