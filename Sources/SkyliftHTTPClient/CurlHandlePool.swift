#if canImport(CCurl)
import CCurl
import Synchronization

/// Idle curl easy handles. A handle keeps its connection cache across `curl_easy_reset`, so reusing
/// handles reuses connections to the same server.
final class CurlHandlePool: Sendable {
    /// A `CURL *` owned by exactly one holder at a time: the pool while idle, one transfer while busy.
    struct Handle: @unchecked Sendable {
        // @unchecked: libcurl allows an easy handle on any thread as long as one thread at a time uses it,
        // and ownership passes strictly between the pool (under its mutex) and a single transfer.
        let raw: UnsafeMutableRawPointer
    }

    private let idle = Mutex<[Handle]>([])
    private let limit: Int

    init(limit: Int) { self.limit = limit }

    func take() -> Handle? {
        if let handle = idle.withLock({ $0.popLast() }) { return handle }
        return curl_easy_init().map(Handle.init)
    }

    func giveBack(_ handle: Handle) {
        curl_easy_reset(handle.raw)
        let kept = idle.withLock { handles in
            guard handles.count < limit else { return false }
            handles.append(handle)
            return true
        }
        if !kept { curl_easy_cleanup(handle.raw) }
    }

    deinit {
        for handle in idle.withLock({ $0 }) { curl_easy_cleanup(handle.raw) }
    }
}
#endif
