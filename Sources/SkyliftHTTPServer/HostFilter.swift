import SkyliftCore

/// Answers only requests whose `Host` the `HostPolicy` admits, and hands the rest to `next`: 421 for a
/// name that is not served (DNS rebinding), 400 for a missing, repeated or malformed `Host`.
public struct HostFilter: HTTPHandler {
    public let policy: HostPolicy
    public let next: any HTTPHandler
    /// The option that admits more names, named in the refusal so the user knows what to add.
    public let option: String
    /// `Host` values admitted before: checking one again would give the same answer, and the check (a parse of
    /// the name on characters) was a few percent of a small request's CPU.
    private let admitted = BoundedMemo<String, Bool>(capacity: 64)
    /// Longer values are checked every time.
    private static let maxRememberedValue = 300

    public init(policy: HostPolicy, next: any HTTPHandler, option: String = "--allow-host") {
        self.policy = policy
        self.next = next
        self.option = option
    }

    public func head(_ request: HTTPRequest) -> HTTPHeadDecision {
        // One pass, no array: the common case is one Host admitted before.
        var only: String?, count = 0
        for field in request.headers.fields where HTTPHeaders.namesMatch(field.name, "Host") {
            count += 1
            only = field.value
        }
        if count == 1, let only, admitted[only] != nil { return next.head(request) }
        let values = request.headers.values("Host")
        switch policy.check(values, version: request.version) {
        case .allowed:
            if values.count == 1, values[0].utf8.count <= Self.maxRememberedValue { admitted.remember(true, for: values[0]) }
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

