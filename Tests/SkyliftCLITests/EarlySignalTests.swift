import Foundation
import TestProbes
import Testing
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// SIGTERM sent to the real `skylift serve`, `proxy` and `watch` the moment they are spawned: it must stop them
/// cleanly, never be lost (a command left running) and never cut them off half-way (a temp file left behind).
@Suite struct EarlySignalTests {
    /// A home folder of its own per run, with the command's start-up files (store, token, cache, state) in it.
    struct Run {
        /// Holds `home` and, beside it, the command's output and errors; removed when the last copy goes.
        let scratch: TempFolder
        let home: URL
        var output: String { scratch.appending("out").path }
        var errors: String { scratch.appending("err").path }

        init() throws {
            scratch = try TempFolder("early-signal")
            home = try scratch.folder("home")
        }

        /// Names of temp files left anywhere under the home folder (AtomicFile's `.<name>.<random>.tmp` and
        /// the like): a process cut off while writing state leaves one.
        func leftovers() -> [String] {
            let walk = FileManager.default.enumerator(atPath: home.path)
            return (walk?.allObjects as? [String] ?? []).filter { $0.contains(".tmp") || $0.contains("-journal") }
        }

        /// The token file of the default store, when the run created it: whole (48 hex digits and a newline).
        func tokenIsWhole() -> Bool {
            let file = home.appendingPathComponent(".local/share/skylift/store.token")
            guard let bytes = FileManager.default.contents(atPath: file.path) else { return true }
            return bytes.count == 49 && bytes.last == 10
        }

        var errorText: String { (try? String(contentsOfFile: errors, encoding: .utf8)) ?? "" }
    }

    static func arguments(_ command: String, _ run: Run) throws -> [String] {
        switch command {
        case "serve":
            return ["serve", "--listen", "127.0.0.1:0", "--quiet"]
        case "proxy":
            // Nothing listens on the discard port; the proxy only contacts its origin when asked for media.
            return ["proxy", "--origin", "http://127.0.0.1:9/media/", "--listen", "127.0.0.1:0",
                    "--cache-dir", run.home.appendingPathComponent("cache").path]
        default:
            let dir = run.home.appendingPathComponent("watched")
            try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
            return ["watch", dir.path]
        }
    }

    /// Spawns `command` and sends SIGTERM `after` it (at once by default); returns how it ended and what it left.
    static func startAndTerminate(_ command: String, blocked: [Int32], after: Duration = .zero) throws
        -> (ending: SpawnedChild.Ending, run: Run) {
        let run = try Run()
        let child = try SpawnedChild(skyliftBinary().path, try arguments(command, run),
                                     environment: ["HOME": run.home.path, "PATH": "/usr/bin:/bin"],
                                     output: run.output, errors: run.errors, blocked: blocked)
        if after > .zero { Thread.sleep(forTimeInterval: after / .seconds(1)) }
        kill(child.pid, SIGTERM)
        return (try child.wait(), run)
    }

    /// A parent that blocks SIGTERM passes the mask on, so the signal is pending before skylift runs any code:
    /// it must be taken once the command is up and end it with status 0 (setting SIG_IGN used to drop it, and
    /// the command then ran until killed).
    @Test(arguments: ["serve", "proxy", "watch"])
    func sigtermPendingAtStartStopsTheCommandCleanly(_ command: String) throws {
        for _ in 0 ..< 4 {
            let (ending, run) = try Self.startAndTerminate(command, blocked: [SIGTERM])
            #expect(ending == .exited(0), "\(command): \(ending); stderr: \(run.errorText)")
            #expect(run.errorText.contains("signal 15"), "\(command): \(run.errorText)")
            #expect(run.leftovers().isEmpty, "\(command) left \(run.leftovers())")
            #expect(run.tokenIsWhole(), "\(command) left a partial token file")
        }
    }

    /// With nothing blocked, SIGTERM sent right after the spawn (then 5, 10, ... 95 ms after it, so that it lands
    /// anywhere in start-up) ends `serve` either before it runs code of its own (the default action, nothing
    /// written yet) or through a clean stop (status 0): never lost, never half-way through writing its token.
    @Test func sigtermRightAfterSpawnNeverHangsServeNorCutsItOffHalfWay() throws {
        var clean = 0
        for i in 0 ..< 20 {
            let (ending, run) = try Self.startAndTerminate("serve", blocked: [], after: .milliseconds(5 * i))
            #expect(ending == .exited(0) || ending == .signalled(SIGTERM), "\(ending); stderr: \(run.errorText)")
            if ending == .signalled(SIGTERM) {
                let made = (try? FileManager.default.contentsOfDirectory(atPath: run.home.path)) ?? []
                #expect(made.isEmpty && run.errorText.isEmpty, "killed by the default action after it had started: \(made) \(run.errorText)")
            } else {
                clean += 1
            }
            #expect(run.leftovers().isEmpty, "serve left \(run.leftovers())")
            #expect(run.tokenIsWhole(), "serve left a partial token file")
        }
        print("serve: \(clean) of 20 stopped cleanly, the others ended by SIGTERM before running code of their own")
    }
}
