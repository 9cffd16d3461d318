import Testing
@testable import SkyliftFolderWatch

/// The settle state machine with an explicit clock and file checks.
@Suite struct SettlerTests {
    func snap(_ size: Int64, mtime: Int64 = 1, inode: UInt64 = 7, path: String = "a") -> FileSnapshot {
        FileSnapshot(path: path, size: size, mtimeNanoseconds: mtime, inode: inode)
    }

    @Test func reportsOnlyAfterQuietAndAgreeingCheck() {
        var s = Settler(settle: 2, maxWait: 60)
        s.touch("a", at: 0, check: snap(10))
        #expect(s.nextDeadline == 2)
        #expect(s.evaluate(at: 1.9) { _ in snap(10) }.isEmpty)
        #expect(s.evaluate(at: 2) { _ in snap(10) } == [.settled(snap(10))])
        #expect(s.isIdle)
        #expect(s.nextDeadline == nil)
    }

    @Test func activityPushesTheWindow() {
        var s = Settler(settle: 2, maxWait: 60)
        s.touch("a", at: 0, check: snap(10))
        s.touch("a", at: 1.5, check: snap(20))
        #expect(s.evaluate(at: 2) { _ in snap(20) }.isEmpty)
        #expect(s.nextDeadline == 3.5)
        #expect(s.evaluate(at: 3.5) { _ in snap(20) } == [.settled(snap(20))])
    }

    @Test func silentChangeRestartsTheWindow() {
        // The file grew without a notification: the fresh check disagrees, so it is not reported yet.
        var s = Settler(settle: 2, maxWait: 60)
        s.touch("a", at: 0, check: snap(10))
        #expect(s.evaluate(at: 2) { _ in snap(30) }.isEmpty)
        #expect(s.nextDeadline == 4)
        #expect(s.evaluate(at: 4) { _ in snap(30) } == [.settled(snap(30))])
    }

    @Test func replacedInodeIsAChange() {
        var s = Settler(settle: 1, maxWait: 60)
        s.touch("a", at: 0, check: snap(10, inode: 1))
        #expect(s.evaluate(at: 1) { _ in snap(10, inode: 2) }.isEmpty)
    }

    @Test func neverQuietIsReportedAtMaxWaitThenAgainWhenSettled() {
        var s = Settler(settle: 2, maxWait: 10)
        var t = 0.0
        var size: Int64 = 0
        var outcomes: [Settler.Outcome] = []
        while t < 10 {
            size += 1
            s.touch("a", at: t, check: snap(size))
            t += 1
            outcomes += s.evaluate(at: t) { _ in snap(size) }
        }
        #expect(outcomes == [.overdue(snap(10))])
        #expect(!s.isIdle)
        // Stops changing in the state the overdue report announced: nothing new to report.
        #expect(s.evaluate(at: 12) { _ in snap(10) }.isEmpty)
        #expect(s.isIdle)
        // Changes after the overdue report: reported again once settled, in its final state.
        var s2 = Settler(settle: 2, maxWait: 4)
        s2.touch("b", at: 0, check: snap(1, path: "b"))
        s2.touch("b", at: 3, check: snap(2, path: "b"))
        #expect(s2.evaluate(at: 4) { _ in snap(2, path: "b") } == [.overdue(snap(2, path: "b"))])
        s2.touch("b", at: 4.5, check: snap(3, path: "b"))
        #expect(s2.evaluate(at: 6.5) { _ in snap(3, path: "b") } == [.settled(snap(3, path: "b"))])
        #expect(s2.isIdle)
    }

    @Test func overdueButUnchangedAfterwardsIsNotReportedTwice() {
        var s = Settler(settle: 2, maxWait: 4)
        s.touch("a", at: 0, check: snap(1))
        s.touch("a", at: 3, check: snap(2))
        #expect(s.evaluate(at: 4) { _ in snap(2) } == [.overdue(snap(2))])
        #expect(s.evaluate(at: 5) { _ in snap(2) }.isEmpty)
        #expect(s.isIdle)
    }

    @Test func vanishedFilesAreDropped() {
        var s = Settler(settle: 1, maxWait: 60)
        s.touch("a", at: 0, check: snap(1))
        #expect(s.evaluate(at: 1) { _ in nil } == [.vanished("a")])
        #expect(s.isIdle)
    }

    @Test func renameAndRemoveFollowFolders() {
        var s = Settler(settle: 1, maxWait: 60)
        s.touch("d/x", at: 0, check: snap(1, path: "d/x"))
        s.touch("d/e/y", at: 0, check: snap(1, path: "d/e/y"))
        s.touch("dx", at: 0, check: snap(1, path: "dx"))
        s.rename("d", to: "f")
        #expect(Set(s.pending.keys) == ["f/x", "f/e/y", "dx"])
        #expect(s.pending["f/x"]?.lastCheck?.path == "f/x")
        s.remove("f")
        #expect(Set(s.pending.keys) == ["dx"])
    }
}
