import Foundation
@testable import SkyliftStorageServer

/// The `?search=` query and its paging cursor: any query parses or is refused without trapping; what parses
/// is within the bounds (1 to 256 bytes of text, a limit of 1 to 500, cursor segments that can only name an
/// entry below the folder); a cursor decodes to segments that encode back to the same cursor, and any list of
/// valid segments survives encoding and decoding.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzSearchQuery(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let f = FuzzInput(data, size).fields(2)
    _ = SearchQuery.asks(f[0])
    if case let .success(q) = SearchQuery.parse(f[0]) {
        require(!q.text.isEmpty && q.text.utf8.count <= SearchQuery.maxTextBytes, "text \(q.text.debugDescription)")
        require((1 ... SearchQuery.maxLimit).contains(q.limit), "limit \(q.limit)")
        require(q.after.count <= SearchCursor.maxSegments, "cursor of \(q.after.count) segments")
        checkSegments(q.after)
    }
    if let segments = SearchCursor.decode(f[1]) {
        checkSegments(segments)
        require(SearchCursor.decode(SearchCursor.encode(segments)) == segments, "cursor \(f[1]) does not round-trip")
    }
    // Split on the byte, as a cursor is: a Character split keeps "/" inside a name when a combining mark follows it.
    let made = f[1].utf8.split(separator: UInt8(ascii: "/")).map { String(decoding: $0, as: UTF8.self) }
    // Bytes for NUL and the prefix: a combining mark after either joins it into one Character.
    if !made.isEmpty, made.count <= SearchCursor.maxSegments,
       !made.contains(where: { $0 == "." || $0 == ".." || $0.utf8.contains(0) || $0.utf8.starts(with: ".skylift-".utf8) }),
       made.joined(separator: "/").utf8.count <= SearchCursor.maxBytes {
        require(SearchCursor.decode(SearchCursor.encode(made)) == made, "segments \(made) do not round-trip")
    }
    return 0
}

private func checkSegments(_ segments: [String]) {
    for s in segments {
        require(!s.isEmpty && s != "." && s != ".." && !s.utf8.contains(UInt8(ascii: "/")) && !s.utf8.contains(0)
                    && !s.utf8.starts(with: ".skylift-".utf8),
                "cursor segment \(s.debugDescription)")
    }
}
