import Foundation
import SkyliftCore
import HTTPServer

/// GET and HEAD of files: validators, conditional requests and byte ranges (RFC 9110 §13, §14).
///
/// Whole files and single ranges are sent by the kernel from the descriptor; several ranges become a
/// `multipart/byteranges` body produced by reading the descriptor piece by piece.
struct RangedGet: Sendable {
    let digests: DigestStore

    func respond(_ request: HTTPRequest, path: StoragePath) -> HTTPResponse {
        // Invisible entries (links out of the root, FIFOs, sockets, devices) are 404 like missing ones.
        guard let entry = FileTree.entry(path) else { return .text(404, "not found: \(path.relative)") }
        if entry.stat.isDirectory { return listing(entry, path) }
        let fd: Int32
        do { fd = try entry.target.openFile() } catch let e as FileSystemError {
            return e.errno == ENOENT || e.errno == ENOTDIR || e.errno == ELOOP
                ? .text(404, "not found: \(path.relative)") : .text(403, "cannot read \(path.relative)")
        } catch { return .text(500, "cannot read \(path.relative)") }
        guard let stat = FileSystem.stat(fd: fd) else { close(fd); return .text(500, "cannot stat \(path.relative)") }
        var headers = HTTPHeaders()
        headers.add("ETag", stat.etag)
        headers.add("Last-Modified", HTTPDate.format(stat.lastModified))
        headers.add("Accept-Ranges", "bytes")
        addReprDigest(request, fd: fd, stat: stat, to: &headers)
        if let status = Preconditions.evaluate(request, stat: stat) {
            close(fd)
            return HTTPResponse(status: status, headers: headers)
        }
        let contentType = MediaType.forPath(path.name)
        if let rangeValue = request.headers["Range"], let range = RangeHeader(rangeValue),
           request.headers["If-Range"].map({ Preconditions.ifRangeHolds($0, stat: stat) }) ?? true {
            switch RangePlan.plan(range, length: stat.size) {
            case .whole: break
            case .unsatisfiable:
                close(fd)
                headers.add("Content-Range", "bytes */\(stat.size)")
                return .text(416, "range not satisfiable for \(stat.size) bytes", headers: headers)
            case let .partial(ranges) where ranges.count == 1:
                headers.add("Content-Type", contentType)
                headers.add("Content-Range", ranges[0].contentRange(total: stat.size))
                return HTTPResponse(status: 206, headers: headers,
                                    body: .file(descriptor: fd, offset: ranges[0].offset, length: ranges[0].length))
            case let .partial(ranges):
                let body = MultipartRanges(fd: fd, ranges: ranges, total: stat.size, contentType: contentType)
                headers.add("Content-Type", "multipart/byteranges; boundary=\(body.boundary)")
                return HTTPResponse(status: 206, headers: headers, body: .stream(length: body.length, producer: body))
            }
        }
        headers.add("Content-Type", contentType)
        return HTTPResponse(status: 200, headers: headers, body: .file(descriptor: fd, offset: 0, length: stat.size))
    }

    /// A plain HTML index, so a browser pointed at a folder sees its contents: what GET would serve, nothing else.
    private func listing(_ folder: FileTree.Entry, _ path: StoragePath) -> HTTPResponse {
        var html = "<!DOCTYPE html><html><head><meta charset=\"utf-8\"><title>\(escapeHTML(path.relative))</title></head><body><ul>\n"
        // Relative links: the index stays right wherever the folder is mounted (behind `skylift proxy`, a prefix).
        if !path.isRoot { html += "<li><a href=\"../\">../</a></li>\n" }
        for (child, stat) in FileTree.members(of: folder, at: path) {
            let isDir = stat.isDirectory
            let href = "./" + (child.name.addingPercentEncoding(withAllowedCharacters: .hrefSegment) ?? "") + (isDir ? "/" : "")
            html += "<li><a href=\"\(escapeHTML(href))\">\(escapeHTML(child.name))\(isDir ? "/" : "")</a></li>\n"
        }
        html += "</ul></body></html>\n"
        return HTTPResponse(status: 200, headers: ["Content-Type": "text/html; charset=utf-8"], body: .bytes(Array(html.utf8)))
    }

    private func escapeHTML(_ s: String) -> String {
        s.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;").replacingOccurrences(of: "\"", with: "&quot;")
    }
}

/// A `multipart/byteranges` body (RFC 9110 §14.6): part headers from memory, part bodies read from the file.
final class MultipartRanges: HTTPBodyProducer {
    private enum Piece {
        case text([UInt8])
        case file(offset: Int64, length: Int64)

        var length: Int64 {
            switch self {
            case let .text(b): Int64(b.count)
            case let .file(_, length): length
            }
        }
    }

    let boundary = "skylift-" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased()
    let length: Int64
    private let fd: Int32
    private let pieces: [(start: Int64, piece: Piece)]

    init(fd: Int32, ranges: [ByteRange], total: Int64, contentType: String) {
        self.fd = fd
        var list: [(Int64, Piece)] = []
        var at: Int64 = 0
        func add(_ p: Piece) { list.append((at, p)); at += p.length }
        for (i, r) in ranges.enumerated() {
            let head = (i == 0 ? "" : "\r\n") + "--\(boundary)\r\nContent-Type: \(contentType)\r\n"
                + "Content-Range: \(r.contentRange(total: total))\r\n\r\n"
            add(.text(Array(head.utf8)))
            add(.file(offset: r.offset, length: r.length))
        }
        add(.text(Array("\r\n--\(boundary)--\r\n".utf8)))
        pieces = list
        length = at
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
        case let .file(offset, _):
            let n = pread(fd, buffer.baseAddress, want, off_t(offset + within))
            // Zero or an error means the file shrank or vanished under us: cut the response short.
            return n > 0 ? .bytes(n) : .failed
        }
    }

    func close() { _ = Foundation.close(fd) }
}
