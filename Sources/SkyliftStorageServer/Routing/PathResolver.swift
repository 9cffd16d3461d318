import Foundation
import SkyliftCore

/// Why a request path was refused, with the HTTP status it maps to.
enum PathRefusal: Error, Equatable {
    /// Not a well-formed path (bad escape, not UTF-8): 400.
    case malformed(String)
    /// An attempt to leave the root or to smuggle separators: 403.
    case forbidden(String)
    /// Outside the served namespace or a hidden state file: 404.
    case notFound
    /// A link on the way leads out of the root or into the server's hidden files, or loops: 404, as if absent.
    case unreachable

    var status: Int {
        switch self {
        case .malformed: 400
        case .forbidden: 403
        case .notFound, .unreachable: 404
        }
    }

    var message: String {
        switch self {
        case let .malformed(why), let .forbidden(why): why
        case .notFound, .unreachable: "not found"
        }
    }
}

/// Maps raw (still percent-encoded) request paths to places inside the root, refusing anything that
/// could reach outside it: `..`, encoded dots, slashes and backslashes, NUL, empty segments (absolute
/// paths smuggled as `//`), names of the server's own hidden files, and symlinks leading out of the root
/// (see ``FileTree``).
struct PathResolver: Sendable {
    /// The root's real path.
    let rootPath: String
    /// The root held open, where walks start (see ``RootFolder``); nil opens `rootPath` for each walk.
    var rootFolder: RootFolder? = nil
    /// Names starting with this are the server's own (temp files, property sidecars, upload state).
    static let hiddenPrefix = ".skylift-"
    /// Raw paths resolved lately without a walk, and their segments: the answer depends on the text alone, and the
    /// same paths are asked for again and again. Only short paths are kept, so the table stays small.
    private let resolved = BoundedMemo<String, [String]>(capacity: 1024)
    private static let rememberedLength = 256

    /// Resolves the raw path of a request under `/dav`. `walking` false leaves out the walk that checks links
    /// on the way, for a caller that reaches the path only through ``FileTree/entry(_:)``, which applies the
    /// same rule (an unreachable entry is 404 there too): a plain GET or HEAD, which walks once instead of twice.
    func resolve(rawPath: String, walking: Bool = true) -> Result<StoragePath, PathRefusal> {
        if !walking, let segments = resolved[rawPath] {
            return .success(StoragePath(segments: segments, rootPath: rootPath, rootFolder: rootFolder))
        }
        guard rawPath == "/dav" || rawPath.hasPrefix("/dav/") else { return .failure(.notFound) }
        let result = resolve(relativeRaw: String(rawPath.dropFirst(4)), walking: walking)
        if case let .success(path) = result, rawPath.utf8.count <= Self.rememberedLength {
            resolved.remember(path.segments, for: rawPath)
        }
        return result
    }

    /// Resolves a `Destination` header: an absolute URL or an absolute path, both under `/dav`.
    func resolve(destination: String) -> Result<StoragePath, PathRefusal> {
        var raw = Substring(destination.trimmingSpaces())
        if let scheme = raw.range(of: "://") {
            let afterAuthority = raw[scheme.upperBound...]
            guard let slash = afterAuthority.firstIndex(of: "/") else { return .failure(.malformed("Destination has no path")) }
            raw = afterAuthority[slash...]
        }
        if let q = raw.firstIndex(where: { $0 == "?" || $0 == "#" }) { raw = raw[..<q] }
        return resolve(rawPath: String(raw))
    }

    /// Resolves a relative path given in upload metadata (`relativePath`), decoded already.
    func validate(segmentsOf relative: String) -> Result<[String], PathRefusal> {
        var out: [String] = []
        for part in relative.split(separator: "/", omittingEmptySubsequences: true) {
            let s = String(part)
            if let refusal = refusal(forDecoded: Array(s.utf8)) { return .failure(refusal) }
            out.append(s)
        }
        return .success(out)
    }

    private func resolve(relativeRaw: String, walking: Bool) -> Result<StoragePath, PathRefusal> {
        var parts = relativeRaw.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        if parts.first == "" { parts.removeFirst() }
        if parts.last == "" { parts.removeLast() }
        var segments: [String] = []
        for raw in parts {
            if raw.isEmpty { return .failure(.forbidden("empty path segment")) }
            // Most segments hold no escape: checked as they are, with nothing decoded or copied.
            if !raw.utf8.contains(UInt8(ascii: "%")) {
                if let refusal = refusal(forDecoded: raw.utf8) { return .failure(refusal) }
                segments.append(raw)
                continue
            }
            if let banned = Self.bannedEscape(in: raw) { return .failure(.forbidden("encoded '\(banned)' in path")) }
            guard let bytes = PercentEncoding.decode(raw.utf8) else { return .failure(.malformed("bad percent-escape in path")) }
            if let refusal = refusal(forDecoded: bytes) { return .failure(refusal) }
            guard let s = String(validating: bytes, as: UTF8.self) else {
                return .failure(.malformed("path is not UTF-8"))
            }
            segments.append(s)
        }
        let path = StoragePath(segments: segments, rootPath: rootPath, rootFolder: rootFolder)
        guard !walking || isConfined(path) else { return .failure(.unreachable) }
        return .success(path)
    }

    /// The first `%2e`, `%2f`, `%5c` or `%00` (any case) in a raw segment: an encoded dot, slash, backslash or
    /// NUL is refused before decoding. A scan of the bytes; this runs for every segment of every request.
    private static func bannedEscape(in raw: String) -> String? {
        let bytes = Array(raw.utf8)
        func lower(_ b: UInt8) -> UInt8 { b >= UInt8(ascii: "A") && b <= UInt8(ascii: "Z") ? b + 32 : b }
        var i = 0
        while i + 2 < bytes.count {
            if bytes[i] == UInt8(ascii: "%") {
                let pair = String(decoding: [lower(bytes[i + 1]), lower(bytes[i + 2])], as: UTF8.self)
                if ["2e", "2f", "5c", "00"].contains(pair) { return "%" + pair }
            }
            i += 1
        }
        return nil
    }

    private func refusal<Bytes: Collection<UInt8>>(forDecoded bytes: Bytes) -> PathRefusal? {
        if bytes.contains(0) { return .forbidden("NUL in path") }
        if bytes.contains(UInt8(ascii: "\\")) { return .forbidden("backslash in path") }
        if bytes.contains(UInt8(ascii: "/")) { return .forbidden("slash inside a path segment") }
        if bytes.elementsEqual([46]) || bytes.elementsEqual([46, 46]) { return .forbidden("dot segment in path") }
        if bytes.starts(with: Self.hiddenPrefixBytes) { return .notFound }
        return nil
    }

    private static let hiddenPrefixBytes = Array(hiddenPrefix.utf8)

    /// True when `path`, walked from the root with links followed only while they stay inside it (see
    /// ``FileTree``), exists or is missing only from some folder on down: nothing on the way leads out.
    func isConfined(_ path: StoragePath) -> Bool {
        switch FileTree.locate(path, followLast: true) {
        case .success, .failure(.missing): true
        case .failure(.refused): false
        }
    }
}
