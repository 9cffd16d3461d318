import Foundation
import Synchronization

/// The one way tests find a program (curl, nginx, python3 …) or a Python module they need.
///
/// Every name must be listed in `scripts/test-programs.txt` with the Debian or PyPI package that installs it;
/// `scripts/test.sh` installs exactly those packages, and `scripts/check-test-programs.sh` fails the test
/// command when a test names a program outside the table. A missing program fails its test with the package
/// to install, not with "The file doesn't exist".
public enum TestPrograms {
    /// The absolute path of `name`, looked up on `PATH` and in the usual system folders (nginx lives in
    /// /usr/sbin, which an unprivileged `PATH` may leave out).
    public static func path(_ name: String) throws -> URL {
        let row = try entry(name, source: "debian")
        let environmentPath = ProcessInfo.processInfo.environment["PATH"] ?? ""
        let folders = environmentPath.split(separator: ":").map(String.init) + fallbackFolders
        for folder in folders where folder.hasPrefix("/") {
            let candidate = URL(fileURLWithPath: folder).appendingPathComponent(name)
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
        }
        throw TestProgramError.missing(name: name, problem: "not found on PATH or in \(fallbackFolders.joined(separator: ":"))", row: row)
    }

    /// `python3`, after checking that every module in `modules` can be imported.
    public static func python(_ modules: String...) throws -> URL {
        let python = try path("python3")
        for module in modules {
            let row = try entry(module, source: "pypi")
            if try !importable(module, python: python) {
                throw TestProgramError.missing(name: "Python module \(module)", problem: "cannot be imported by \(python.path)", row: row)
            }
        }
        return python
    }

    /// Runs `python3 -c script arguments…` and returns what it printed, standard output and error together,
    /// without the surrounding white space.
    public static func runPython(_ script: String, _ arguments: [String]) throws -> String {
        let process = Process()
        process.executableURL = try python()
        process.arguments = ["-c", script] + arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        try process.run()
        let out = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        return out.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    static let fallbackFolders = ["/usr/local/sbin", "/usr/local/bin", "/usr/sbin", "/usr/bin", "/sbin", "/bin"]

    /// The table, next to the test command: `<repository>/scripts/test-programs.txt`.
    static let tableFile = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("scripts/test-programs.txt")

    private static let checkedModules = Mutex<Set<String>>([])

    private static func entry(_ name: String, source: String) throws -> ProgramTableRow {
        let rows = try ProgramTableRow.load(tableFile)
        guard let row = rows.first(where: { $0.name == name && $0.source == source }) else {
            throw TestProgramError.unlisted(name: name, source: source, table: tableFile.path)
        }
        return row
    }

    /// Asks `find_spec` (no import side effects, a few milliseconds); remembered per process.
    private static func importable(_ module: String, python: URL) throws -> Bool {
        if checkedModules.withLock({ $0.contains(module) }) { return true }
        let process = Process()
        process.executableURL = python
        process.arguments = ["-c", "import importlib.util, sys; sys.exit(0 if importlib.util.find_spec(sys.argv[1]) else 1)", module]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { return false }
        checkedModules.withLock { _ = $0.insert(module) }
        return true
    }
}

/// One line of `scripts/test-programs.txt`: a program or module, where its package comes from, the package.
public struct ProgramTableRow: Equatable, Sendable {
    var name: String
    var source: String
    var package: String

    static func load(_ file: URL) throws -> [ProgramTableRow] {
        let text = try String(contentsOf: file, encoding: .utf8)
        return text.split(separator: "\n").compactMap { line in
            let words = line.split(whereSeparator: \.isWhitespace).map(String.init)
            guard words.count == 3, !words[0].hasPrefix("#") else { return nil }
            return ProgramTableRow(name: words[0], source: words[1], package: words[2])
        }
    }

    var sourceName: String { Self.sourceName(source) }

    static func sourceName(_ source: String) -> String { source == "pypi" ? "PyPI" : "Debian" }

    /// How to install this row's package by hand.
    var installHint: String {
        source == "pypi" ? "python3 -m pip install '\(package)' (scripts/pip-deps.sh)" : "scripts/deps.sh \(package)"
    }
}

/// Why a test cannot have the program it asked for; the message says what to install or list.
public enum TestProgramError: Error, CustomStringConvertible {
    /// Listed, but not installed: names the package that provides it.
    case missing(name: String, problem: String, row: ProgramTableRow)
    /// Not in the table, so the test command would not install it.
    case unlisted(name: String, source: String, table: String)

    public var description: String {
        switch self {
        case let .missing(name, problem, row):
            "\(name) \(problem): install the \(row.sourceName) package \(row.package) "
                + "(scripts/test.sh installs it; by hand: \(row.installHint))"
        case let .unlisted(name, source, table):
            "\(name) is not listed in \(table): add it with the \(ProgramTableRow.sourceName(source)) package that installs it"
        }
    }
}
