import Foundation
import SkyliftHTTPClient
import SkyliftCore

/// Creating and reattaching ``TusConcatWrite``s: one partial upload per part.
extension TusRemote {
    /// Creates every partial upload of `name` (parts of `partLength` bytes) before any byte is sent, so the
    /// write's token, saved first, names them all.
    func startConcat(_ name: String, length: Int64, partLength: Int64) async throws -> any RemoteWrite {
        let count = Int((length - 1) / partLength + 1)
        var partials: [TusWrite] = []
        for number in 1...count {
            let offset = Int64(number - 1) * partLength
            partials.append(try await create(name, length: min(partLength, length - offset), concat: .partial))
        }
        return TusConcatWrite(remote: self, name: name, length: length, partLength: partLength, partials: partials)
    }

    /// Reattaches to the partial uploads a token names; nil (start over, or find the file finished) when the
    /// token is malformed, does not describe `length` bytes, or the server no longer holds one of them (the final
    /// upload may have joined them already).
    func resumeConcat(_ name: String, length: Int64, token: String) async throws -> (any RemoteWrite)? {
        let items = token.dropFirst(TusConcatWrite.tokenPrefix.count).split(separator: " ")
        guard items.count >= 2, items.count <= TusProtocol.Concat.maxParts, let partLength = Int64(digits: String(items[0])),
              partLength > 0, length > 0, (length - 1) / partLength + 1 == items.count - 1 else { return nil }
        var partials: [TusWrite] = []
        for (index, item) in items.dropFirst().enumerated() {
            guard let url = URL(string: String(item)) else { return nil }
            let expected = min(partLength, length - Int64(index) * partLength)
            let probe = TusWrite(remote: self, uploadURL: url, length: expected, blocks: nil)
            do {
                let head = try await probe.head()
                guard head.length == expected else { return nil }
                partials.append(TusWrite(remote: self, uploadURL: url, length: expected, blocks: head.blocks))
            } catch let e as RemoteError where e.disposition == .restart {
                return nil
            }
        }
        return TusConcatWrite(remote: self, name: name, length: length, partLength: partLength, partials: partials)
    }
}
