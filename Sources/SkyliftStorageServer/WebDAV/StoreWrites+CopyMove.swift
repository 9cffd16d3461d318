import Foundation
import SkyliftHTTPServer

/// COPY and MOVE (RFC 4918 §9.8, §9.9) with Destination, Overwrite and Depth over either store: the headers and
/// lock checks here, the copy or move itself in the ``StoreBackend`` (dead properties travel along).
extension StoreWrites {
    func copyOrMove(_ request: HTTPRequest, source: StoragePath) -> HTTPResponse {
        let isMove = request.method == "MOVE"
        let destination: StoragePath
        switch self.destination(request) {
        case let .value(p): destination = p
        case let .refused(response): return response
        }
        do {
            guard try backend.item(source) != nil else { return .text(404, "not found: \(source.relative)") }
        } catch { return error.response }
        if source.isRoot || destination.isRoot { return .text(403, "cannot \(request.method) the root collection") }
        let depth = request.headers["Depth"]?.trimmingSpaces().lowercased() ?? "infinity"
        guard depth == "infinity" || (depth == "0" && !isMove) else {
            return .text(400, "Depth \(depth) is not allowed for \(request.method)")
        }
        let overwrite = request.headers["Overwrite"]?.trimmingSpaces().uppercased() ?? "T"
        guard overwrite == "T" || overwrite == "F" else { return .text(400, "Overwrite must be T or F") }
        var changes = [Change(path: destination, subtree: true, membership: true)]
        if isMove { changes.append(Change(path: source, subtree: true, membership: true)) }
        if let refusal = checkLocks(request, target: source, changes: changes) { return refusal }
        let replaced: Bool
        do {
            replaced = try backend.transfer(source, to: destination, move: isMove, recursive: depth == "infinity", overwrite: overwrite == "T")
        } catch { return error.response }
        forgetLocks(under: (isMove ? [source] : []) + (replaced ? [destination] : []))
        return replaced ? HTTPResponse(status: 204) : .text(201, "created")
    }

    /// The `Destination` header as a path under the root: 400 without one, 502 outside `/dav/` (another
    /// server's business, RFC 4918 §9.8.5), 403 when it leads out of the root.
    private func destination(_ request: HTTPRequest) -> Checked<StoragePath> {
        guard let header = request.headers["Destination"] else { return .refused(.text(400, "Destination header missing")) }
        switch resolver.resolve(destination: header) {
        case let .success(p): return .value(p)
        case .failure(.unreachable): return .refused(.text(403, "Destination: leads outside the root"))
        case let .failure(refusal):
            return .refused(.text(refusal == .notFound ? 502 : refusal.status, "Destination: \(refusal.message)"))
        }
    }
}
