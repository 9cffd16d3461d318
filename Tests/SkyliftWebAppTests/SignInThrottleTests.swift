import Foundation
import Testing
@testable import SkyliftWebApp

/// The throttle's schedule and its bounds, with a clock the test moves.
@Suite struct SignInThrottleTests {
    @Test func delaysGrowFromTheSixthFailureAndStopAtTheCap() {
        let delays = (1 ... 12).map { SignInThrottle.delay(afterFailures: $0) }
        #expect(delays == [0, 0, 0, 0, 0, 1, 2, 4, 8, 8, 8, 8])
        #expect(SignInThrottle.delay(afterFailures: Int.max) == SignInThrottle.maxDelay)

        let throttle = SignInThrottle(), t0 = Date(timeIntervalSince1970: 1_000_000)
        let seen = (0 ..< 7).map { throttle.failed("a", now: t0.addingTimeInterval(Double($0))) }
        #expect(seen == [0, 0, 0, 0, 0, 1, 2])
        // Another client has a count of its own; success resets only its own.
        #expect(throttle.failed("b", now: t0) == 0)
        throttle.succeeded("b")
        #expect(throttle.failures("a", now: t0) == 7 && throttle.failures("b", now: t0) == 0)
        throttle.succeeded("a")
        #expect(throttle.failed("a", now: t0) == 0)
    }

    @Test func quietClientsAreForgottenAndTheTableIsBounded() {
        let throttle = SignInThrottle(), t0 = Date(timeIntervalSince1970: 1_000_000)
        for i in 0 ..< 9 { _ = throttle.failed("a", now: t0.addingTimeInterval(Double(i))) }
        #expect(throttle.failures("a", now: t0.addingTimeInterval(10)) == 9)
        let later = t0.addingTimeInterval(8 + SignInThrottle.forgetAfter + 1)
        #expect(throttle.failures("a", now: later) == 0)
        #expect(throttle.failed("a", now: later) == 0)

        // A flood of addresses never holds more than the capacity; the oldest go first.
        for i in 0 ..< SignInThrottle.capacity + 100 {
            _ = throttle.failed("client-\(i)", now: later.addingTimeInterval(Double(i) / 1000))
        }
        #expect(throttle.count == SignInThrottle.capacity)
        #expect(throttle.failures("client-0", now: later.addingTimeInterval(10)) == 0)
        #expect(throttle.failures("client-\(SignInThrottle.capacity + 99)", now: later.addingTimeInterval(10)) == 1)
    }
}
