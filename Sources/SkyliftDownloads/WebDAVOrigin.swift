import Foundation
import SkyliftHTTPClient
import SkyliftRemotes
import SkyliftCore

/// A folder or file on the embedded cloud or any WebDAV server, walked with PROPFIND `Depth: 1` folder by
/// folder (never `infinity`, which servers refuse or answer with the whole tree at once); a URL that does
/// not speak WebDAV is read as one plain http(s) file.
public struct WebDAVOrigin: DownloadOrigin {
    /// The folder or file as given.
    public let url: URL
    /// Transport plus the headers every request carries (token, `--header-file`).
    public let http: RemoteHTTP
    /// Folders listed at once while walking a tree.
    public let listings: Int
    public var label: String { Redaction.url(url, query: .drop) }

    public init(url: URL, http: RemoteHTTP, listings: Int = 4) {
        self.url = url
        self.http = http
        self.listings = max(1, listings)
    }

    public func list(filter: PathFilter) async throws(DownloadError) -> (entries: [DownloadEntry], isFolder: Bool) {
        let dav = WebDAVRemote(folderURL: url, http: http)
        let top: [PropfindEntry]
        do {
            top = try await dav.propfind(url, depth: 0, body: PropfindResponse.requestBodyWithDigests)
        } catch RemoteError.status(let code, _, _, _) where [200, 400, 403, 405, 406, 501].contains(code) {
            // Not WebDAV (a 200 is a server that ignored the method and sent the file): one plain file.
            return ([try await plainFile()], false)
        } catch {
            throw Self.failure(error)
        }
        guard let first = top.first else { throw .remote(.status(404, method: "PROPFIND", url: url, detail: nil)) }
        guard first.isCollection else {
            let name = url.lastPathComponent
            return ([entry(first, path: name, url: url)], false)
        }
        return (try await walk(RemotePath.folder(url), filter: filter), true)
    }

    /// Every file below `root`, one PROPFIND `Depth: 1` per folder, breadth first, up to `listings` folders
    /// at a time (a tree of many small folders is mostly round trips).
    private func walk(_ root: URL, filter: PathFilter) async throws(DownloadError) -> [DownloadEntry] {
        var level = [""], files: [DownloadEntry] = []
        do {
            while !level.isEmpty {
                var next: [String] = []
                for batch in stride(from: 0, to: level.count, by: listings).map({ level[$0..<min($0 + listings, level.count)] }) {
                    try await withThrowingTaskGroup(of: (files: [DownloadEntry], folders: [String]).self) { group in
                        for folder in batch { group.addTask { try await listFolder(folder, below: root, filter: filter) } }
                        for try await listed in group {
                            files += listed.files
                            next += listed.folders
                        }
                    }
                }
                level = next.sorted()
            }
        } catch {
            throw Self.failure(error)
        }
        return files.sorted { $0.path < $1.path }
    }

    /// The files of one folder that `filter` takes, and its subfolders it enters; names that would leave the
    /// folder (an href outside it, `..`, a `/` inside a name) fail the listing.
    private func listFolder(_ folder: String, below root: URL, filter: PathFilter) async throws -> (files: [DownloadEntry], folders: [String]) {
        let folderURL = folder.isEmpty ? root : RemotePath.url(folder, in: root, isFolder: true)
        let base = Self.path(of: URLComponents(url: folderURL, resolvingAgainstBaseURL: true)?.path ?? folderURL.path)
        let inside = base == "/" ? "/" : base + "/"
        let listed = try await WebDAVRemote(folderURL: root, http: http).propfind(folderURL, depth: 1, body: PropfindResponse.requestBodyWithDigests)
        var files: [DownloadEntry] = [], folders: [String] = []
        for item in listed {
            let path = Self.path(of: item.href)
            guard path != base else { continue }
            guard path.hasPrefix(inside) else { throw DownloadError.unsafeName(url: folderURL, name: item.href) }
            let leaf = String(path.dropFirst(inside.count))
            let name = folder.isEmpty ? leaf : folder + "/" + leaf
            guard !leaf.contains("/"), DownloadEntry.isSafe(name) else { throw DownloadError.unsafeName(url: folderURL, name: item.href) }
            if item.isCollection {
                if filter.entersFolder(name) { folders.append(name) }
            } else if filter.takesFile(name) {
                files.append(entry(item, path: name, url: RemotePath.url(name, in: root)))
            }
        }
        return (files, folders)
    }

