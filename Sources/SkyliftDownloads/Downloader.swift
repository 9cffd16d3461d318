import Foundation
import SkyliftCore
import SkyliftSystem
import Synchronization

/// Brings sources back into a local folder: lists each (folder sources keep their layout below
/// `destination`, a file source lands as `destination/<name>`), fetches `jobs` files at once, makes the
/// renames durable (one `fsync` per folder touched), and with `delete` removes local files no folder
/// source has any more.
public struct Downloader: Sendable {
    /// The local folder files land in; created when missing.
    public let destination: String
    public let options: DownloadOptions

    public init(destination: String, options: DownloadOptions = DownloadOptions()) {
        self.destination = destination.count > 1 && destination.hasSuffix("/") ? String(destination.dropLast()) : destination
        self.options = options
    }

    /// Runs the whole download. `onEvent` gets each event with the path it concerns (a source's label for
    /// `listed` and for a source that failed to list).
    public func run(_ origins: [any DownloadOrigin], filter: PathFilter = .everything,
                    onEvent: @escaping @Sendable (String, DownloadEvent) -> Void) async -> DownloadSummary {
        var summary = DownloadSummary()
        do {
            try LocalFolders(root: destination).makeRoot()
        } catch {
            onEvent(destination, .failed(error))
            summary.failed.append((destination, error))
            return summary
        }
        var entries: [(entry: DownloadEntry, origin: any DownloadOrigin)] = [], seen = Set<String>()
        var listedAll = true, anyFolder = false
        for origin in origins {
            do {
                let listing = try await origin.list(filter: filter)
                anyFolder = anyFolder || listing.isFolder
                // A path two sources both have comes from the first of them.
                let fresh = listing.entries.filter { !DownloadEntry.isPartialName($0.path) && seen.insert($0.path).inserted }
                entries += fresh.map { ($0, origin) }
                onEvent(origin.label, .listed(files: fresh.count, bytes: fresh.reduce(0) { $0 + ($1.length ?? 0) }))
            } catch {
                listedAll = false
                onEvent(origin.label, .failed(error))
                summary.failed.append((origin.label, error))
            }
        }
        let results = await fetchAll(entries, onEvent: onEvent)
        summary.add(results)
        if options.delete && listedAll && anyFolder {
            summary.deleted = LocalFolders(root: destination).removeAllBut(Set(entries.map(\.entry.path)), filter: filter) { onEvent($0, .deleted) }
        }
        return summary
    }

    /// Fetches every entry, `jobs` at a time, each on an executor of its own (its file writes block).
    private func fetchAll(_ entries: [(entry: DownloadEntry, origin: any DownloadOrigin)],
                          onEvent: @escaping @Sendable (String, DownloadEvent) -> Void) async -> [(String, Result<DownloadResult, DownloadError>)] {
        let folders = LocalFolders(root: destination)
        var results: [(String, Result<DownloadResult, DownloadError>)] = []
        await withTaskGroup(of: (String, Result<DownloadResult, DownloadError>).self) { group in
            var next = 0
            func launch() {
                guard next < entries.count else { return }
                let (entry, source) = entries[next]
                next += 1
                group.addTask {
                    let executor = BlockingExecutor(name: "skylift-download")
                    let result = await withTaskExecutorPreference(executor) { () async -> Result<DownloadResult, DownloadError> in
                        do {
                            let path = try folders.prepare(entry.path)
                            let fetch = FileFetch(entry: entry, origin: source, finalPath: path, options: options) { onEvent(entry.path, $0) }
                            return .success(try await fetch.run())
                        } catch {
                            return .failure(FileFetch.failure(error, url: entry.url))
                        }
                    }
                    if case let .failure(error) = result { onEvent(entry.path, .failed(error)) }
                    if case let .success(done) = result, !done.skipped { onEvent(entry.path, .done(done)) }
                    return (entry.path, result)
                }
            }
            for _ in 0..<options.jobs { launch() }
            for await result in group {
                results.append(result)
                launch()
            }
        }
        folders.syncTouched()
        return results
    }
}

/// What a run did.
public struct DownloadSummary: Sendable {
    /// Files in place: fetched, or skipped because the local copy matched.
    public var done: [DownloadResult] = []
    /// Files (and sources that could not be listed) that failed, with why.
    public var failed: [(path: String, error: DownloadError)] = []
    /// Local files `delete` removed, relative to the destination.
    public var deleted: [String] = []

    mutating func add(_ results: [(String, Result<DownloadResult, DownloadError>)]) {
        for (path, result) in results {
            switch result {
            case let .success(r): done.append(r)
            case let .failure(e): failed.append((path, e))
            }
        }
    }
}
