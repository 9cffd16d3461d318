import Foundation
import SkyliftHashing
import SkyliftHTTPServer
import SkyliftCore
import SkyliftSystem

/// Settings of an embedded cloud: what it serves, who may use it, how long unfinished uploads live.
public struct StorageConfiguration: Sendable {
    /// The directory served at `/dav/`. It must exist, unless ``bucket`` is set.
    public var root: URL
    /// A bucket to serve at `/dav/` instead of ``root`` (which is then not used). Over a bucket the server
    /// answers GET and HEAD with ranges and WebDAV (class 1 and 2) through the same code
    /// as over a folder, with locks and dead properties, tus uploads and the web app with share links, their state
    /// all kept in the bucket, search, the timeline (photos dated by when they were stored) and thumbnails of images
    /// (in ``thumbnailFolder``); poster frames of videos answer 501.
    public var bucket: S3Store?
    /// The token every request must carry (Bearer, or Basic with the token as password); nil disables auth.
    public var token: String?
    /// Seconds an unfinished tus upload is kept after its last change.
    public var tusExpiry: TimeInterval
    /// Largest upload accepted (tus `Tus-Max-Size`, and the cap on PUT bodies).
    public var maxUploadSize: Int64
    /// The access log: one line per finished request (method, path as sent with control bytes escaped, status,
    /// bytes, ms) at `info`; never headers or queries. Disabled by default.
    public var accessLog: Logger
    /// Connection caps (in all, per client address) and deadlines (request head, body, keep-alive).
    public var limits: HTTPLimits
    /// `Host` values answered (others get 421). Nil: without a token, loopback names and addresses only
    /// (a server nobody authenticates to must not answer a web page's rebinded name); with a token, any
    /// `Host`, since a page cannot send the token.
    public var allowedHosts: HostPolicy?
    /// Certificate and key to serve HTTPS with; nil for plain HTTP. With TLS the session cookie is `Secure`.
    public var tls: TLSIdentity?
    /// Digests recorded for every file written (served as `Repr-Digest` and in PROPFIND); SHA-256 is always
    /// kept, SHA-1 and MD5 only when listed (ownCloud clients such as rclone compare those).
    public var digests: Set<DigestAlgorithm> = [.sha256]
    /// Free space kept back: a body whose declared length would leave less than this free on the root's file
    /// system gets `507` before any of it is read. Nil: 1% of the file system, at most 64 MiB.
    public var spaceReserve: Int64?
    /// Most bytes of thumbnails kept in the store's `.skylift-thumbs` folder (least recently used go first).
    public var thumbnailCacheBytes: Int64 = 512 << 20
    /// Thumbnails made at once (the `skylift-thumbs` threads); nil: the number of cores, 2 to 8.
    public var thumbnailThreads: Int?
    /// How often a server over a ``bucket`` looks for folder moves another instance left unfinished (and finishes
    /// them), in seconds; moves whose journal has not been written for ``bucketMoveIdle`` are taken as stopped.
    public var bucketRecoveryInterval: TimeInterval = 60
    /// Seconds after which a folder move's journal that was not written again belongs to a stopped move (a running
    /// one writes it every `S3Store.moveHeartbeat`).
    public var bucketMoveIdle: TimeInterval = 120
    /// Where thumbnails of a ``bucket``'s images are kept (this machine's cache; each instance has its own). Nil:
    /// over a bucket, thumbnails answer 503. A folder store keeps them in its `.skylift-thumbs` folder.
    public var thumbnailFolder: URL?

    /// The policy in force: ``allowedHosts``, or its default for the auth setting.
    public var effectiveHostPolicy: HostPolicy? { allowedHosts ?? (token == nil ? HostPolicy() : nil) }

    public init(root: URL, token: String?, tusExpiry: TimeInterval = 24 * 3600,
                maxUploadSize: Int64 = 1 << 40, accessLog: Logger = .disabled(label: "access"),
                limits: HTTPLimits = HTTPLimits(), allowedHosts: HostPolicy? = nil) {
        self.root = root
        self.token = token
        self.tusExpiry = tusExpiry
        self.maxUploadSize = maxUploadSize
        self.accessLog = accessLog
        self.limits = limits
        self.allowedHosts = allowedHosts
    }
}

/// Why a storage server could not be set up.
public enum StorageServerError: Error, CustomStringConvertible, Equatable {
    /// The root is missing or not a directory.
    case rootNotADirectory(path: String)
    /// The hidden state directory under the root could not be created.
    case cannotCreateState(path: String, errno: Errno)
    /// The web app's state in a bucket could not be read or made.
    case stateUnavailable(location: String, reason: String)

    public var description: String {
        switch self {
        case let .rootNotADirectory(path): "storage root is not a directory: \(path)"
        case let .cannotCreateState(path, code): "cannot create \(path): \(code)"
        case let .stateUnavailable(_, reason): reason
        }
    }
}
