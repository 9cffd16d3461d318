import Foundation
import SkyliftHTTPClient
import SkyliftCore
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// HTTP over URLSession, the portable transport: kept in a module of its own so that nothing else links
/// FoundationNetworking (about 3 MiB resident in every process that loads it); Skylift itself uses `CurlTransport`.
///
/// Each request gets its own session and serial delegate queue, so a delegate waiting on a full
/// response buffer holds up only its own request.
///
/// Backpressure is weaker than `CurlTransport`'s: FoundationNetworking on Linux queues every received chunk
/// to the delegate queue as it arrives and cannot pause a running transfer (suspending a task restarts it),
/// so a consumer slower than the network lets memory grow by the difference. It also sends every streamed
/// body chunked, even when its length is known, which stores such as S3 refuse. Use `CurlTransport` on Linux.
public final class URLSessionTransport: HTTPTransport {
    /// Response bytes held ahead of a slow consumer before the delegate waits.
    public let responseBufferSize: Int

    public init(responseBufferSize: Int = 4 << 20) {
        self.responseBufferSize = responseBufferSize
    }

    public func execute(_ request: HTTPClientRequest) async throws -> HTTPClientResponse {
        let url = Redaction.redactedURL(request.url)
        guard let scheme = request.url.scheme?.lowercased(), scheme == "http" || scheme == "https" else {
            throw HTTPClientError.invalidRequest(url: url, reason: "only http and https URLs are supported")
        }
        guard request.timeout > 0 else {
            throw HTTPClientError.invalidRequest(url: url, reason: "timeout must be positive")
        }
        var urlRequest = URLRequest(url: request.url)
        urlRequest.httpMethod = request.method
        urlRequest.timeoutInterval = request.timeout
        urlRequest.cachePolicy = .reloadIgnoringLocalAndRemoteCacheData
        for field in request.headers {
            let lower = field.name.lowercased()
            if lower == "content-length" || lower == "transfer-encoding" { continue }
            urlRequest.addValue(field.value, forHTTPHeaderField: field.name)
        }
        // URLSession would otherwise ask for compression and decode it; callers need the stored bytes.
        if !request.headers.contains("Accept-Encoding") { urlRequest.setValue("identity", forHTTPHeaderField: "Accept-Encoding") }
        switch request.body {
        case .none:
            if ["POST", "PUT", "PATCH"].contains(request.method.uppercased()) {
                urlRequest.setValue("0", forHTTPHeaderField: "Content-Length")
            }
        case let .bytes(bytes):
            urlRequest.httpBody = Data(bytes)
        case let .stream(length, open):
            do { urlRequest.httpBodyStream = try open() } catch {
                throw HTTPClientError.bodyStreamFailed(url: url, reason: "cannot open body stream: \(error)")
            }
            #if canImport(FoundationNetworking)
            // FoundationNetworking sends every stream chunked and would add Transfer-Encoding next to a
            // Content-Length set here, a request servers must reject; so the length goes unsent on Linux.
            _ = length
            #else
            if let length { urlRequest.setValue(String(length), forHTTPHeaderField: "Content-Length") }
            #endif
        }

        let channel = ResponseChannel(url: url, capacity: responseBufferSize)
        let delegate = URLSessionTransfer(url: url, channel: channel, body: request.body)
        let configuration = URLSessionConfiguration.ephemeral
        configuration.urlCache = nil
        configuration.requestCachePolicy = .reloadIgnoringLocalAndRemoteCacheData
        configuration.timeoutIntervalForRequest = request.timeout
        configuration.httpShouldSetCookies = false
        configuration.httpCookieStorage = nil
        let queue = OperationQueue()
        queue.maxConcurrentOperationCount = 1
        let session = URLSession(configuration: configuration, delegate: delegate, delegateQueue: queue)
        let task = session.dataTask(with: urlRequest)
        channel.onCancel { task.cancel() }
        task.resume()
        session.finishTasksAndInvalidate()
        let head = try await channel.head()
        return HTTPClientResponse(status: head.status, headers: head.headers, body: HTTPResponseBody(url: url, channel: channel))
    }
}

/// The delegate of one request's session: feeds the head and body into the response channel.
final class URLSessionTransfer: NSObject, URLSessionDataDelegate, @unchecked Sendable {
    // @unchecked: immutable after init; the channel synchronizes itself.
    let url: URL
    let channel: ResponseChannel
    let body: HTTPClientRequest.Body

    init(url: URL, channel: ResponseChannel, body: HTTPClientRequest.Body) {
        self.url = url
        self.channel = channel
        self.body = body
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
                    completionHandler: @escaping (URLSession.ResponseDisposition) -> Void) {
        guard let http = response as? HTTPURLResponse else {
            completionHandler(.cancel)
            return
        }
        var headers = HTTPHeaders()
        for (name, value) in http.allHeaderFields {
            headers.add("\(name)", "\(value)")
        }
        channel.deliverHead(status: http.statusCode, headers: headers)
        completionHandler(.allow)
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        // Waiting here stalls this request's delegate queue until the consumer catches up.
        let accepted = data.withUnsafeBytes { channel.push($0, flush: true) }
        if !accepted { dataTask.cancel() }
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
                    newRequest request: URLRequest, completionHandler: @escaping (URLRequest?) -> Void) {
        // Callers see redirects as responses, like with every other transport.
        completionHandler(nil)
    }

    func urlSession(_ session: URLSession, task: URLSessionTask,
                    needNewBodyStream completionHandler: @escaping (InputStream?) -> Void) {
        guard case let .stream(_, open) = body else {
            completionHandler(nil)
            return
        }
        completionHandler(try? open())
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        channel.finish(error: error.map(map))
    }

    private func map(_ error: any Error) -> HTTPClientError {
        guard let error = error as? URLError else { return .transferFailed(url: url, reason: "\(error)") }
        let reason = "URLError \(error.code.rawValue): \(error.localizedDescription)"
        switch error.code {
        case .cancelled: return .cancelled
        case .timedOut: return .timedOut(url: url)
        case .cannotConnectToHost, .cannotFindHost, .dnsLookupFailed, .secureConnectionFailed,
             .serverCertificateUntrusted, .serverCertificateHasBadDate, .serverCertificateNotYetValid,
             .serverCertificateHasUnknownRoot, .notConnectedToInternet:
            return .connectFailed(url: url, reason: reason)
        case .badURL, .unsupportedURL: return .invalidRequest(url: url, reason: reason)
        default: return .transferFailed(url: url, reason: reason)
        }
    }
}
