import Foundation
import SkyliftCore
import SkyliftHTTPServer

/// Conditional requests against files: ``ConditionalRequest`` (RFC 9110 §13.2.2) with a file's validators.
enum Preconditions {
    /// What the conditional fields of `request` say; `stat` is nil when the target does not exist.
    static func outcome(_ request: HTTPRequest, stat: FileStat?) -> ConditionalRequest.Outcome {
        ConditionalRequest.evaluate(method: request.method, headers: request.headers,
                                    current: stat.map { .init(etag: $0.etag, lastModified: $0.lastModified) })
    }

    /// The status to answer instead of performing the method (304 or 412), or nil to go on.
    static func evaluate(_ request: HTTPRequest, stat: FileStat?) -> Int? { outcome(request, stat: stat).status }
}