    private func entry(_ item: PropfindEntry, path: String, url: URL) -> DownloadEntry {
        DownloadEntry(path: path, locator: url.absoluteString, url: url, length: item.info.length, etag: item.info.etag.map(Self.quoted),
                      lastModified: item.info.lastModified, digests: ServedDigests(sha256: item.sha256, md5: item.md5))
    }

    /// A URL that is not WebDAV: one file, described by HEAD.
    private func plainFile() async throws(DownloadError) -> DownloadEntry {
        let head: HTTPClientResponse
        do { head = try await http.send("HEAD", url, headers: Self.wantDigest) } catch { throw Self.failure(error) }
        guard head.status == 200 else { throw .remote(.status(head.status, method: "HEAD", url: url, detail: nil)) }
        let name = url.lastPathComponent.isEmpty || url.lastPathComponent == "/" ? "index" : url.lastPathComponent
        let described = describe(head, partial: false)
        return DownloadEntry(path: name, locator: url.absoluteString, url: url, length: head.headers.integer("Content-Length"),
                             etag: head.headers["ETag"], lastModified: head.headers["Last-Modified"].flatMap(HTTPDate.parse),
                             digests: described.digests)
    }

    public func read(_ entry: DownloadEntry, range: ByteRange?, validator: String?) async throws(DownloadError) -> HTTPClientResponse {
        var headers = Self.wantDigest
        if let range {
            headers.add("Range", "bytes=\(range.offset)-\(range.last)")
            if let validator { headers.add("If-Range", validator) }
        }
        let url = URL(string: entry.locator) ?? entry.url
        let response: HTTPClientResponse
        do { response = try await http.send("GET", url, headers: headers) } catch { throw Self.failure(error) }
        guard response.status == 200 || response.status == 206 else {
            let detail = try? await response.collect(upTo: 4096)
            throw .remote(.status(response.status, method: "GET", url: url, detail: detail.flatMap { Self.line($0) }))
        }
        return response
    }

    public func describe(_ response: HTTPClientResponse, partial: Bool) -> (validator: String?, digests: ServedDigests) {
        // On a 206 only Repr-Digest speaks for the whole file (Content-Digest would describe the range).
        let sha = partial ? response.headers["Repr-Digest"].flatMap { ServerDigest.sha256(["Repr-Digest": $0]) }
                          : ServerDigest.sha256(response.headers)
        return (response.validator, ServedDigests(sha256: sha))
    }

    /// `getetag` as the ETag header spells it: some servers (WsgiDAV) leave the quotes out of the property.
    static func quoted(_ etag: String) -> String {
        etag.isEmpty || etag.hasPrefix("\"") || etag.hasPrefix("W/") ? etag : "\"" + etag + "\""
    }

    /// Asks servers that can (RFC 9530; the embedded cloud) for the SHA-256 of the whole file.
    static let wantDigest: HTTPHeaders = ["Want-Repr-Digest": "sha-256=1"]

    /// The path of a decoded href (`PropfindResponse` decodes them) or URL path, without scheme, host and
    /// trailing slash.
    static func path(of href: String) -> String { WebDAVRemote.trimmedPath(href) }

    static func line(_ body: [UInt8]) -> String? {
        let text = String(decoding: body.prefix(200), as: UTF8.self)
        guard !text.contains("<") else { return nil }
        return text.split(whereSeparator: \.isNewline).first.map(String.init)
    }

    static func failure(_ error: any Error) -> DownloadError {
        if let e = error as? DownloadError { return e }
        if let e = error as? RemoteError { return .remote(e) }
        if error is CancellationError { return .cancelled(path: "listing") }
        return .source(String(describing: error))
    }
}
