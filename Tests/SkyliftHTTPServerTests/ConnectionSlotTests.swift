import Dispatch
@testable import SkyliftHTTPServer
import Testing

/// The head deadline of one connection, against clocks read before and after it was stamped.
struct ConnectionSlotTests {
    private func slot() -> ConnectionSlot { ConnectionSlot(serial: 1, fd: -1, address: PeerAddress(nil), refused: false) }

    @Test func aConnectionStampedAfterTheSweepReadItsClockHasWaitedNoTime() {
        let sweepClock = DispatchTime.now().uptimeNanoseconds
        let accepted = slot()
        #expect(!accepted.isPastHeadDeadline(now: sweepClock, header: 1, keepAlive: 1))
        // The same after a request ended on it later than the sweep's clock.
        #expect(accepted.begin())
        accepted.end()
        #expect(!accepted.isPastHeadDeadline(now: sweepClock, header: 1, keepAlive: 1))
    }

    @Test func aConnectionWaitingLongerThanItsDeadlineIsLate() {
        let waiting = slot()
        let later = DispatchTime.now().uptimeNanoseconds + 2_000_000_000
        #expect(waiting.isPastHeadDeadline(now: later, header: 1_000_000_000, keepAlive: 5_000_000_000))
        #expect(!waiting.isPastHeadDeadline(now: later, header: 3_000_000_000, keepAlive: 0))
        // A reused connection is also granted the keep-alive time.
        #expect(waiting.begin())
        waiting.end()
        #expect(!waiting.isPastHeadDeadline(now: later, header: 1_000_000_000, keepAlive: 5_000_000_000))
        // A busy connection is never late.
        #expect(waiting.begin())
        #expect(!waiting.isPastHeadDeadline(now: later + 100_000_000_000, header: 1, keepAlive: 1))
    }
}
