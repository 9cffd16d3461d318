import Foundation
import SkyliftHTTPServer
import SkyliftCore
import Synchronization

/// An http object whose ranged reads from `gate` on wait until ``open()``: a copy from it stops midway at a
/// known point.
final class GatedSource: HTTPHandler {
    let bytes: [UInt8]
    let gate: Int
    private let state = Mutex((open: false, held: false))

    init(bytes: [UInt8], gate: Int) {
        self.bytes = bytes
        self.gate = gate
    }

    func open() { state.withLock { $0.open = true } }

    /// Whether a read was held back within `timeout` seconds.
    func waitUntilHeld(timeout: Double) -> Bool {
        let end = Date().addingTimeInterval(timeout)
        while Date() < end {
            if state.withLock({ $0.held }) { return true }
            usleep(5_000)
        }
        return false
    }

    func head(_ request: HTTPRequest) -> HTTPHeadDecision {
        var headers: HTTPHeaders = ["ETag": "\"v1\"", "Accept-Ranges": "bytes", "Content-Type": "application/octet-stream"]
        guard request.method == "GET" else {
            return .respond(HTTPResponse(status: 200, headers: headers, body: .stream(length: Int64(bytes.count), producer: NoBody())))
        }
        guard let value = request.headers["Range"], let range = RangeHeader(value),
              case let .satisfiable(ranges) = range.resolve(length: Int64(bytes.count)), let first = ranges.first else {
            return .respond(HTTPResponse(status: 200, headers: headers, body: .bytes(bytes)))
        }
        if first.offset >= Int64(gate) {
            state.withLock { $0.held = true }
            // Held on this connection's own thread; the test opens the gate before stopping the server.
            while !state.withLock({ $0.open }) { usleep(5_000) }
        }
        headers.set("Content-Range", "bytes \(first.offset)-\(first.end - 1)/\(bytes.count)")
        return .respond(HTTPResponse(status: 206, headers: headers, body: .bytes(Array(bytes[Int(first.offset)..<Int(first.end)]))))
    }

    private final class NoBody: HTTPBodyProducer {
        func produce(into buffer: UnsafeMutableRawBufferPointer, at position: Int64) -> HTTPProduceResult { .end }
        func close() {}
    }
}
