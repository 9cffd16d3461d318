import Foundation
import SkyliftCore

/// The mutable part of a ``LoaderResource``.
struct ResourceState {
    var url: URL
    var info: ContentInfo?
    var entry: CacheEntry?
    var generation = 0
    var validatedAt: ContinuousClock.Instant?
    var readers: [Int: ReaderState] = [:]
    var downloads: [Int: Download] = [:]
    /// Blocks the cache could not take, oldest first in `memoryOrder`.
    var memory: [Int: [UInt8]] = [:]
    var memoryOrder: [Int] = []
    var uncachedLogged = false
    var nextID = 0
    /// Last open, or last reader leaving.
    var lastUsed = ContinuousClock.now

    var memoryInUse: Bool { !memoryOrder.isEmpty }
}

struct ReaderState {
    let generation: Int
    let start: Int64
    let end: Int64
    var position: Int64
    var waiter: (@Sendable () -> Void)?
    var failure: (any Error)?
    var pin: CachePin?
    /// Blocks before this were present or on their way when last looked at.
    var scheduledUntil = 0

    init(generation: Int, start: Int64, end: Int64) {
        self.generation = generation
        self.start = start
        self.end = end
        self.position = start
    }
}

struct Download {
    /// Next block the download will deliver.
    var next: Int
    /// Block where it stops (exclusive); lowered when a reader elsewhere takes over the rest.
    var end: Int
    let generation: Int
    var task: Task<Void, Never>?
}

enum Either<L, R> {
    case left(L)
    case right(R)
}
