import SkyliftHTTPServer

/// `--max-connections`, `--max-connections-per-address` and the three timeouts of `serve` and `proxy`: the caps
/// and deadlines of the HTTP server (``HTTPLimits``), with nginx's defaults where nginx has one.
struct LimitOptions: CommandOptions {
    var connections: Int?
    var perAddress: Int?
    var headerTimeout: Double?
    var bodyTimeout: Double?
    var keepAliveTimeout: Double?

    static let declarations: [OptionDeclaration<LimitOptions>] = {
        let defaults = HTTPLimits()
        return [
            .value("--max-connections", "N", help: "connections held at once; at the cap the oldest idle one is closed "
                + "(default: \(defaults.connections))", \.connections, as: .integer(1...1_000_000)),
            .value("--max-connections-per-address", "N", help: "connections held from one client address "
                + "(default: \(defaults.connectionsPerAddress))", \.perAddress, as: .integer(1...1_000_000)),
            .value("--header-timeout", "SECONDS", help: "time to send a complete request head (default: \(defaults.headerTimeout))",
                   \.headerTimeout, as: .seconds(1...86_400)),
            .value("--body-timeout", "SECONDS", help: "time a request body may pause (default: \(defaults.bodyTimeout))",
                   \.bodyTimeout, as: .seconds(1...86_400)),
            .value("--keepalive-timeout", "SECONDS", help: "time an idle connection is kept between requests "
                + "(default: \(defaults.keepAliveTimeout))", \.keepAliveTimeout, as: .seconds(1...86_400)),
        ]
    }()

    /// The limits to serve with: each given value, else its default. Timeouts are whole seconds, rounded up.
    var limits: HTTPLimits {
        var l = HTTPLimits()
        if let connections { l.connections = connections }
        if let perAddress { l.connectionsPerAddress = perAddress }
        if let headerTimeout { l.headerTimeout = Int(headerTimeout.rounded(.up)) }
        if let bodyTimeout { l.bodyTimeout = Int(bodyTimeout.rounded(.up)) }
        if let keepAliveTimeout { l.keepAliveTimeout = Int(keepAliveTimeout.rounded(.up)) }
        return l
    }
}
