import Foundation
import SkyliftCore
import SkyliftSystem
import SkyliftHTTPServer

/// GET and HEAD of files: validators, conditional requests and byte ranges (RFC 9110 §13, §14).
///
/// Whole files and single ranges are sent by the kernel from the descriptor; several ranges become a
/// `multipart/byteranges` body produced by reading the descriptor piece by piece.
struct RangedGet: Sendable {
    let digests: DigestStore

    func respond(_ request: HTTPRequest, path: StoragePath) -> HTTPResponse {
        if let (fd, stat) = FileTree.openServedFile(path) { return answer(request, path: path, fd: fd, stat: stat) }
        // Invisible entries (links out of the root, FIFOs, sockets, devices) are 404 like missing ones.
        guard let entry = FileTree.entry(path) else { return .text(404, "not found: \(path.relative)") }
        if entry.stat.isDirectory { return listing(entry, path) }
        let fd: FileDescriptor, stat: FileStat
        do { (fd, stat) = try entry.target.openFileWithStat() } catch let e as FileSystemError {
            return [.noSuchFile, .notDirectory, .tooManyLinks].contains(e.errno)
                ? .text(404, "not found: \(path.relative)") : .text(403, "cannot read \(path.relative)")
        } catch { return .text(500, "cannot read \(path.relative)") }
        return answer(request, path: path, fd: fd, stat: stat)
    }

    /// The answer from the open regular file `fd` (closed here, or handed to the response).
    private func answer(_ request: HTTPRequest, path: StoragePath, fd: FileDescriptor, stat: FileStat) -> HTTPResponse {
        var headers = HTTPHeaders()
        headers.add("ETag", stat.etag)
        headers.add("Last-Modified", HTTPDate.format(min(stat.lastModified, Date())))
        headers.add("Accept-Ranges", "bytes")
        addReprDigest(request, fd: fd, stat: stat, to: &headers)
        let outcome = Preconditions.outcome(request, stat: stat)
        if let status = outcome.status {
            fd.close()
            return HTTPResponse(status: status, headers: headers)
        }
        let answer = RangedResponse(requestHeaders: request.headers, rangeApplies: outcome == .proceed(rangeApplies: true),
                                    length: stat.size, contentType: MediaType.forPath(path.name))
        for field in answer.headers { headers.add(field.name, field.value) }
        switch answer.body {
        case .unsatisfiable:
            fd.close()
            return .text(416, "range not satisfiable for \(stat.size) bytes", headers: headers)
        case let .whole(r), let .single(r):
            if request.method != "HEAD", let bytes = Self.smallBody(fd, r) {
                fd.close()
                return HTTPResponse(status: answer.status, headers: headers, body: .bytes(bytes))
            }
            return HTTPResponse(status: answer.status, headers: headers, body: .file(descriptor: fd.rawValue, offset: r.offset, length: r.length))
        case let .multipart(parts, length):
            let body = MultipartRanges(fd: fd, parts: parts, length: length)
            return HTTPResponse(status: answer.status, headers: headers, body: .stream(length: length, producer: body))
        }
    }

    /// Bodies up to this size are read into memory and sent with the head in one write: one TCP segment instead
    /// of a head and then a `sendfile`, which for small files halves the packets and the receiver's wake-ups.
    static let smallBodyLimit: Int64 = 16 * 1024

    /// The bytes of `range`, when it is small and the file still holds all of it; nil to send from the file.
    private static func smallBody(_ fd: FileDescriptor, _ range: ByteRange) -> [UInt8]? {
        guard range.length > 0, range.length <= smallBodyLimit else { return nil }
        var complete = false
        let bytes = [UInt8](unsafeUninitializedCapacity: Int(range.length)) { buffer, count in
            let n = (try? fd.read(into: UnsafeMutableRawBufferPointer(buffer), at: range.offset, path: "small body")) ?? 0
            complete = n == buffer.count
            count = complete ? n : 0
        }
        return complete ? bytes : nil
    }

    /// A plain HTML index, so a browser pointed at a folder sees its contents: what GET would serve, nothing else.
    private func listing(_ folder: FileTree.Entry, _ path: StoragePath) -> HTTPResponse {
        var html = "<!DOCTYPE html><html><head><meta charset=\"utf-8\"><title>\(HTMLText.escaped(path.relative))</title></head><body><ul>\n"
        // Relative links: the index stays right wherever the folder is mounted (behind `skylift proxy`, a prefix).
        if !path.isRoot { html += "<li><a href=\"../\">../</a></li>\n" }
        for (child, stat) in FileTree.members(of: folder, at: path) {
            let isDir = stat.isDirectory
            let href = "./" + (child.name.addingPercentEncoding(withAllowedCharacters: .hrefSegment) ?? "") + (isDir ? "/" : "")
            html += "<li><a href=\"\(HTMLText.escaped(href))\">\(HTMLText.escaped(child.name))\(isDir ? "/" : "")</a></li>\n"
        }
        html += "</ul></body></html>\n"
        return HTTPResponse(status: 200, headers: ["Content-Type": "text/html; charset=utf-8"], body: .bytes(Array(html.utf8)))
    }
}

/// A `multipart/byteranges` body laid out by ``RangedResponse``: part headers from memory, part bodies read
/// from the file.
final class MultipartRanges: HTTPBodyProducer {
    let length: Int64
    private let fd: FileDescriptor
    private let pieces: [(start: Int64, piece: RangedResponse.Part)]

    init(fd: FileDescriptor, parts: [RangedResponse.Part], length: Int64) {
        self.fd = fd
        self.length = length
        var at: Int64 = 0
        pieces = parts.map { part in
            defer { at += part.length }
            return (at, part)
        }
    }

    func produce(into buffer: UnsafeMutableRawBufferPointer, at position: Int64) -> HTTPProduceResult {
        guard position < length else { return .end }
        guard let index = pieces.lastIndex(where: { $0.start <= position }) else { return .failed }
        let (start, piece) = pieces[index]
        let within = position - start
        let want = Int(min(Int64(buffer.count), piece.length - within))
        switch piece {
        case let .text(bytes):
            bytes.withUnsafeBytes { src in
                buffer.baseAddress!.copyMemory(from: src.baseAddress! + Int(within), byteCount: want)
            }
            return .bytes(want)
        case let .range(r):
            let view = UnsafeMutableRawBufferPointer(rebasing: buffer[0 ..< want])
            // Zero or an error means the file shrank or vanished under us: cut the response short.
            guard let n = try? fd.read(into: view, at: r.offset + within, path: "multipart part"), n > 0
            else { return .failed }
            return .bytes(n)
        }
    }

    func close() { fd.close() }
}
