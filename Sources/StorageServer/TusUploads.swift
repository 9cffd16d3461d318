import Foundation
import HTTPServer

/// tus 1.0.0 resumable uploads.
final class TusUploads: Sendable {
    let store: Store
    let expiry: TimeInterval
    let maxSize: Int64

    init(store: Store, expiry: TimeInterval, maxSize: Int64) {
        self.store = store
        self.expiry = expiry
        self.maxSize = maxSize
    }

    func sweepExpired() {}

    func handle(_ request: HTTPRequest) -> HTTPHeadDecision { .respond(.text(501, "tus not implemented yet")) }

    func create(_ request: HTTPRequest, folder: StoragePath) -> HTTPHeadDecision {
        .respond(.text(501, "tus not implemented yet"))
    }

    static func advertise(into headers: inout HTTPHeaders, maxSize: Int64) {}
}
