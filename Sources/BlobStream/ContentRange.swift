import Foundation

/// `Content-Range: bytes first-last/total` (or `bytes */total`).
struct ContentRange {
    var first: Int64?
    var last: Int64?
    var total: Int64?

    init?(_ value: String) {
        let v = value.trimmingCharacters(in: .whitespaces)
        guard v.hasPrefix("bytes ") else { return nil }
        let rest = v.dropFirst(6)
        let halves = rest.split(separator: "/", maxSplits: 1).map(String.init)
        guard halves.count == 2 else { return nil }
        total = halves[1] == "*" ? nil : Int64(halves[1])
        if halves[0] != "*" {
            let ends = halves[0].split(separator: "-", maxSplits: 1)
            guard ends.count == 2, let a = Int64(ends[0]), let b = Int64(ends[1]) else { return nil }
            first = a
            last = b
        }
    }
}
