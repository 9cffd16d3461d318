import Foundation
import SkyliftHTTPServer
import SkyliftWebApp
import Synchronization

/// The embedded cloud: a directory served over WebDAV (`/dav/`), tus (`/uploads/`) and ranged GET; or the
/// files of a bucket (``StorageConfiguration/bucket``), read through the same code.
///
/// Every request is authenticated with the configured token, every path is confined to the root, and
/// bodies stream both ways: uploads go to disk as they arrive, downloads are sent from the file descriptor.
public final class StorageServer: Sendable {
    private let http: HTTPServer
    /// The folder store's router; nil over a bucket.
    private let router: StorageRouter?
    /// The bucket served, if any.
    private let bucket: S3Store?
    /// The web app, over either store.
    private let web: WebApp
    /// Over a bucket: finishing stopped moves and sweeping abandoned writes, in the background while serving.
    private let upkeep = Mutex<Task<Void, Never>?>(nil)
    private let recoveryInterval: TimeInterval
    private let moveIdle: TimeInterval

    /// Prepares a server for `configuration.root` (or its bucket) on `host:port` (port 0 picks a free one).
    /// Throws ``StorageServerError`` when the root is unusable.
    public init(configuration: StorageConfiguration, host: String = "127.0.0.1", port: UInt16 = 0) throws {
        let top: any HTTPHandler
        bucket = configuration.bucket
        recoveryInterval = configuration.bucketRecoveryInterval
        moveIdle = configuration.bucketMoveIdle
        if let bucket = configuration.bucket {
            router = nil
            let router = try BucketRouter(backend: BucketBackend(store: bucket), configuration: configuration)
            web = router.web
            top = router
        } else {
            let store = try Store(root: configuration.root, digestAlgorithms: configuration.digests,
                                  spaceReserve: configuration.spaceReserve)
            let router = try StorageRouter(configuration: configuration, store: store)
            self.router = router
            web = router.web
            top = router
        }
        let routed: any HTTPHandler = configuration.effectiveHostPolicy.map { HostFilter(policy: $0, next: top) } ?? top
        let handler = ResponsePolicy(next: routed)
        http = HTTPServer(configuration: .init(host: host, port: port, limits: configuration.limits,
                                               accessLog: configuration.accessLog, tls: configuration.tls),
                          handler: handler)
    }

    /// Binds and starts serving; unfinished uploads found on disk become resumable again, and temp files a
    /// previous run left behind are removed in the background. Over a bucket, folder moves that any instance left
    /// unfinished are finished (at start and every ``StorageConfiguration/bucketRecoveryInterval`` while serving),
    /// and writes abandoned for longer than ``bucketUploadAbandonment`` are aborted (at start and hourly), in the
    /// background.
    public func start() throws {
        let started = Date()
        router?.tus.recoverAtStart()
        router?.tus.sweepExpired()
        try http.start()
        if let router { StaleTempSweep(rootPath: router.store.rootPath, cutoff: started).runInBackground() }
        if let bucket { upkeep.withLock { $0 = Self.tidy(bucket, every: recoveryInterval, moveIdle: moveIdle) } }
    }

    /// A write to a bucket untouched this long is abandoned: a running one renews its record every five minutes.
    public static let bucketUploadAbandonment: Double = 3600

    private static func tidy(_ store: S3Store, every interval: TimeInterval, moveIdle: TimeInterval) -> Task<Void, Never> {
        Task.detached {
            // Best effort: a failure here leaves the journals and uploads for the next round or another instance.
            var swept = Date.distantPast
            while !Task.isCancelled {
                _ = try? await store.recoverInterruptedMoves(idleFor: moveIdle)
                if Date().timeIntervalSince(swept) >= 3600 {
                    _ = try? await store.sweepAbandonedUploads(idleFor: bucketUploadAbandonment)
                    swept = Date()
                }
                try? await Task.sleep(for: .seconds(interval))
            }
        }
    }

    /// Stops serving and waits for open connections to end. Unfinished uploads stay on disk.
    public func stop() {
        upkeep.withLock { $0?.cancel() }
        http.stop()
    }

    /// The digests recorded for written files (sorted); empty when the store's file system keeps no
    /// extended attributes, so nothing can be recorded (see `DigestStore`). A bucket keeps SHA-256 in metadata.
    public var recordedDigests: [String] {
        guard let router else { return ["sha256"] }
        return router.store.digests.supported ? router.store.digests.algorithms.map(\.rawValue).sorted() : []
    }

    /// A one-time sign-in link for a browser (`<baseURL>/signin?code=…`, valid once, for ten minutes); nil when
    /// the server runs without auth. Throws ``StorageServerError`` when the code cannot be recorded.
    public func signInLink() throws -> String? {
        do {
            return try web.signInLink().map { baseURL + "/" + $0 }
        } catch let e as WebStateError {
            throw StorageServerError.cannotCreateState(path: e.path, errno: e.errno)
        } catch {
            throw StorageServerError.stateUnavailable(location: "the web app's state", reason: "\(error)")
        }
    }

    /// A one-time sign-in code for the web app of every server on `bucket` (`GET /signin?code=…`, valid once, for
    /// ten minutes), recorded in the bucket: what `skylift signin --store` prints. Throws
    /// ``StorageServerError/stateUnavailable(location:reason:)`` when the bucket does not take it.
    public static func signInCode(bucket: S3Store) throws -> String {
        let state = BucketWebState(backend: BucketBackend(store: bucket, threads: 1))
        do { return try SignInCodes(state: state).create() } catch {
            throw StorageServerError.stateUnavailable(location: state.location, reason: "\(error)")
        }
    }

    /// The share links of every server on `bucket`, kept in the bucket, signed with its secret (made here when no
    /// server made one yet): what `skylift share --store` makes, lists and revokes. Throws
    /// ``StorageServerError/stateUnavailable(location:reason:)`` when the bucket cannot give the secret.
    public static func shares(bucket: S3Store) throws -> Shares {
        let state = BucketWebState(backend: BucketBackend(store: bucket, threads: 1))
        do { return Shares(state: state, secret: try state.secret()) } catch {
            throw StorageServerError.stateUnavailable(location: state.location, reason: "\(error)")
        }
    }

    /// The bound port, once started.
    public var port: UInt16 { http.port }

    /// TCP connections accepted since start (clients that keep connections open make few).
    public var connectionsAccepted: Int { http.connectionsAccepted }

    /// Open connections with a request in progress now: at the caps, only these are never closed for room.
    public var connectionsBusy: Int { http.connectionsBusy }

    /// `http://host:port` of the running server.
    public var baseURL: String { http.baseURL }
}
