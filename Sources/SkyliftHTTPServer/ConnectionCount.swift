import CMicroHTTPD
import Synchronization

/// Open and accepted connections, and the rule for the connection limit.
///
/// libmicrohttpd, one thread per connection, keeps accepting at its own limit and resets what it cannot take:
/// the client gets no answer. So its limit is set above ours, and a connection past ours is marked when it
/// opens; its first request gets a `503` and the connection closes.
final class ConnectionCount: Sendable {
    private let open = Atomic<Int>(0)
    private let total = Atomic<Int>(0)

    /// libmicrohttpd's limit for a server whose own limit is `limit`: room to answer `503` to a burst.
    static func hardLimit(_ limit: Int) -> Int { limit + max(64, limit / 4) }

    var accepted: Int { total.load(ordering: .relaxed) }

    /// Counts a new connection; true when it is past `limit`.
    func opened(limit: Int) -> Bool {
        total.add(1, ordering: .relaxed)
        return open.add(1, ordering: .relaxed).newValue > limit
    }

    func closed() { open.subtract(1, ordering: .relaxed) }
}

/// Called by libmicrohttpd on its listening thread for each connection opened and closed. A connection past the
/// limit gets a non-nil socket context (the server pointer serves as the mark).
let skyliftConnectionNotify: MHD_NotifyConnectionCallback = { cls, _, socketContext, code in
    guard let cls else { return }
    let server = Unmanaged<HTTPServer>.fromOpaque(cls).takeUnretainedValue()
    switch code {
    case MHD_ConnectionNotificationCode.CONNECTION_NOTIFY_STARTED:
        if server.connections.opened(limit: server.configuration.connectionLimit) { socketContext?.pointee = cls }
    case MHD_ConnectionNotificationCode.CONNECTION_NOTIFY_CLOSED:
        server.connections.closed()
    default:
        break
    }
}

/// True for a connection opened past the limit.
func isPastLimit(_ connection: OpaquePointer?) -> Bool {
    connection.map { skylift_mhd_socket_context($0) != nil } ?? false
}
