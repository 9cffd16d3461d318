import Dispatch
import Foundation
import SkyliftHTTPServer
import Synchronization
import Testing

/// A handler whose `/slow` heads block until the test lets them go (offloaded), whose `/later` bodies wait for
/// a wake from another thread (an event producer), and whose `/fast` heads answer at once.
private final class GateHandler: HTTPHandler, Sendable {
    let gate = DispatchSemaphore(value: 0)
    let slowStarted = Atomic<Int>(0)
    /// Signalled by each slow head as it starts waiting at the gate.
    let arrived = DispatchSemaphore(value: 0)

    /// Answers `.pending` first and wakes itself from another thread, then gives its bytes.
    final class Later: HTTPEventBodyProducer, @unchecked Sendable {
        // Touched by one call at a time: the server calls a producer serially.
        private var woken = false
        let body: [UInt8]
        init(_ body: [UInt8]) { self.body = body }

        func produce(into buffer: UnsafeMutableRawBufferPointer, at position: Int64, wake: HTTPWake) -> HTTPProduceResult {
            guard position < body.count else { return .end }
            guard woken else {
                woken = true
                DispatchQueue.global().asyncAfter(deadline: .now() + 0.2) { wake() }
                return .pending
            }
            let n = min(buffer.count, body.count - Int(position))
            body.withUnsafeBytes { buffer.baseAddress!.copyMemory(from: $0.baseAddress! + Int(position), byteCount: n) }
            return .bytes(n)
        }

        func close() {}
    }

    func head(_ request: HTTPRequest) -> HTTPHeadDecision {
        switch request.path {
        case "/slow":
            return .offload { [self] in
                slowStarted.add(1, ordering: .relaxed)
                arrived.signal()
                // Long enough that a test starved of threads on a loaded machine still releases it itself.
                _ = gate.wait(timeout: .now() + 120)
                return .respond(.text(200, "slow"))
            }
        case "/later":
            let body = Array(repeating: UInt8(ascii: "z"), count: 100_000)
            return .respond(HTTPResponse(status: 200, body: .stream(length: Int64(body.count), producer: Later(body))))
        default:
            return .respond(.text(200, "fast"))
        }
    }
}

/// A curl run on a thread of its own (the cooperative pool has one thread per core; blocking it in a process wait
/// would starve the test itself).
private final class CurlRun: @unchecked Sendable {
    // Written once by the thread before `done` is signalled, read only after waiting for it.
    private var output = Data()
    private let done = DispatchSemaphore(value: 0)

    init(_ args: [String]) {
        Thread.detachNewThread { [self] in
            output = (try? curl(args).out) ?? Data()
            done.signal()
        }
    }

    var result: Data {
        done.wait()
        return output
    }
}

private final class Released: Sendable { let flag = Atomic<Bool>(false) }

@Suite struct EventLoopTests {
    /// More blocked heads than there are event loops: every loop stays free, so other clients are answered while
    /// the blocked ones wait on the work threads, and each blocked one is answered once let go.
    @Test func blockedHeadsWaitOnWorkThreadsWhileTheLoopsAnswerOthers() async throws {
        let handler = GateHandler()
        let server = HTTPServer(configuration: .init(loops: 1), handler: handler)
        try server.start()
        defer { server.stop() }
        let slow = (0..<4).map { _ in CurlRun(["-m", "30", "\(server.baseURL)/slow"]) }
        for _ in 0..<200 where handler.slowStarted.load(ordering: .relaxed) < 4 { try await Task.sleep(for: .milliseconds(20)) }
        #expect(handler.slowStarted.load(ordering: .relaxed) == 4)
        // With all four blocked, ordinary requests on the one loop are still answered (curl gives up after 5 s).
        for _ in 0..<10 {
            #expect(String(decoding: try curl(["-m", "5", "\(server.baseURL)/fast"]).out, as: UTF8.self) == "fast\n")
        }
        for _ in 0..<4 { handler.gate.signal() }
        for run in slow { #expect(String(decoding: run.result, as: UTF8.self) == "slow\n") }
    }

    /// A body that answers `.pending` parks its connection and is woken from another thread; meanwhile the loop
    /// serves others, and the whole body arrives.
    @Test func aParkedBodyResumesOnItsWakeAndTheLoopServesOthers() async throws {
        let server = HTTPServer(configuration: .init(loops: 1), handler: GateHandler())
        try server.start()
        defer { server.stop() }
        let parked = (0..<3).map { _ in CurlRun(["-m", "30", "\(server.baseURL)/later"]) }
        #expect(String(decoding: try curl(["-m", "5", "\(server.baseURL)/fast"]).out, as: UTF8.self) == "fast\n")
        for run in parked { #expect(run.result == Data(repeating: UInt8(ascii: "z"), count: 100_000)) }
    }

    /// Stopping with a head still blocked waits for the work (libmicrohttpd must not stop with a connection
    /// suspended), then closes.
    @Test func stoppingWaitsForBlockedWorkToEnd() async throws {
        let handler = GateHandler()
        let server = HTTPServer(configuration: .init(loops: 1), handler: handler)
        try server.start()
        let slow = CurlRun(["-m", "30", "\(server.baseURL)/slow"])
        // A loaded machine may take seconds to start curl: the work must be under way before stop() is asked. A
        // blocking wait, not polling from a task: with the whole suite running, a task may not be resumed for longer
        // than the work would wait.
        try #require(handler.arrived.wait(timeout: .now() + 60) == .success, "the slow request never reached the handler")
        let released = Released()
        // A thread of its own: with the whole suite running, Dispatch's global queue can be busy for longer than
        // the handler's 20 s wait, and a release that never comes looks like a stop that did not wait.
        Thread {
            Thread.sleep(forTimeInterval: 0.3)
            released.flag.store(true, ordering: .releasing)
            handler.gate.signal()
        }.start()
        server.stop()
        // stop() returned only after the work was let go; the client got the answer or an end, never a hang.
        let wasReleased = released.flag.load(ordering: .acquiring)
        #expect(wasReleased)
        _ = slow.result
    }
}
