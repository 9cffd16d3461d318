/// What one client, or all of them, may hold of a server: connection caps and deadlines, with nginx's
/// defaults where nginx has one.
///
/// At a cap, a new connection closes the oldest connection with no request in progress (idle between requests,
/// or still sending its head) to make room; only when every counted connection is busy does it get one `503`
/// with `Retry-After` and close. It is never reset unanswered.
public struct HTTPLimits: Sendable, Equatable {
    /// Most connections counted at once.
    public var connections: Int
    /// Most connections from one client address.
    public var connectionsPerAddress: Int
    /// Seconds a connection may take to send a complete request head (nginx `client_header_timeout`, 60 s).
    /// A kept-open connection gets the keep-alive time on top, counted from its previous answer.
    public var headerTimeout: Int
    /// Seconds a request body may go without a byte (nginx `client_body_timeout`, 60 s).
    public var bodyTimeout: Int
    /// Seconds a connection may stay idle between requests (nginx `keepalive_timeout`, 75 s).
    public var keepAliveTimeout: Int

    public init(connections: Int = 10_000, connectionsPerAddress: Int = 1_000, headerTimeout: Int = 60,
                bodyTimeout: Int = 60, keepAliveTimeout: Int = 75) {
        self.connections = connections
        self.connectionsPerAddress = connectionsPerAddress
        self.headerTimeout = headerTimeout
        self.bodyTimeout = bodyTimeout
        self.keepAliveTimeout = keepAliveTimeout
    }
}
