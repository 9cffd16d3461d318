import Foundation

/// Where the engine keeps what it needs to continue an upload after a crash: one ``ResumeRecord`` per
/// source → destination pair. `upload` and `copy` keep records as JSON files (``ResumeFileStore``); `watch` keeps
/// them in its queue's row for the file, so the row is the resume record and nothing is copied between stores.
///
/// `save` must be durable against a killed process when it returns: the engine saves a write's token before
/// the first byte of it goes out.
public protocol ResumeStore: Sendable {
    /// The record for `source` → `destination`, or nil when there is none (or it cannot be read: that only
    /// costs a fresh start).
    func load(source: String, destination: String) async -> ResumeRecord?
    /// Replaces the record for the record's source and destination.
    func save(_ record: ResumeRecord) async throws
    /// Forgets the record (missing is fine).
    func remove(source: String, destination: String) async
}
