import Foundation
import SkyliftHTTPServer
import SkyliftCore
import Synchronization

/// An origin that breaks: it describes a resource truthfully, then either drops every body after `cutAfter`
/// bytes (and answers 503 from then on), or stalls every body until released.
final class FaultyOrigin: HTTPHandler, Sendable {
    enum Fault: Sendable {
        case cut(after: Int64)
        case stall
    }

    let data: [UInt8]
    let fault: Fault
    let broken = Atomic<Bool>(false)
    let released = DispatchSemaphore(value: 0)
    private let server = Mutex<HTTPServer?>(nil)

    init(data: [UInt8], fault: Fault) throws {
        self.data = data
        self.fault = fault
        let s = HTTPServer(configuration: .init(), handler: self)
        try s.start()
        server.withLock { $0 = s }
    }

    var base: URL { URL(string: server.withLock { $0!.baseURL })! }

    func stop() {
        released.signal()
        server.withLock { $0?.stop(); $0 = nil }
    }

    func head(_ request: HTTPRequest) -> HTTPHeadDecision {
        if broken.load(ordering: .relaxed) { return .respond(.text(503, "down")) }
        var range = ByteRange(offset: 0, length: Int64(data.count))
        var headers: HTTPHeaders = ["ETag": "\"f1\"", "Content-Type": "video/mp4"]
        var status = 200
        if let value = request.headers["Range"], case let .satisfiable(r)? = RangeHeader(value)?.resolve(length: range.length) {
            range = r[0]
            status = 206
            headers.add("Content-Range", range.contentRange(total: Int64(data.count)))
        }
        return .respond(HTTPResponse(status: status, headers: headers, body: .stream(length: range.length, producer: Body(self, range))))
    }

    final class Body: HTTPBodyProducer {
        let origin: FaultyOrigin
        let range: ByteRange
        init(_ origin: FaultyOrigin, _ range: ByteRange) {
            self.origin = origin
            self.range = range
        }

        func produce(into buffer: UnsafeMutableRawBufferPointer, at position: Int64) -> HTTPProduceResult {
            var n = Int(min(Int64(buffer.count), range.length - position))
            switch origin.fault {
            case .stall:
                origin.released.wait()
                origin.released.signal()
                return .failed
            case let .cut(after):
                if position >= after {
                    origin.broken.store(true, ordering: .relaxed)
                    return .failed
                }
                n = min(n, Int(after - position))
            }
            let start = Int(range.offset + position)
            origin.data[start ..< start + n].withUnsafeBytes { buffer.copyMemory(from: $0) }
            return .bytes(n)
        }

        func close() {}
    }
}
