import CMicroHTTPD
import SkyliftCore
import Synchronization

/// A response's wire form kept for sending again: the first request that carries it has libmicrohttpd's
/// response made as usual (the body copied once, each header field added), and later requests carrying the same
/// `ReusableResponse` with the same status, fields and body length queue that same response instead of building
/// it again. For answers repeated byte for byte, such as a small file answered from memory: building the response
/// costs a body copy and three allocations per header field, each freed again after the answer.
///
/// The kept response is made once and never replaced: a request whose head differs (a layer added a field)
/// gets its own response, built as usual. libmicrohttpd counts references to a response under its own lock, so
/// loops may queue it at the same time; the last sending connection frees it after this object is gone.
public final class ReusableResponse: Sendable {
    private struct Made: Sendable {
        let status: Int
        let headers: HTTPHeaders
        let length: Int
        /// The libmicrohttpd response, as a bit pattern (pointers are not Sendable).
        let response: UInt
    }

    private let made = Mutex<Made?>(nil)

    public init() {}

    deinit {
        if let made = made.withLock({ $0 }), let pointer = UnsafeMutableRawPointer(bitPattern: made.response) {
            MHD_destroy_response(OpaquePointer(pointer))
        }
    }

    /// The kept response for `status`, `headers` and a body of `length` bytes; made by `make` (which returns a
    /// response this object then owns) when none is kept yet. Nil when a different one is kept, or `make` failed.
    func response(status: Int, headers: HTTPHeaders, length: Int, make: () -> OpaquePointer?) -> OpaquePointer? {
        made.withLock { made in
            if let kept = made {
                guard kept.status == status, kept.length == length, Self.same(kept.headers, headers),
                      let pointer = UnsafeMutableRawPointer(bitPattern: kept.response) else { return nil }
                return OpaquePointer(pointer)
            }
            guard let response = make() else { return nil }
            made = Made(status: status, headers: headers, length: length,
                        response: UInt(bitPattern: Int(bitPattern: UnsafeMutableRawPointer(response))))
            return response
        }
    }

    /// Field by field, names and values exactly (a head reused as it was shares its strings, so this is quick).
    private static func same(_ a: HTTPHeaders, _ b: HTTPHeaders) -> Bool {
        guard a.fields.count == b.fields.count else { return false }
        for (x, y) in zip(a.fields, b.fields) where x.name != y.name || x.value != y.value { return false }
        return true
    }
}
