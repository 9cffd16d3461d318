#if canImport(CCurl)
import CCurl
import Foundation
import SkyliftCore

/// One request on one curl easy handle, run start to finish on one thread of the transport's executor.
final class CurlTransfer: @unchecked Sendable {
    // @unchecked: after `run()` starts, every stored var is touched only by the thread running it (curl calls
    // the callbacks from inside `curl_easy_perform` on that thread, and `run` is one executor job). The only state shared with other threads
    // lives in `channel`, which synchronizes itself.

    /// The request; its body is let go once sent (see `run`).
    private(set) var request: HTTPClientRequest
    let url: URL
    let channel: ResponseChannel
    private let pool: CurlHandlePool
    private let socketBufferSize: Int
    private let tls: TLSTrust?
    private let receiveWindow: Int?

    /// Why we told curl to stop, when it was us: curl only reports "aborted by callback".
    var abortReason: HTTPClientError?
    var body: CurlRequestBody
    var head = CurlResponseHead()
    var lastMovedBytes: Int64 = -1
    var lastProgress = ContinuousClock.now
    /// Response body bytes received, and the body's length once curl knows it (Content-Length).
    var received: Int64 = 0
    var expectedBody: Int64?

    /// Most bytes read and dropped after the consumer cancelled, to keep the connection for reuse.
    static let drainLimit: Int64 = 256 * 1024

    init(request: HTTPClientRequest, redactedURL: URL, channel: ResponseChannel, pool: CurlHandlePool, socketBufferSize: Int,
         tls: TLSTrust? = nil, receiveWindow: Int? = nil) {
        self.receiveWindow = receiveWindow
        self.request = request
        self.url = redactedURL
        self.channel = channel
        self.pool = pool
        self.socketBufferSize = socketBufferSize
        self.tls = tls
        self.body = CurlRequestBody(request.body)
    }

    func run() {
        guard let handle = pool.take() else {
            channel.finish(error: .transferFailed(url: url, reason: "curl_easy_init failed"))
            return
        }
        let errorBuffer = UnsafeMutablePointer<CChar>.allocate(capacity: Int(CURL_ERROR_SIZE))
        errorBuffer.initialize(repeating: 0, count: Int(CURL_ERROR_SIZE))
        defer { errorBuffer.deallocate() }
        var headerList: UnsafeMutablePointer<curl_slist>?
        defer { curl_slist_free_all(headerList) }

        let failure: HTTPClientError?
        do {
            try body.open()
            headerList = configure(handle.raw, errorBuffer: errorBuffer)
            let code = curl_easy_perform(handle.raw)
            failure = self.failure(for: code, errorBuffer: errorBuffer)
        } catch {
            failure = .bodyStreamFailed(url: url, reason: error.reason)
        }
        body.close()
        // The bytes of an in-memory body are let go before the caller resumes, so a caller that reuses its buffer
        // for the next request (an S3 part) finds it unshared and refills it in place instead of copying it.
        body = CurlRequestBody(.none)
        request.body = .none
        // The handle (and its open connection) goes back before the consumer learns the body ended, so the
        // request it sends next finds the connection idle instead of opening another.
        pool.giveBack(handle)
        channel.finish(error: failure)
    }

    /// Sets every option for this request; returns the header list, which must outlive the transfer.
    private func configure(_ h: UnsafeMutableRawPointer, errorBuffer: UnsafeMutablePointer<CChar>) -> UnsafeMutablePointer<curl_slist>? {
        skylift_curl_set_string(h, CURLOPT_URL, request.url.absoluteString)
        // Send the path as given: callers (the proxy) check it, and curl squashing `/../` afterwards would
        // let a request escape the prefix it was checked against.
        skylift_curl_set_long(h, CURLOPT_PATH_AS_IS, 1)
        skylift_curl_set_string(h, CURLOPT_PROTOCOLS_STR, "http,https")
        skylift_curl_set_ptr(h, CURLOPT_ERRORBUFFER, errorBuffer)
        // Signals are process-wide; curl on a worker thread must not touch them.
        skylift_curl_set_long(h, CURLOPT_NOSIGNAL, 1)
        skylift_curl_set_long(h, CURLOPT_HTTP_VERSION, Int(CURL_HTTP_VERSION_1_1))
        // Callers see exactly the bytes the server sent: ranges and digests refer to them.
        skylift_curl_set_long(h, CURLOPT_HTTP_CONTENT_DECODING, 0)
        skylift_curl_set_long(h, CURLOPT_FOLLOWLOCATION, 0)
        skylift_curl_set_long(h, CURLOPT_SUPPRESS_CONNECT_HEADERS, 1)
        skylift_curl_set_long(h, CURLOPT_BUFFERSIZE, socketBufferSize)
        skylift_curl_set_long(h, CURLOPT_UPLOAD_BUFFERSIZE, socketBufferSize)
        skylift_curl_set_receive_window(h, receiveWindow ?? 0)
        skylift_curl_set_long(h, CURLOPT_CONNECTTIMEOUT_MS, max(1, Int(request.timeout * 1000)))
        configureTrust(h)

        let context = Unmanaged.passUnretained(self).toOpaque()
        skylift_curl_set_write_callback(h, curlWriteCallback)
        skylift_curl_set_ptr(h, CURLOPT_WRITEDATA, context)
        skylift_curl_set_header_callback(h, curlHeaderCallback)
        skylift_curl_set_ptr(h, CURLOPT_HEADERDATA, context)
        skylift_curl_set_xferinfo_callback(h, curlProgressCallback)
        skylift_curl_set_ptr(h, CURLOPT_XFERINFODATA, context)
        skylift_curl_set_long(h, CURLOPT_NOPROGRESS, 0)

        configureMethod(h, context: context)

        var list: UnsafeMutablePointer<curl_slist>?
        for field in request.headers {
            // The transport frames the body itself from `body.length`.
            let lower = field.name.lowercased()
            if lower == "content-length" || lower == "transfer-encoding" { continue }
            // "Name;" is curl's way of sending a header with an empty value ("Name:" would remove it).
            let line = field.value.isEmpty ? "\(field.name);" : "\(field.name): \(field.value)"
            list = curl_slist_append(list, line)
        }
        // An upload would otherwise wait up to a second for "100 Continue" before sending its body.
        if !request.headers.contains("Expect") { list = curl_slist_append(list, "Expect:") }
        skylift_curl_set_slist(h, CURLOPT_HTTPHEADER, list)
        return list
    }

