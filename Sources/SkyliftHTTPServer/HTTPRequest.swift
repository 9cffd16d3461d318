/// A request's head as the server received it.
public struct HTTPRequest: Sendable {
    /// The method token, e.g. `GET`, `PROPFIND`.
    public var method: String
    /// The request target's path exactly as sent, still percent-encoded (no query).
    public var path: String
    /// The query string as sent, without `?`; nil when there was none.
    public var query: String?
    /// The request's header fields.
    public var headers: HTTPHeaders
    /// `HTTP/1.1` or `HTTP/1.0`.
    public var version: String
    /// The client's address, as the server accepted the connection; nil for a request made up in code.
    public var peer: PeerAddress?

    public init(method: String, path: String, query: String? = nil, headers: HTTPHeaders = [:], version: String = "HTTP/1.1") {
        self.method = method
        self.path = path
        self.query = query
        self.headers = headers
        self.version = version
    }

    /// `Content-Length` when present and valid.
    public var contentLength: Int64? { headers.integer("Content-Length") }
}
