import Foundation
import SkyliftHTTPClient
import SkyliftCore

/// The transport plus the headers every request to one remote carries (authorization, user extras).
///
/// Maps transport failures to ``RemoteError/network(url:reason:)`` and unexpected statuses to
/// ``RemoteError/status(_:method:url:detail:)``; header values never reach an error.
public struct RemoteHTTP: Sendable {
    public let transport: any HTTPTransport
    /// Sent with every request; may hold `Authorization`.
    public let headers: HTTPHeaders
    /// Seconds without progress before a request fails.
    public let timeout: Double

    public init(transport: any HTTPTransport, headers: HTTPHeaders = [:], timeout: Double = 60) {
        self.transport = transport
        self.headers = headers
        self.timeout = timeout
    }

    /// `Authorization: Bearer <token>` plus `extra`, in that order.
    public static func headers(token: String?, extra: HTTPHeaders = [:]) -> HTTPHeaders {
        var h = HTTPHeaders()
        if let token, !token.isEmpty { h.add("Authorization", "Bearer \(token)") }
        for f in extra { h.set(f.name, f.value) }
        return h
    }

    /// Sends a request; any status comes back (only transport failures throw).
    public func send(_ method: String, _ url: URL, headers extra: HTTPHeaders = [:], body: HTTPClientRequest.Body = .none) async throws -> HTTPClientResponse {
        var h = headers
        for f in extra { h.set(f.name, f.value) }
        let request = HTTPClientRequest(method: method, url: url, headers: h, body: body, timeout: timeout)
        do {
            return try await transport.execute(request)
        } catch let e as CancellationError {
            throw e
        } catch {
            if Task.isCancelled { throw CancellationError() }
            throw RemoteError.network(url: url, reason: Self.reason(error))
        }
    }

    /// Sends a request and requires one of `ok`; the small body of the answer is collected and returned.
    @discardableResult
    public func expect(_ ok: Set<Int>, _ method: String, _ url: URL, headers extra: HTTPHeaders = [:],
                       body: HTTPClientRequest.Body = .none, bodyLimit: Int = 1 << 20) async throws -> (status: Int, headers: HTTPHeaders, body: [UInt8]) {
        let response = try await send(method, url, headers: extra, body: body)
        let bytes: [UInt8]
        do {
            bytes = try await response.collect(upTo: bodyLimit)
        } catch {
            if ok.contains(response.status) { throw RemoteError.network(url: url, reason: Self.reason(error)) }
            bytes = []
        }
        guard ok.contains(response.status) else {
            throw RemoteError.status(response.status, method: method, url: url, detail: Self.detail(bytes))
        }
        return (response.status, response.headers, bytes)
    }

    /// The first line of a small text error body, for messages.
    static func detail(_ body: [UInt8]) -> String? {
        guard !body.isEmpty, body.count < 4096 else { return nil }
        let text = String(decoding: body, as: UTF8.self)
        guard !text.contains("<") else { return nil }  // HTML or XML says nothing useful on one line
        let line = text.split(whereSeparator: \.isNewline).first.map { $0.trimmingCharacters(in: .whitespaces) }
        return line.flatMap { $0.isEmpty ? nil : String($0.prefix(200)) }
    }

    static func reason(_ error: any Error) -> String {
        if let e = error as? RemoteError { return e.description }
        return String(describing: error)
    }
}
