import Foundation
import Synchronization

/// The origin URLs of recent request targets, so a player asking for ranges of the same file again and again does
/// not have its path checked and a URL parsed and verified for every range: that was about a tenth of the proxy's
/// CPU for small warm ranges. Only targets that passed the checks are kept; a target maps to one URL for the life
/// of the proxy (the checks depend on nothing else), so an entry never goes stale.
final class OriginURLs: Sendable {
    /// Targets kept at most; past it the table starts over, which bounds memory against a client sending many
    /// distinct targets at the cost of re-checking the ones still in use.
    static let capacity = 4096
    /// Longer targets are checked every time: with this, the table holds at most a few MiB.
    static let maxTargetBytes = 512

    private let table = Mutex<[String: URL]>([:])

    /// The URL checked before for `target`, or nil.
    func url(for target: String) -> URL? { table.withLock { $0[target] } }

    /// Remembers that `target` maps to `url` (already checked to be under the origin).
    func remember(_ url: URL, for target: String) {
        guard target.utf8.count <= Self.maxTargetBytes else { return }
        table.withLock { all in
            if all.count >= Self.capacity { all.removeAll(keepingCapacity: true) }
            all[target] = url
        }
    }
}
