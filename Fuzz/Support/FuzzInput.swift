import Foundation

/// The bytes libFuzzer hands a target, with the few ways targets read them.
struct FuzzInput {
    let bytes: [UInt8]

    init(_ data: UnsafePointer<UInt8>, _ size: Int) {
        bytes = Array(UnsafeBufferPointer(start: data, count: size))
    }

    /// The input as text (invalid UTF-8 repaired, as a header value would reach a parser).
    var text: String { String(decoding: bytes, as: UTF8.self) }

    /// The text split at newlines into `count` fields (missing ones empty): several header values at once.
    func fields(_ count: Int) -> [String] {
        var parts = text.split(separator: "\n", maxSplits: count - 1, omittingEmptySubsequences: false).map(String.init)
        while parts.count < count { parts.append("") }
        return parts
    }

    /// An Int64 made of the first eight bytes (a length to resolve against), and the rest as text.
    func numberAndText() -> (Int64, String) {
        var n: Int64 = 0
        for b in bytes.prefix(8) { n = n << 8 | Int64(b) }
        return (n, String(decoding: bytes.dropFirst(8), as: UTF8.self))
    }
}

/// A violated property: prints what and stops the process so libFuzzer keeps the input as a crash.
func require(_ condition: @autoclosure () -> Bool, _ message: @autoclosure () -> String,
             file: StaticString = #file, line: UInt = #line) {
    if !condition() {
        FileHandle.standardError.write(Data("property violated at \(file):\(line): \(message())\n".utf8))
        abort()
    }
}
