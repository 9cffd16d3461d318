import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A child process started with `posix_spawn`, for what Foundation's `Process` cannot do: start it with some
/// signals blocked (as a parent that blocks them passes them on), so one sent at once waits as pending.
struct SpawnedChild {
    let pid: pid_t

    /// How the child ended.
    enum Ending: Equatable, CustomStringConvertible {
        case exited(Int32)
        case signalled(Int32)

        var description: String {
            switch self {
            case let .exited(code): "exit status \(code)"
            case let .signalled(number): "killed by signal \(number)"
            }
        }
    }

    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    /// Runs `executable` with `arguments` and exactly `environment`; standard input from /dev/null, standard
    /// output and error into the files `output` and `errors`; `blocked` signals blocked from its first instruction.
    init(_ executable: String, _ arguments: [String], environment: [String: String], output: String, errors: String,
         blocked: [Int32] = []) throws {
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var mask = sigset_t()
        sigemptyset(&mask)
        for number in blocked { sigaddset(&mask, number) }
        posix_spawnattr_setsigmask(&attributes, &mask)
        var defaults = sigset_t()
        sigemptyset(&defaults)
        for number in [SIGINT, SIGTERM, SIGPIPE] { sigaddset(&defaults, number) }
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))

        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, output, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        posix_spawn_file_actions_addopen(&actions, 2, errors, O_WRONLY | O_CREAT | O_TRUNC, 0o600)

        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            argv.forEach { free($0) }
            envp.forEach { free($0) }
        }
        var pid: pid_t = 0
        let result = posix_spawn(&pid, executable, &actions, &attributes, argv, envp)
        guard result == 0 else { throw Failure(description: "posix_spawn \(executable): \(String(cString: strerror(result)))") }
        self.pid = pid
    }

    /// Waits for the child to end, at most `limit`; a child still running then is killed (SIGKILL), reaped, and
    /// reported as an error: a command that should have stopped must not hang the suite.
    func wait(upTo limit: Duration = .seconds(60)) throws -> Ending {
        let deadline = ContinuousClock.now + limit
        var status: Int32 = 0
        while true {
            let reaped = waitpid(pid, &status, WNOHANG)
            if reaped == pid { break }
            guard reaped == 0 else { throw Failure(description: "waitpid \(pid): \(String(cString: strerror(errno)))") }
            if ContinuousClock.now > deadline {
                kill(pid, SIGKILL)
                _ = waitpid(pid, &status, 0)
                throw Failure(description: "process \(pid) still running after \(limit); killed")
            }
            usleep(10_000)
        }
        // The wait status layout (WIFEXITED and friends are macros Swift cannot import).
        let low = status & 0x7f
        return low == 0 ? .exited((status >> 8) & 0xff) : .signalled(low)
    }
}
