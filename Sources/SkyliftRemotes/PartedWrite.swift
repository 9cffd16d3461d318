import Foundation

/// A write whose parts are independent slots of a fixed size (S3 multipart, tus partial uploads): they may be sent
/// in any order and several at once, and the service's list of stored parts is the truth about what it holds. Part `n` (1-based)
/// covers the bytes from `(n - 1) × partLength`; the last part holds what is left.
///
/// An engine that sees this capability sends the parts the service lacks with several in flight; a plain
/// ``RemoteWrite`` gets its parts one after another from the confirmed offset.
public protocol PartedWrite: RemoteWrite {
    /// Size of every part but the last, fixed for the life of the write.
    var partLength: Int64 { get }
    /// The parts the service holds: part number → stored size. Stale parts (another size) are sent again.
    func storedParts() async throws -> [Int: Int64]
    /// Sends `part` as part `number`: the whole part (replacing whatever the service holds under that number),
    /// or, for a write that ``continuesParts``, the rest of it from the bytes the service holds.
    func send(_ part: WritePart, number: Int) async throws
    /// Whether a part the service holds the first bytes of is continued from there (tus partial uploads) rather
    /// than sent whole again (S3 parts). Such a write reports those bytes in ``storedParts()`` and
    /// ``heldPrefix(ofPart:)``, and ``send(_:number:)`` takes a `part` that starts past the part's first byte.
    var continuesParts: Bool { get }
    /// For a write that ``continuesParts``: how many of part `number`'s first bytes the service holds.
    func heldPrefix(ofPart number: Int) async throws -> Int64
}

extension PartedWrite {
    public var continuesParts: Bool { false }
    public func heldPrefix(ofPart number: Int) async throws -> Int64 { 0 }

    /// How many parts `length` bytes take.
    public func partCount(length: Int64) -> Int {
        length <= 0 ? 1 : Int((length - 1) / partLength + 1)
    }

    /// The bytes the service holds in parts of the expected sizes (in any order) or, for a write that
    /// ``continuesParts``, at the start of unfinished parts; and the part numbers it lacks (in whole or in part).
    public func held(length: Int64) async throws -> (bytes: Int64, missing: [Int]) {
        let stored = try await storedParts()
        var bytes: Int64 = 0
        var missing: [Int] = []
        for number in 1...partCount(length: length) {
            let part = range(ofPart: number, length: length)
            if length > 0, stored[number] == part.length {
                bytes += part.length
            } else {
                missing.append(number)
                if continuesParts { bytes += max(0, min(stored[number] ?? 0, part.length)) }
            }
        }
        return (bytes, missing)
    }

    /// The bytes of part `number` in an object of `length` bytes.
    public func range(ofPart number: Int, length: Int64) -> (offset: Int64, length: Int64) {
        let offset = Int64(number - 1) * partLength
        return (offset, max(0, min(partLength, length - offset)))
    }
}
