import Foundation
import SkyliftHTTPServer
import SkyliftSystem
import SkyliftWebApp

/// How the web app is mounted: its pages at `/`, and the session cookie accepted for the requests the app
/// makes itself (reading files and listings, tus uploads, and the WebDAV calls behind its buttons).
extension StorageRouter {
    /// Methods the app sends with its cookie. Anything else (PUT, PROPFIND, LOCK, …) still needs the token.
    static let cookieMethods: Set<String> = ["GET", "HEAD", "POST", "PATCH", "DELETE", "MKCOL", "MOVE"]

    static func makeWebApp(store: Store, auth: Auth, secure: Bool) throws -> WebApp {
        let state: WebState
        do { state = try WebState(root: store.rootPath) } catch let e as WebStateError {
            throw StorageServerError.cannotCreateState(path: e.path, errno: e.errno)
        }
        return try makeWebApp(state: state, auth: auth, secure: secure)
    }

    /// The web app with its state in `state` (a folder's, or a bucket's that every instance shares).
    static func makeWebApp(state: any WebStateStore, auth: Auth, secure: Bool) throws -> WebApp {
        let secret: [UInt8]
        do { secret = try state.secret() } catch let e as WebStateError {
            throw StorageServerError.cannotCreateState(path: e.path, errno: e.errno)
        } catch {
            throw StorageServerError.stateUnavailable(location: state.location, reason: "\(error)")
        }
        let shares = Shares(state: state, secret: secret)
        guard auth.isEnabled else { return WebApp(sessions: nil, shares: shares, checkToken: nil) }
        return WebApp(sessions: Sessions(state: state, secret: secret), shares: shares, checkToken: { auth.allows(token: $0) },
                      secure: secure, codes: SignInCodes(state: state))
    }

    /// True when the request rides on a live session cookie and is one the app makes; a request that
    /// changes something must also come from a page of this server (see ``CrossSite``).
    func cookieAllows(_ request: HTTPRequest) -> Bool { Self.cookieAllows(request, web: web) }

    static func cookieAllows(_ request: HTTPRequest, web: WebApp) -> Bool {
        guard cookieMethods.contains(request.method), web.hasSession(request.headers) else { return false }
        let path = request.path
        guard path == "/dav" || path.hasPrefix("/dav/") || path.hasPrefix("/uploads/") || path.hasPrefix("/api/") else {
            return false
        }
        return request.method == "GET" || request.method == "HEAD" || CrossSite.isSameOrigin(request.headers)
    }

    /// Files are served in the same origin as the app: an HTML or SVG file from the store must not run
    /// scripts with the app's cookie, so every answer under `/dav` is sandboxed and never type-sniffed.
    static func confined(_ response: HTTPResponse) -> HTTPResponse {
        var r = response
        r.headers.set("Content-Security-Policy", "sandbox")
        r.headers.set("X-Content-Type-Options", "nosniff")
        return r
    }
}
