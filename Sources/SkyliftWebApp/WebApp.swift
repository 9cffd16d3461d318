import Foundation
import SkyliftHTTPServer
import SkyliftCore

/// The browser front of the embedded cloud: the sign-in page, the app page and its scripts, and the session
/// cookie. Mounted by the storage server at `/`; files, listings and uploads stay the storage server's own.
///
/// Sign-in: `signin?code=C` with a one-time code (see ``SignInCodes``), or `/?token=T` with the right token,
/// starts a session (a cookie, see ``Sessions``) and redirects to the clean URL; `/` without a session shows a
/// form that posts the token to `signin`. `signout` ends the session. Wrong tokens and codes are slowed down
/// (``SignInThrottle``).
public final class WebApp: Sendable {
    public let sessions: Sessions?
    /// Read-only share links; nil when the state folder is unusable.
    public let shares: Shares?
    /// One-time sign-in codes; nil without auth.
    public let codes: SignInCodes?
    /// Counts wrong tokens (also those sent as `Authorization` to the rest of the server).
    public let throttle = SignInThrottle()
    /// Checks a presented token against the server's; nil when the server runs without auth.
    private let checkToken: (@Sendable ([UInt8]) -> Bool)?
    /// Cookies get `Secure` when the server speaks TLS.
    private let secure: Bool

    /// `sessions` nil and `checkToken` nil: no auth, the app opens for everyone.
    public init(sessions: Sessions?, shares: Shares?, checkToken: (@Sendable ([UInt8]) -> Bool)?, secure: Bool = false,
                codes: SignInCodes? = nil) {
        self.sessions = sessions
        self.shares = shares
        self.codes = codes
        self.checkToken = checkToken
        self.secure = secure
    }

    /// True when the request carries a live session cookie.
    public func hasSession(_ headers: HTTPHeaders) -> Bool {
        guard let sessions, let cookie = Cookies.value(Cookies.session, in: headers) else { return false }
        return sessions.isValid(cookie)
    }

    /// A one-time sign-in link relative to the server root (`signin?code=…`); nil when the server has no auth.
    public func signInLink() throws -> String? {
        guard checkToken != nil, let codes else { return nil }
        return "signin?code=" + (try codes.create())
    }

    /// A wrong token or code from `request`'s client: counted. Nil when it is answered as usual (401); a `429`
    /// with `Retry-After` when it came inside the client's penalty (see ``SignInThrottle``).
    public func wrongToken(_ request: HTTPRequest) -> HTTPResponse? {
        let client = Self.client(request)
        if let left = throttle.penaltyLeft(client) {
            throttle.failed(client)
            let seconds = max(1, Int(left.rounded(.up)))
            return .text(429, "too many wrong tokens from this address; try again in \(seconds) s",
                         headers: ["Retry-After": String(seconds)])
        }
        throttle.failed(client)
        return nil
    }

    /// A right token from `request`'s client: its count starts again.
    public func rightToken(_ request: HTTPRequest) { throttle.succeeded(Self.client(request)) }

    private static func client(_ request: HTTPRequest) -> String { request.peer?.description ?? SignInThrottle.unknownClient }

    /// The answer for the app's own paths (`/`, `/signin`, `/signout`, `/app/…`, `/favicon.ico`); nil for every
    /// other path.
    public func handle(_ request: HTTPRequest) -> HTTPHeadDecision? {
        let readOnly = request.method == "GET" || request.method == "HEAD"
        switch request.path {
        case "/":
            guard readOnly else { return .respond(Self.notAllowed("GET, HEAD")) }
            return .respond(front(request))
        case "/favicon.ico":
            guard readOnly else { return .respond(Self.notAllowed("GET, HEAD")) }
            return .respond(Self.favicon())
        case "/signin":
            // HEAD never uses up a code: link checkers probe with it.
            if request.method == "GET" { return .respond(signIn(query: request.query ?? "", request)) }
            if request.method == "HEAD" { return .respond(Self.redirect("./")) }
            guard request.method == "POST" else { return .respond(Self.notAllowed("GET, HEAD, POST")) }
            guard CrossSite.isSameOrigin(request.headers) else { return .respond(.text(403, "cross-site sign-in refused")) }
            return .receive(BodyCollector(limit: 4096, kind: "form") { self.signIn(form: $0, request) })
        case "/signout":
            guard request.method == "POST" else { return .respond(Self.notAllowed("POST")) }
            guard CrossSite.isSameOrigin(request.headers) else { return .respond(.text(403, "cross-site sign-out refused")) }
            if let cookie = Cookies.value(Cookies.session, in: request.headers) { sessions?.revoke(cookie) }
            var h = HTTPHeaders()
            h.add("Set-Cookie", Cookies.clearSession(secure: secure))
            return .respond(Self.redirect("./", headers: h))
        default:
            guard request.path.hasPrefix("/app/") else { return nil }
            guard readOnly else { return .respond(Self.notAllowed("GET, HEAD")) }
            guard let asset = WebAssets.files[String(request.path.dropFirst(5))] else { return .respond(.text(404, "not found")) }
            return .respond(Self.page(asset.bytes, type: asset.type))
        }
    }

