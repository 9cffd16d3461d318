import SkyliftCore

/// Answers only requests whose `Host` the `HostPolicy` admits, and hands the rest to `next`: 421 for a
/// name that is not served (DNS rebinding), 400 for a missing, repeated or malformed `Host`.
public struct HostFilter: HTTPHandler {
    public let policy: HostPolicy
    public let next: any HTTPHandler
    /// The option that admits more names, named in the refusal so the user knows what to add.
    public let option: String

    public init(policy: HostPolicy, next: any HTTPHandler, option: String = "--allow-host") {
        self.policy = policy
        self.next = next
        self.option = option
    }

    public func head(_ request: HTTPRequest) -> HTTPHeadDecision {
        switch policy.check(request.headers.values("Host"), version: request.version) {
        case .allowed:
            return next.head(request)
        case .missingOrRepeated:
            return .respond(.text(400, "a request needs exactly one Host header"))
        case .malformed:
            return .respond(.text(400, "the Host header is not host[:port]"))
        case let .refused(name):
            let shown = LogText.escaped(name, maxBytes: 255)
            return .respond(.text(421, "this server does not answer for the name '\(shown)': only loopback names and "
                + "addresses are served, and names allowed with \(option) NAME (protection against DNS rebinding)"))
        }
    }
}
