import Foundation
import SkyliftFolderWatch
import SkyliftCore
import Synchronization

/// How a watch agent runs.
public struct WatchAgentConfiguration: Sendable {
    /// The folder and its settle, max-wait and ignore settings.
    public var watch: WatchConfiguration
    /// Where the queue database lives (`--state`).
    public var stateDirectory: URL
    /// Uploads running at once (`--jobs`).
    public var jobs: Int
    /// Whether deleting a local file deletes its remote copy (`--mirror-deletes`).
    public var mirrorDeletes: Bool
    /// Backoff between attempts of a failing file; attempts never run out, the delay is capped. Its space waits
    /// (`RetryPolicy.spaceDelay(beforeWait:)`, minutes) pause a file the server had no space for.
    public var retry: RetryPolicy

    public init(watch: WatchConfiguration, stateDirectory: URL, jobs: Int = 2, mirrorDeletes: Bool = false,
                retry: RetryPolicy = RetryPolicy(maxAttempts: .max, baseDelay: 2, maxDelay: 300)) {
        self.watch = watch
        self.stateDirectory = stateDirectory
        self.jobs = max(1, jobs)
        self.mirrorDeletes = mirrorDeletes
        self.retry = retry
    }
}

/// The watch agent: FolderWatch reports settled files, the durable queue keeps them, `jobs` workers send
/// them through a `FileUploading` engine.
///
/// Crash safety rests on three rules: a file is in the queue before anything is sent; a row says `done`
/// only after the server confirmed the whole object; an upload's resume record (its URL or UploadId, in the
/// file's own row) is stored before its first byte goes out. The agent schedules files and never retries a
/// request itself: the engine does that, and a file whose run failed for good is queued again with backoff. After kill -9, `uploading` rows go back to `pending` and the engine reattaches
/// and continues from the server's offset, so each file ends up on the server once.
public final class WatchAgent: Sendable {
    public let configuration: WatchAgentConfiguration
    /// Everything the agent does, in order; finishes when `run()` returns.
    public let events: AsyncStream<AgentEvent>
    let queue: UploadQueue
    let watcher: FolderWatcher
    let uploader: any FileUploading
    let continuation: AsyncStream<AgentEvent>.Continuation
    let signal = WorkSignal()
    private let control = Mutex<Control>(Control())

    private struct Control {
        var task: Task<Void, any Error>?
        var stopping = false
        var fatal: AutoUploadError?
    }

    /// Opens the queue (refusing a state folder made for another folder) and prepares the watcher.
    public init(configuration: WatchAgentConfiguration, uploader: any FileUploading) throws(AutoUploadError) {
        self.configuration = configuration
        self.uploader = uploader
        let root = configuration.watch.root.standardizedFileURL.path
        queue = try UploadQueue(stateDirectory: configuration.stateDirectory, root: root)
        do {
            watcher = try FolderWatcher(configuration.watch)
        } catch {
            throw .destinationUnusable(url: root, reason: error.description)
        }
        (events, continuation) = AsyncStream.makeStream(of: AgentEvent.self, bufferingPolicy: .bufferingNewest(10_000))
    }