    /// `/`: the app for a signed-in browser, a session for a right `?token=`, else the sign-in form.
    private func front(_ request: HTTPRequest) -> HTTPResponse {
        guard let checkToken else { return appPage(root: "", mode: "app") }
        if let token = Self.formValue("token", in: request.query ?? "") {
            guard checkToken(Array(token.utf8)) else { return wrong("That token is not right.", request) }
            rightToken(request)
            return startSession()
        }
        return hasSession(request.headers) ? appPage(root: "", mode: "app") : signInPage(message: nil, status: 200)
    }

    private func signIn(form: [UInt8], _ request: HTTPRequest) -> HTTPResponse {
        guard let checkToken else { return Self.redirect("./") }
        let token = Self.formValue("token", in: String(decoding: form, as: UTF8.self)).flatMap { $0.removingPercentEncoding } ?? ""
        guard !token.isEmpty, checkToken(Array(token.utf8)) else { return wrong("That token is not right.", request) }
        rightToken(request)
        return startSession()
    }

    /// `GET signin?code=C`: a session for a one-time code; without a code, back to the front page.
    private func signIn(query: String, _ request: HTTPRequest) -> HTTPResponse {
        guard checkToken != nil, let code = Self.formValue("code", in: query) else { return Self.redirect("./") }
        guard codes?.redeem(code) == true else {
            return wrong("That sign-in link was used already or has expired: run skylift signin for a new one, or enter the token.",
                         request)
        }
        return startSession()
    }

    private func wrong(_ message: String, _ request: HTTPRequest) -> HTTPResponse {
        wrongToken(request) ?? signInPage(message: message, status: 401)
    }

    private func startSession() -> HTTPResponse {
        guard let sessions else { return Self.redirect("./") }
        var h = HTTPHeaders()
        h.add("Set-Cookie", Cookies.setSession(sessions.create(), secure: secure))
        // "./" drops the query, so the token leaves the address bar and the history entry is clean.
        return Self.redirect("./", headers: h)
    }

    /// The app page. `root` leads from the page's folder back to the server root (relative, so the page works
    /// under any prefix); `mode` is `app` or `share`; `base` is where listings and files are, relative to it.
    /// `shared` names the shared item on a share page (`{{shared}}` in the page).
    public func appPage(root: String, mode: String, base: String = "dav/", title: String = "Skylift",
                        shared: String = "") -> HTTPResponse {
        let html = WebAssets.text("index.html")
            .replacingOccurrences(of: "{{shared}}", with: HTMLText.escaped(shared))
            .replacingOccurrences(of: "{{root}}", with: HTMLText.escaped(root))
            .replacingOccurrences(of: "{{mode}}", with: HTMLText.escaped(mode))
            .replacingOccurrences(of: "{{base}}", with: HTMLText.escaped(base))
            .replacingOccurrences(of: "{{title}}", with: HTMLText.escaped(title))
        return Self.page(Array(html.utf8), type: "text/html; charset=utf-8")
    }

    private func signInPage(message: String?, status: Int) -> HTTPResponse {
        let html = WebAssets.text("signin.html")
            .replacingOccurrences(of: "{{message}}", with: message.map { "<p class=\"error\" role=\"alert\">\(HTMLText.escaped($0))</p>" } ?? "")
        var response = Self.page(Array(html.utf8), type: "text/html; charset=utf-8")
        response.status = status
        return response
    }

    /// A page or asset: never cached stale, never framed, scripts only from here.
    static func page(_ bytes: [UInt8], type: String) -> HTTPResponse {
        var h = HTTPHeaders()
        h.add("Content-Type", type)
        h.add("Cache-Control", "no-cache")
        h.add("X-Content-Type-Options", "nosniff")
        h.add("Referrer-Policy", "no-referrer")
        h.add("Content-Security-Policy", "default-src 'self'; img-src 'self' blob: data:; media-src 'self'; "
            + "style-src 'self'; script-src 'self'; frame-ancestors 'none'; form-action 'self'")
        return HTTPResponse(status: 200, headers: h, body: .bytes(bytes))
    }

    /// `/favicon.ico`: needs no sign-in, and may be kept a day.
    static func favicon() -> HTTPResponse {
        var h = HTTPHeaders()
        h.add("Content-Type", "image/x-icon")
        h.add("Cache-Control", "max-age=86400")
        h.add("X-Content-Type-Options", "nosniff")
        return HTTPResponse(status: 200, headers: h, body: .bytes(Favicon.bytes))
    }

    static func redirect(_ location: String, headers: HTTPHeaders = [:]) -> HTTPResponse {
        var h = headers
        h.add("Location", location)
        h.add("Cache-Control", "no-store")
        return HTTPResponse(status: 303, headers: h)
    }

    static func notAllowed(_ allow: String) -> HTTPResponse { .text(405, "method not allowed", headers: ["Allow": allow]) }

    /// The value of `name` in a `a=b&c=d` string, `+` read as a space (escapes are left to the caller).
    static func formValue(_ name: String, in query: String) -> String? {
        for pair in query.split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            if parts.count == 2, parts[0] == name { return parts[1].replacingOccurrences(of: "+", with: " ") }
        }
        return nil
    }
}
