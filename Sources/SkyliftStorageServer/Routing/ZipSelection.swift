import Foundation

/// The members named in `?zip&name=a&name=b`: which of a folder's direct members go into its archive.
/// Names are single path segments, percent-encoded, `+` read as a space (form encoding, as browsers'
/// `URLSearchParams` write it); parameters other than `zip` and `name` are ignored.
struct ZipSelection: Equatable {
    /// At most this many names: a query long enough to hold more is refused rather than walked.
    static let maxNames = 10_000

    /// The chosen member names, first appearance first, without repeats; empty means the whole folder.
    let names: [String]

    /// Why a selection was refused (answered with 400).
    enum Refusal: Error, Equatable {
        case badEscape(String)
        case badName(String)
        case tooMany(Int)

        var message: String {
            switch self {
            case let .badEscape(raw): "name=\(raw.prefix(80)) is not valid percent-encoded UTF-8"
            case let .badName(name): "\(name.debugDescription.prefix(80)) is not a member name (empty, \".\", \"..\", \"/\" or NUL)"
            case let .tooMany(n): "a zip selection holds at most \(maxNames) names, not \(n)"
            }
        }
    }

    /// The selection in a query that starts with `zip` (`zip` alone: the whole folder).
    static func parse(query: String) -> Result<ZipSelection, Refusal> {
        var names: [String] = []
        var seen = Set<String>()
        // Bytes, not Characters: a combining mark after `&` or `=` would otherwise fuse with it into one Character.
        for pair in query.utf8.split(separator: UInt8(ascii: "&"), omittingEmptySubsequences: true) {
            guard pair.starts(with: "name=".utf8) else { continue }
            let raw = String(decoding: pair.dropFirst(5), as: UTF8.self)
            guard let name = raw.replacingOccurrences(of: "+", with: " ").removingPercentEncoding else {
                return .failure(.badEscape(raw))
            }
            guard !name.isEmpty, name != ".", name != "..", !name.contains("/"), !name.contains("\0") else {
                return .failure(.badName(name))
            }
            if seen.insert(name).inserted { names.append(name) }
            if names.count > maxNames { return .failure(.tooMany(names.count)) }
        }
        return .success(ZipSelection(names: names))
    }

    /// True for the queries that ask for a zip: `zip` alone or followed by `&` and parameters.
    static func isZip(_ query: String) -> Bool { query == "zip" || query.utf8.starts(with: "zip&".utf8) }
}