    /// Runs until `stop()` (returns normally) or a fatal error such as refused credentials (throws).
    public func run() async throws(AutoUploadError) {
        let resumed = try await queue.recoverInterrupted()
        let task = Task {
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask { try await self.consumeWatchEvents(resumed: resumed) }
                for _ in 0..<configuration.jobs {
                    group.addTask { try await self.work() }
                }
                try await group.waitForAll()
            }
        }
        let stopNow = control.withLock { c -> Bool in
            c.task = task
            return c.stopping
        }
        if stopNow { task.cancel() }
        watcher.start()
        let outcome = await task.result
        watcher.stop()
        continuation.yield(.stopped)
        continuation.finish()
        if let fatal = control.withLock({ $0.fatal }) { throw fatal }
        if case let .failure(error) = outcome, !(error is CancellationError) {
            throw (error as? AutoUploadError) ?? .stateNotUsable(path: configuration.stateDirectory.path, reason: "\(error)")
        }
    }

    /// Stops taking work and pauses uploads in flight at a resumable point; `run()` then returns.
    public func stop() {
        let task = control.withLock { c -> Task<Void, any Error>? in
            c.stopping = true
            return c.task
        }
        watcher.stop()
        task?.cancel()
        signal.notifyAll()
    }

    private var isStopping: Bool { control.withLock { $0.stopping } }

    func fail(_ error: AutoUploadError) {
        control.withLock { if $0.fatal == nil { $0.fatal = error } }
        stop()
    }

    // MARK: - Watch events → queue

    private func consumeWatchEvents(resumed: Int) async throws {
        var resumedCount = resumed
        for await event in watcher.events {
            if Task.isCancelled { break }
            switch event {
            case let .scanned(scan):
                let (changed, gone) = try await queue.reconcile(scan)
                watcher.recheck(changed)
                continuation.yield(.scanned(reason: scan.reason, files: scan.files.count, changed: changed.count,
                                            gone: gone.count, resumed: resumedCount, seconds: scan.duration))
                resumedCount = 0
                for row in gone { await fileLeftTree(row) }
                signal.notifyAll()  // interrupted uploads are waiting
            case let .settled(snapshot), let .overdue(snapshot):
                let overdue: Bool
                if case .overdue = event { overdue = true } else { overdue = false }
                continuation.yield(.settled(snapshot, overdue: overdue))
                if try await queue.enqueue(snapshot) { signal.notifyAll() }
            case let .moved(from, to):
                let remoteMoved = try await followMove(from, to: to)
                continuation.yield(.moved(from: from, to: to, remoteMoved: remoteMoved))
            case let .removed(path):
                for row in try await queue.remove(path) { await fileLeftTree(row) }
            case let .notice(notice):
                continuation.yield(.notice(notice.description))
            }
        }
    }

    /// A file left the tree: its remote copy goes too only with `--mirror-deletes`.
    private func fileLeftTree(_ row: QueuedFile) async {
        guard configuration.mirrorDeletes, row.state == .done else {
            continuation.yield(.removed(path: row.path, remoteDeleted: false))
            return
        }
        do {
            try await uploader.delete(row.remotePath)
            continuation.yield(.removed(path: row.path, remoteDeleted: true))
        } catch {
            if case let .refused(url, status) = error { fail(.authenticationRefused(url: url, status: status)) }
            continuation.yield(.notice("could not delete remote copy of '\(row.path)': \(error.description)"))
        }
    }

    // MARK: - Workers

    private func work() async throws {
        while !Task.isCancelled, !isStopping {
            let generation = signal.generation
            guard let file = try await queue.claimNext() else {
                let next = try await queue.nextRetry().map { $0 - UploadQueue.now() }
                await signal.wait(after: generation, seconds: next)
                continue
            }
            try await send(file)
        }
    }

    private func send(_ claimed: QueuedFile) async throws {
        let root = configuration.watch.root
        guard let current = FolderWatcher.snapshot(of: claimed.path, in: root) else {
            try await dropOrFollow(claimed)
            return
        }
        var file = claimed
        if !current.agrees(with: claimed.snapshot) {
            // Changed since it was queued (sent at --max-wait while still changing, or touched again): send
            // what is there now; the watcher reports it again once it settles, and a different final state
            // is sent again then.
            try await queue.refresh(current)
            file.size = current.size
            file.mtimeNanoseconds = current.mtimeNanoseconds
            file.inode = current.inode
        }
        continuation.yield(.uploading(path: file.path, size: file.size, attempt: file.attempts))
        let queue = self.queue
        let continuation = self.continuation
        let path = file.path
        let size = file.size
        let skipped = Mutex(false)
        do {
            try await uploader.upload(localPath: root.appendingPathComponent(file.path).path, as: file.remotePath,
                                      expected: file.snapshot, resume: QueueResumeStore(queue: queue, snapshot: file.snapshot)) { report in
                switch report {
                case let .resumed(offset):
                    queue.recordProgress(path, uploadURL: nil, sent: offset)
                    continuation.yield(.resumed(path: path, from: offset))
                case let .progress(sent):
                    queue.recordProgress(path, uploadURL: nil, sent: sent)
                    continuation.yield(.progress(path: path, sent: sent, size: size))
                case .skipped:
                    skipped.withLock { $0 = true }
                }
            }
        } catch {
            try await handle(error, for: file)
            return
        }
        // `done` clears the upload URL: the row stops being a resume record.
        let done = try await queue.markDone(file) ? file : try await followMoveDuringUpload(file)
        if let done { continuation.yield(.uploaded(path: done.path, size: done.size, skipped: skipped.withLock { $0 })) }
    }

    private func handle(_ failure: UploadFailure, for file: QueuedFile) async throws {
        switch failure {
        case .vanished:
            try await dropOrFollow(file)
        case .cancelled:
            try await queue.release(file.path)
        case let .refused(url, status):
            try await queue.release(file.path)
            fail(.authenticationRefused(url: url, status: status))
        case .changed:
            try await queue.markFailed(file.path, reason: failure.description, retryAt: UploadQueue.now() + configuration.watch.maxWait)
            continuation.yield(.failed(path: file.path, reason: failure.description, retryInSeconds: configuration.watch.maxWait))
        case let .outOfSpace(kept, reason):
            if isStopping {
                try await queue.release(file.path)
                return
            }
            let delay = try await queue.markWaiting(file.path, reason: reason, kept: kept, policy: configuration.retry)
            continuation.yield(.waitingForSpace(path: file.path, kept: kept, size: file.size, retryInSeconds: delay))
        case let .failed(reason):
            if isStopping {
                try await queue.release(file.path)
                return
            }
            let delay = configuration.retry.delay(beforeRetry: file.attempts)
            try await queue.markFailed(file.path, reason: reason, retryAt: UploadQueue.now() + delay)
            continuation.yield(.failed(path: file.path, reason: reason, retryInSeconds: delay))
        }
    }
}
