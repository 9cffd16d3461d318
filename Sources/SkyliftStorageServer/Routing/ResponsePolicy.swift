import SkyliftHTTPServer

/// Headers every answer of the storage server carries, whoever made it (router, WebDAV, tus, the web app):
/// `X-Content-Type-Options: nosniff`, so no answer is ever read as another type than it says; and, unless the
/// answer chose its own, `Cache-Control: private, no-cache`: answers depend on who asks (token, session cookie,
/// share link), so no shared cache may keep them, and the browser asks again (a cheap `304` with the ETag)
/// before reusing one, so signing out or revoking a link takes effect at once.
struct ResponsePolicy: HTTPHandler {
    let next: any HTTPHandler

    func head(_ request: HTTPRequest) -> HTTPHeadDecision { Self.applied(next.head(request)) }

    /// The decision with the policy's headers on whatever answer it leads to (an offloaded one when it is made).
    static func applied(_ decision: HTTPHeadDecision) -> HTTPHeadDecision {
        switch decision {
        case let .respond(response): .respond(apply(response))
        case let .receive(receiver): .receive(PolicyReceiver(receiver))
        case let .offload(decide): .offload { applied(decide()) }
        }
    }

    static func apply(_ response: HTTPResponse) -> HTTPResponse {
        var r = response
        // One pass over the fields for both names: this runs for every answer.
        var hasNosniff = false, hasCacheControl = false
        for field in r.headers.fields {
            if HTTPHeaders.namesMatch(field.name, "X-Content-Type-Options") { hasNosniff = true }
            if HTTPHeaders.namesMatch(field.name, "Cache-Control") { hasCacheControl = true }
        }
        // `set` leaves a single `nosniff` (what confined answers carry) as it is.
        if hasNosniff { r.headers.set("X-Content-Type-Options", "nosniff") } else { r.headers.add("X-Content-Type-Options", "nosniff") }
        if !hasCacheControl { r.headers.add("Cache-Control", "private, no-cache") }
        return r
    }
}

/// A body receiver whose answers get the policy's headers too. Paced itself, so an inner receiver that pauses
/// the connection still can.
private final class PolicyReceiver: HTTPPacedBodyReceiver {
    private let inner: any HTTPBodyReceiver
    private let paced: (any HTTPPacedBodyReceiver)?

    init(_ inner: any HTTPBodyReceiver) {
        self.inner = inner
        paced = inner as? any HTTPPacedBodyReceiver
    }

    func receive(_ chunk: UnsafeRawBufferPointer, wake: HTTPWake) -> HTTPReceiveResult {
        guard let paced else { return inner.receive(chunk).map { .answer(ResponsePolicy.apply($0)) } ?? .more }
        switch paced.receive(chunk, wake: wake) {
        case let .answer(response): return .answer(ResponsePolicy.apply(response))
        case let other: return other
        }
    }

    func finish() -> HTTPResponse { ResponsePolicy.apply(inner.finish()) }

    func abort() { inner.abort() }
}
