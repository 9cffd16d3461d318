import Foundation

/// The one place that decides what of a URL or a header may be shown: every URL that is printed, logged or
/// put in an error goes through `url(_:query:)` (or its `URL`-typed twin), every header list
/// through ``headers(_:)``.
///
/// A URL keeps its scheme, host, port, path and the names of its query parameters; user info and the
/// fragment are dropped, and the value of every query parameter whose name looks like a credential is
/// replaced by `REDACTED`. Non-secret parameters (`partNumber`, `uploadId`) stay readable for debugging.
public enum Redaction {
    /// What replaces a secret value.
    public static let placeholder = "REDACTED"

    /// Query parameter names (compared case-insensitively, as substrings after dropping `-` and `_`) whose
    /// values are credentials: signatures of signed URLs (`X-Amz-Signature`, Azure's `sig`, CloudFront's
    /// `Signature`), credentials and session tokens (`X-Amz-Credential`, `X-Amz-Security-Token`,
    /// `access_token`), API keys (`key`, `apikey`, `api_key`), passwords and secrets.
    static let secretParameterParts = ["sig", "token", "credential", "key", "secret", "password", "passwd", "pwd", "auth", "session", "jwt"]

    /// Header names whose values are credentials, lowercased.
    static let secretHeaderNames: Set<String> = [
        "authorization", "proxy-authorization", "cookie", "set-cookie", "x-amz-security-token",
        "x-api-key", "api-key", "x-auth-token", "x-access-token", "x-csrf-token", "x-goog-api-key",
    ]

    /// What to keep of a query.
    public enum Query: Sendable {
        /// Every parameter, secret values replaced by ``Redaction/placeholder``.
        case redactSecrets
        /// Nothing: for labels that must stay the same when a signed URL is signed again.
        case drop
    }

    /// `text` (a URL, or something meant to be one) fit to print: no user info, no fragment, secret query
    /// values replaced (or the whole query dropped). Works on the text as given, so its encoding is kept
    /// and text that is not a valid URL is still cleaned.
    public static func url(_ text: String, query: Query = .redactSecrets) -> String {
        var rest = Substring(text)
        if let hash = rest.firstIndex(of: "#") { rest = rest[..<hash] }
        var items: Substring?
        if let mark = rest.firstIndex(of: "?") {
            items = rest[rest.index(after: mark)...]
            rest = rest[..<mark]
        }
        var out = withoutUserInfo(rest)
        if let items, query == .redactSecrets {
            out += "?" + items.split(separator: "&", omittingEmptySubsequences: false).map(redactedParameter).joined(separator: "&")
        }
        return out
    }

    /// ``url(_:query:)`` of `url`.
    public static func url(_ url: URL, query: Query = .redactSecrets) -> String { Self.url(url.absoluteString, query: query) }

    /// `url` redacted, as a URL (for errors that carry one).
    public static func redactedURL(_ url: URL) -> URL { URL(string: Self.url(url)) ?? URL(string: "redacted:")! }

    /// Whether a query parameter of this name carries a credential.
    public static func isSecretParameter(_ name: String) -> Bool {
        let decoded = (name.removingPercentEncoding ?? name).lowercased().filter { $0 != "-" && $0 != "_" }
        return secretParameterParts.contains { decoded.contains($0) }
    }

    /// Whether a header of this name carries a credential.
    public static func isSecretHeader(_ name: String) -> Bool { secretHeaderNames.contains(name.lowercased()) }

    /// `headers` with every credential's value replaced by ``placeholder``.
    public static func headers(_ headers: HTTPHeaders) -> HTTPHeaders {
        HTTPHeaders(headers.fields.map { f in (name: f.name, value: isSecretHeader(f.name) ? placeholder : f.value) })
    }

    private static func redactedParameter(_ item: Substring) -> String {
        guard let eq = item.firstIndex(of: "=") else { return String(item) }
        let name = item[..<eq]
        return isSecretParameter(String(name)) ? name + "=" + placeholder : String(item)
    }

    /// `scheme://user:pass@host/path` → `scheme://host/path`.
    private static func withoutUserInfo(_ text: Substring) -> String {
        guard let schemeEnd = text.range(of: "://") else { return String(text) }
        let authorityStart = schemeEnd.upperBound
        let authorityEnd = text[authorityStart...].firstIndex(where: { $0 == "/" }) ?? text.endIndex
        guard let at = text[authorityStart ..< authorityEnd].lastIndex(of: "@") else { return String(text) }
        return String(text[..<authorityStart] + text[text.index(after: at)...])
    }
}
