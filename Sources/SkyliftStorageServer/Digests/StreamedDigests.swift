import Foundation
import Synchronization

/// The whole-file digests of uploads that come in several requests (tus uploads, resumable writes to an
/// ``S3Store``), computed as their bytes stream in, so that completing an upload records its digests (see
/// ``DigestStore``) without reading the file again.
///
/// A running digest is good only while it has seen exactly the upload's bytes from offset 0, in order: a
/// receiver takes it out when a body starts at the offset it covers (or starts a new one at offset 0), feeds it
/// what it appends, and puts it back only when what it kept ends where the digest does. Anything else (a body
/// cut inside a block, a block written again, a server restart, an entry pushed out by ``limit``) loses it, and
/// completion falls back to hashing the file once. Memory: a few hundred bytes per upload, at most ``limit``.
final class StreamedDigests: Sendable {
    /// A running digest and the number of bytes from the start of the upload it has seen.
    struct Entry {
        let recorder: DigestRecorder
        let covered: Int64
        let stamp: UInt64
    }

    private struct State {
        var entries: [String: Entry] = [:]
        var clock: UInt64 = 0
    }

    let limit: Int
    private let state = Mutex(State())

    init(limit: Int = 64) { self.limit = max(1, limit) }

    /// Takes the running digest of upload `id` if it covers exactly `offset` bytes; nil otherwise (and a stale
    /// one is dropped).
    func take(_ id: String, covering offset: Int64) -> DigestRecorder? {
        state.withLock { s in
            guard let e = s.entries.removeValue(forKey: id), e.covered == offset else { return nil }
            return e.recorder
        }
    }

    /// Keeps `recorder` for upload `id`, covering `covered` bytes; the least recently kept entry goes when full.
    func keep(_ recorder: DigestRecorder, for id: String, covered: Int64) {
        state.withLock { s in
            s.clock += 1
            s.entries[id] = Entry(recorder: recorder, covered: covered, stamp: s.clock)
            if s.entries.count > limit, let oldest = s.entries.min(by: { $0.value.stamp < $1.value.stamp })?.key {
                s.entries.removeValue(forKey: oldest)
            }
        }
    }

    /// Forgets upload `id` (its bytes changed, or it is gone).
    func drop(_ id: String) { _ = state.withLock { $0.entries.removeValue(forKey: id) } }

    /// Number of uploads with a running digest.
    var count: Int { state.withLock { $0.entries.count } }
}
