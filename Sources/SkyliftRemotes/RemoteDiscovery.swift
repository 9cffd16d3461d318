import Foundation
import SkyliftHTTPClient
import SkyliftCore

/// What a URL answered to OPTIONS.
public struct RemoteOffer: Sendable, Hashable {
    /// The tus announcement, when the server speaks tus and can create uploads.
    public var tus: TusOptions?
    /// Whether a `DAV` compliance class was announced.
    public var dav: Bool
    /// Methods from `Allow`, upper-cased.
    public var allow: Set<String>

    /// Reads an OPTIONS answer's headers.
    public init(headers: HTTPHeaders) {
        let tus = TusOptions(headers: headers)
        self.tus = (tus?.supportsCreation ?? false) ? tus : nil
        let classes = headers.values("DAV").flatMap { $0.split(separator: ",") }.map { $0.trimmingCharacters(in: .whitespaces) }
        self.dav = classes.contains("1") || classes.contains("2") || classes.contains("3")
        self.allow = Set(headers.values("Allow").flatMap { $0.split(separator: ",") }.map { $0.trimmingCharacters(in: .whitespaces).uppercased() })
    }

    /// Which protocol to upload with: tus when offered, else WebDAV PUT, else nil.
    public var choice: RemoteProtocol? {
        if tus != nil { return .tus }
        if dav { return .webdav }
        return nil
    }
}

/// The upload protocols Skylift speaks.
public enum RemoteProtocol: String, Sendable {
    case tus, webdav
}

/// Finds out what a `--to` URL speaks and returns the matching remote.
public struct RemoteDiscovery: Sendable {
    public let http: RemoteHTTP
    public let partLength: Int64
    /// Partial uploads per file for a tus server offering `concatenation` (see ``TusRemote/partials``).
    public let tusPartials: Int

    public init(http: RemoteHTTP, partLength: Int64 = 64 << 20, tusPartials: Int = 1) {
        self.http = http
        self.partLength = partLength
        self.tusPartials = tusPartials
    }

    /// OPTIONS on `url`: tus offered → ``TusRemote`` (with WebDAV beside it when also offered), else DAV →
    /// ``WebDAVRemote``, else ``RemoteError/unsupportedServer(url:)``. For WebDAV folders, checks the URL is
    /// not a file and creates the folder when it is missing.
    public func discover(_ url: URL) async throws -> any Remote {
        let folder = RemotePath.folder(url)
        let offer = try await options(url)
        guard let choice = offer.choice else { throw RemoteError.unsupportedServer(url: url) }
        var dav: WebDAVRemote?
        if offer.dav {
            let moves = offer.allow.isEmpty || offer.allow.contains("MOVE")
            let remote = WebDAVRemote(folderURL: folder, http: http, movesIntoPlace: moves)
            try await ensureFolder(remote, given: url)
            dav = remote
        }
        switch choice {
        case .tus:
            guard let tus = offer.tus else { throw RemoteError.unsupportedServer(url: url) }
            // The URL as given: a vendor's creation endpoint may not answer under another spelling.
            return TusRemote(folderURL: folder, creationURL: url, options: tus, http: http, dav: dav, partLength: partLength,
                             partials: tusPartials)
        case .webdav:
            guard let dav else { throw RemoteError.unsupportedServer(url: url) }
            return dav
        }
    }

    /// What the URL offers. A folder that does not exist yet answers 404 on some servers: then its nearest
    /// existing ancestor is asked, and the folder is created later.
    func options(_ url: URL) async throws -> RemoteOffer {
        var target = url
        for _ in 0..<16 {
            let r = try await http.send("OPTIONS", target, headers: TusProtocol.baseHeaders())
            _ = try? await r.collect(upTo: 64 << 10)
            switch r.status {
            case 200, 204: return RemoteOffer(headers: r.headers)
            case 404 where target.path.count > 1:
                target = RemotePath.folder(target.deletingLastPathComponent())
            default:
                throw RemoteError.status(r.status, method: "OPTIONS", url: target, detail: nil)
            }
        }
        throw RemoteError.status(404, method: "OPTIONS", url: url, detail: nil)
    }

    /// Fails with ``RemoteError/notAFolder(url:)`` when `url` names a file; creates it (and missing ancestors
    /// below the first existing one) when it does not exist.
    func ensureFolder(_ remote: WebDAVRemote, given url: URL) async throws {
        let entries: [PropfindEntry]
        do {
            entries = try await remote.propfind(remote.folderURL, depth: 0)
        } catch let e as RemoteError where [405, 501].contains(e.status) {
            // No PROPFIND here: the folder cannot be inspected; MKCOL creates it or answers 405 when it exists.
            try await makeFolder(remote.folderURL, given: url)
            return
        }
        if let first = entries.first {
            if !first.isCollection { throw RemoteError.notAFolder(url: url) }
            return
        }
        // Some servers only find a file under its exact name, without the trailing slash.
        if !RemotePath.hasTrailingSlash(url), let asFile = try await remote.propfind(url, depth: 0).first, !asFile.isCollection {
            throw RemoteError.notAFolder(url: url)
        }
        try await makeFolder(remote.folderURL, given: url)
    }

    private func makeFolder(_ folder: URL, given url: URL) async throws {
        let r = try await http.send("MKCOL", folder)
        _ = try? await r.collect(upTo: 4096)
        switch r.status {
        case 200, 201, 204, 405: return
        case 409:
            // A parent is missing: create it first, then this one.
            let parent = folder.deletingLastPathComponent()
            guard parent.path.count < folder.path.count, parent.path != "/" else {
                throw RemoteError.status(409, method: "MKCOL", url: folder, detail: nil)
            }
            try await makeFolder(RemotePath.folder(parent), given: url)
            try await http.expect([200, 201, 204, 405], "MKCOL", folder)
        default:
            throw RemoteError.status(r.status, method: "MKCOL", url: folder, detail: nil)
        }
    }
}
