/// The settle state machine: decides when a changing file may be reported.
///
/// A path becomes pending on any activity. It is reported once it has been quiet for `settle` seconds
/// AND a fresh check (size, mtime, inode) agrees with the check taken at its last activity. If it never
/// goes quiet it is reported as overdue after `maxWait` and stays pending, to be reported again when it
/// settles in a different state. Close-write and moved-to notifications are plain activity here: they
/// shorten nothing, because a writer may reopen the file.
///
/// Pure value logic with the clock and the file check passed in, so it is tested without timers. Times
/// are seconds on a monotonic clock.
struct Settler: Sendable {
    struct Entry: Sendable, Equatable {
        /// Start of the current max-wait window.
        var since: Double
        var lastActivity: Double
        /// The check taken at the last activity (nil if the file was missing then).
        var lastCheck: FileSnapshot?
        /// What an overdue report already announced, so an unchanged file is not reported twice.
        var announced: FileSnapshot?
    }

    enum Outcome: Sendable, Equatable {
        case settled(FileSnapshot)
        case overdue(FileSnapshot)
        /// The file disappeared while pending; nothing is reported.
        case vanished(String)
    }

    var settle: Double
    var maxWait: Double
    private(set) var pending: [String: Entry] = [:]

    init(settle: Double, maxWait: Double) {
        self.settle = max(0, settle)
        self.maxWait = max(settle, maxWait)
    }

    var isIdle: Bool { pending.isEmpty }

    /// Records activity on `path`, with a check taken after it.
    mutating func touch(_ path: String, at now: Double, check: FileSnapshot?) {
        if var entry = pending[path] {
            entry.lastActivity = now
            entry.lastCheck = check
            pending[path] = entry
        } else {
            pending[path] = Entry(since: now, lastActivity: now, lastCheck: check, announced: nil)
        }
    }

    /// Forgets `path` and, when it is a folder, everything under it.
    mutating func remove(_ path: String) {
        pending[path] = nil
        let prefix = path + "/"
        for key in pending.keys where key.hasPrefix(prefix) { pending[key] = nil }
    }

    /// Moves pending state from `from` (and what is under it) to `to`.
    mutating func rename(_ from: String, to: String) {
        var moved: [(String, Entry)] = []
        if let entry = pending.removeValue(forKey: from) { moved.append((to, entry)) }
        let prefix = from + "/"
        for (key, entry) in pending where key.hasPrefix(prefix) {
            pending[key] = nil
            moved.append((to + key.dropFirst(from.count), entry))
        }
        for (key, var entry) in moved {
            entry.lastCheck?.path = key
            entry.announced?.path = key
            pending[key] = entry
        }
    }

    /// When the next decision is due, or nil when nothing is pending (then no timer should run).
    var nextDeadline: Double? {
        pending.values.lazy.map { min($0.lastActivity + settle, $0.since + maxWait) }.min()
    }

    /// Decides every entry that is due at `now`. `check` takes a fresh look at a path.
    mutating func evaluate(at now: Double, check: (String) -> FileSnapshot?) -> [Outcome] {
        var outcomes: [Outcome] = []
        for (path, entry) in pending {
            let quiet = now >= entry.lastActivity + settle
            let overdue = now >= entry.since + maxWait
            guard quiet || overdue else { continue }
            guard let fresh = check(path) else {
                pending[path] = nil
                outcomes.append(.vanished(path))
                continue
            }
            if quiet {
                if let last = entry.lastCheck, last.agrees(with: fresh) {
                    pending[path] = nil
                    if entry.announced.map({ !$0.agrees(with: fresh) }) ?? true {
                        outcomes.append(.settled(fresh))
                    }
                    continue
                }
                // Changed without a notification (or the earlier check missed it): start a new quiet window.
                var next = entry
                next.lastActivity = now
                next.lastCheck = fresh
                if overdue { next = announce(next, fresh, now, &outcomes) }
                pending[path] = next
            } else {
                pending[path] = announce(entry, fresh, now, &outcomes)
            }
        }
        return outcomes
    }

    private func announce(_ entry: Entry, _ fresh: FileSnapshot, _ now: Double, _ outcomes: inout [Outcome]) -> Entry {
        var next = entry
        next.since = now
        next.announced = fresh
        outcomes.append(.overdue(fresh))
        return next
    }
}
