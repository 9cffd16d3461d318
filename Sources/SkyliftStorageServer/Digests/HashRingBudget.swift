import Synchronization

/// How many hashing buffers the server's rings (``HashRing``) may hold beyond their own two, shared by every
/// body being hashed at once.
///
/// Why a budget: a ring with four 1 MiB buffers lets the hashing thread fall three buffers behind before the
/// connection thread must hash for it, and on two cores shared with the client that slack is what keeps the
/// hash off the PUT's time. But with eight bodies at once both cores are busy anyway, and four buffers each
/// would be 32 MiB, where `bench/serve/run.sh` holds the server to 64 MiB in all. So the first rings get the
/// extra buffers and the rest make do with two.
final class HashRingBudget: Sendable {
    private let available: Mutex<Int>

    /// `extraBuffers`: how many buffers beyond each ring's own two all rings together may hold.
    init(extraBuffers: Int) {
        available = Mutex(max(0, extraBuffers))
    }

    /// Takes up to `wanted` extra buffers; returns how many were granted (possibly none).
    func take(upTo wanted: Int) -> Int {
        available.withLock { left in
            let granted = min(max(0, wanted), left)
            left -= granted
            return granted
        }
    }

    /// Gives back buffers ``take(upTo:)`` granted.
    func giveBack(_ count: Int) {
        guard count > 0 else { return }
        available.withLock { $0 += count }
    }

    /// Extra buffers not taken now.
    var unused: Int { available.withLock { $0 } }
}
