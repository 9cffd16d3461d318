import Foundation
import SkyliftHTTPClient

/// A request body that is another request's response, read through the same transport: `copy`'s shape (a
/// PATCH or PUT whose body stream pulls from a GET). `read` blocks its thread (the sending transfer's) until
/// the GET, pumped by a task, has delivered bytes.
final class RelayedStream: InputStream {
    /// What the pumping task hands to the reading thread.
    private final class Relay: @unchecked Sendable {
        // @unchecked: every stored var is touched only while holding `condition`.
        let condition = NSCondition()
        var buffered: [UInt8] = []
        var ended = false
        var failure: (any Error)?

        func deliver(_ chunk: [UInt8], end: Bool, failure: (any Error)? = nil) {
            condition.lock()
            buffered += chunk
            ended = end
            self.failure = failure
            condition.broadcast()
            condition.unlock()
        }
    }

    private let relay = Relay()
    private let transport: any HTTPTransport
    private let source: URL
    /// Touched only by the one thread reading the stream.
    private var status: Stream.Status = .notOpen

    init(transport: any HTTPTransport, source: URL) {
        self.transport = transport
        self.source = source
        super.init(data: Data())
    }

    override func open() {
        status = .open
        let (relay, transport, source) = (self.relay, self.transport, self.source)
        Task.detached {
            do {
                for try await chunk in try await transport.execute(HTTPClientRequest(url: source)).body {
                    relay.deliver(chunk, end: false)
                }
                relay.deliver([], end: true)
            } catch {
                relay.deliver([], end: true, failure: error)
            }
        }
    }

    override func read(_ buffer: UnsafeMutablePointer<UInt8>, maxLength len: Int) -> Int {
        relay.condition.lock()
        defer { relay.condition.unlock() }
        while relay.buffered.isEmpty && !relay.ended { relay.condition.wait() }
        if relay.failure != nil {
            status = .error
            return -1
        }
        let n = min(len, relay.buffered.count)
        guard n > 0 else { return 0 }
        relay.buffered.withUnsafeBufferPointer { buffer.update(from: $0.baseAddress!, count: n) }
        relay.buffered.removeFirst(n)
        return n
    }

    override func close() { status = .closed }
    override var streamStatus: Stream.Status { status }
    override var streamError: (any Error)? {
        relay.condition.lock()
        defer { relay.condition.unlock() }
        return relay.failure
    }
    override var hasBytesAvailable: Bool { status == .open }
}
