/// `Want-Repr-Digest` / `Want-Content-Digest` (RFC 9530 §4): the digest algorithms a client would like,
/// each with a preference from 0 (not acceptable) to 10.
///
/// The field is a Structured Field Dictionary (RFC 8941) of integers. Members that are not an integer in
/// 0...10 and keys that are not lower-case tokens are skipped, as the RFC asks of a recipient; a field too
/// long or with too many members is ignored whole (nil), as if absent.
public struct DigestPreference: Sendable, Equatable {
    /// Algorithm keys in the order sent, with their weights (a key sent twice keeps the last, RFC 8941 §3.2).
    public private(set) var weights: [(key: String, weight: Int)]

    public static let maxFieldBytes = 4096
    public static let maxMembers = 64

    public init?(_ field: String) {
        guard field.utf8.count <= Self.maxFieldBytes else { return nil }
        let members = field.split(separator: ",", omittingEmptySubsequences: false)
        guard members.count <= Self.maxMembers else { return nil }
        weights = []
        for member in members {
            let text = String(member).trimmingSpaces()
            guard let eq = text.firstIndex(of: "=") else { continue }
            let key = String(text[..<eq]), value = text[text.index(after: eq)...]
            // Parameters (`;…`) are allowed on a member and carry nothing here.
            let number = value.split(separator: ";", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
            guard Self.isKey(key), number.utf8.count <= 2, number.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }),
                  let weight = Int(number), weight <= 10 else { continue }
            weights.removeAll { $0.key == key }
            weights.append((key, weight))
        }
    }

    /// The weight given to `key`, nil when the field does not name it.
    public func weight(of key: String) -> Int? { weights.last { $0.key == key }?.weight }

    /// Of `offered` (keys the server can send), the ones to send: those the client rates highest above 0;
    /// when it rates none of them, every one it did not refuse with 0 (a recipient may send an algorithm it
    /// was not asked for, RFC 9530 §4).
    public func choose(from offered: [String]) -> [String] {
        let rated = offered.compactMap { key in weight(of: key).map { (key, $0) } }.filter { $0.1 > 0 }
        if let best = rated.map(\.1).max() { return rated.filter { $0.1 == best }.map(\.0) }
        return offered.filter { weight(of: $0) != 0 }
    }

    public static func == (a: DigestPreference, b: DigestPreference) -> Bool {
        a.weights.map(\.key) == b.weights.map(\.key) && a.weights.map(\.weight) == b.weights.map(\.weight)
    }

    /// RFC 8941 §3.1.2 key: lcalpha or "*", then lcalpha, digits, "_", "-", ".", "*"; at most 64 characters.
    private static func isKey(_ key: String) -> Bool {
        let bytes = Array(key.utf8)
        guard let first = bytes.first, bytes.count <= 64, (first >= 0x61 && first <= 0x7A) || first == 0x2A else { return false }
        return bytes.allSatisfy { ($0 >= 0x61 && $0 <= 0x7A) || ($0 >= 0x30 && $0 <= 0x39) || [0x5F, 0x2D, 0x2E, 0x2A].contains($0) }
    }
}