    /// The method, and the body callbacks when the request sends one.
    private func configureMethod(_ h: UnsafeMutableRawPointer, context: UnsafeMutableRawPointer) {
        let method = request.method.uppercased()
        let sendsBody: Bool
        switch request.body {
        case .none: sendsBody = ["POST", "PUT", "PATCH"].contains(method)
        case .bytes, .stream: sendsBody = true
        }
        if sendsBody {
            skylift_curl_set_long(h, CURLOPT_UPLOAD, 1)
            if let length = request.body.length { skylift_curl_set_off(h, CURLOPT_INFILESIZE_LARGE, curl_off_t(length)) }
            skylift_curl_set_read_callback(h, curlReadCallback)
            skylift_curl_set_ptr(h, CURLOPT_READDATA, context)
            skylift_curl_set_seek_callback(h, curlSeekCallback)
            skylift_curl_set_ptr(h, CURLOPT_SEEKDATA, context)
            if request.method != "PUT" { skylift_curl_set_string(h, CURLOPT_CUSTOMREQUEST, request.method) }
        } else if method == "HEAD" {
            skylift_curl_set_long(h, CURLOPT_NOBODY, 1)
        } else if request.method == "GET" {
            skylift_curl_set_long(h, CURLOPT_HTTPGET, 1)
        } else {
            skylift_curl_set_string(h, CURLOPT_CUSTOMREQUEST, request.method)
        }
    }

    /// A pinned key replaces CA and name checks (a self-signed certificate names no CA and maybe not the
    /// address used); curl still compares the key before sending anything. Handles are pooled per transport,
    /// whose setting never changes, so options left at curl's defaults stay so.
    private func configureTrust(_ h: UnsafeMutableRawPointer) {
        if let caFile = tls?.caFile { skylift_curl_set_string(h, CURLOPT_CAINFO, caFile) }
        if let pin = tls?.pinnedPublicKey {
            skylift_curl_set_string(h, CURLOPT_PINNEDPUBLICKEY, pin)
            skylift_curl_set_long(h, CURLOPT_SSL_VERIFYPEER, 0)
            skylift_curl_set_long(h, CURLOPT_SSL_VERIFYHOST, 0)
        }
    }

    /// The error to report for curl's result, or nil for a complete response.
    private func failure(for code: CURLcode, errorBuffer: UnsafeMutablePointer<CChar>) -> HTTPClientError? {
        if let abortReason { return abortReason }
        let detail = errorBuffer.pointee != 0 ? String(cString: errorBuffer) : String(cString: curl_easy_strerror(code))
        switch code {
        case CURLE_OK:
            return head.delivered ? nil : .transferFailed(url: url, reason: "connection ended before a response head")
        case CURLE_COULDNT_CONNECT, CURLE_COULDNT_RESOLVE_HOST, CURLE_COULDNT_RESOLVE_PROXY,
             CURLE_SSL_CONNECT_ERROR, CURLE_PEER_FAILED_VERIFICATION:
            return .connectFailed(url: url, reason: detail)
        case CURLE_SSL_PINNEDPUBKEYNOTMATCH:
            return .connectFailed(url: url, reason: "the server's public key does not match the pinned \(tls?.pinnedPublicKey ?? "key")")
        case CURLE_SSL_CACERT_BADFILE:
            return .connectFailed(url: url, reason: "cannot use the CA file \(tls?.caFile ?? ""): \(detail)")
        case CURLE_OPERATION_TIMEDOUT:
            return .timedOut(url: url)
        case CURLE_URL_MALFORMAT, CURLE_UNSUPPORTED_PROTOCOL:
            return .invalidRequest(url: url, reason: detail)
        default:
            return .transferFailed(url: url, reason: detail)
        }
    }

    /// Something moved: restart the no-progress clock.
    func noteProgress() { lastProgress = .now }
}
#endif
