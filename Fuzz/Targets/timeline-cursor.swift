import Foundation
@testable import SkyliftStorageServer

/// The timeline's `after=` cursor (sent back by the client): any text parses or is refused without trapping, and a
/// parsed cursor's own text parses back to the same cursor; any cursor the server makes parses back.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzTimelineCursor(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let input = FuzzInput(data, size)
    if let cursor = TimelineCursor(text: input.text) {
        require(TimelineCursor(text: cursor.text) == cursor, "\(input.text) does not survive its own text")
        require((0 ..< 1_000_000_000).contains(cursor.nanoseconds), "nanoseconds \(cursor.nanoseconds)")
    }
    let (n, path) = input.numberAndText()
    let made = TimelineCursor(seconds: n, nanoseconds: Int32(truncatingIfNeeded: n & 0x3FFF_FFFF) % 1_000_000_000, path: path)
    if made.text.utf8.count <= TimelineCursor.maxLength {
        require(TimelineCursor(text: made.text) == made, "a cursor the server made does not parse: \(made)")
    }
    return 0
}
