#if canImport(CCurl)
import CCurl
import Foundation

// libcurl's C callbacks. Each gets the transfer back from its context pointer; the transfer outlives
// `curl_easy_perform`, the only place curl calls them.

private func transfer(_ context: UnsafeMutableRawPointer?) -> CurlTransfer? {
    context.map { Unmanaged<CurlTransfer>.fromOpaque($0).takeUnretainedValue() }
}

let curlWriteCallback: skylift_curl_data_callback = { buffer, size, count, context in
    guard let transfer = transfer(context), let buffer else { return 0 }
    return transfer.receiveBody(UnsafeRawBufferPointer(start: buffer, count: size * count))
}

let curlHeaderCallback: skylift_curl_data_callback = { buffer, size, count, context in
    guard let transfer = transfer(context), let buffer else { return 0 }
    transfer.head.receive(line: UnsafeRawBufferPointer(start: buffer, count: size * count), into: transfer.channel)
    return size * count
}

let curlReadCallback: skylift_curl_data_callback = { buffer, size, count, context in
    guard let transfer = transfer(context), let buffer else { return skylift_curl_readfunc_abort }
    return transfer.sendBody(into: UnsafeMutableRawBufferPointer(start: buffer, count: size * count))
}

let curlSeekCallback: skylift_curl_seek_callback = { context, offset, origin in
    guard let transfer = transfer(context), origin == SEEK_SET else { return skylift_curl_seekfunc_cantseek }
    return transfer.body.rewind(to: Int64(offset)) ? skylift_curl_seekfunc_ok : skylift_curl_seekfunc_cantseek
}

let curlProgressCallback: skylift_curl_xferinfo_callback = { context, expected, downloaded, _, uploaded in
    guard let transfer = transfer(context) else { return 1 }
    return transfer.checkProgress(moved: Int64(downloaded) + Int64(uploaded), expected: Int64(expected)) ? 0 : 1
}

extension CurlTransfer {
    /// Hands response bytes to the consumer, waiting while its buffer is full. Returning anything but the
    /// byte count makes curl abort the transfer.
    func receiveBody(_ bytes: UnsafeRawBufferPointer) -> Int {
        head.deliverIfPending(to: channel)
        received += Int64(bytes.count)
        // No flush: curl calls the progress callback after each pass over the socket, which flushes.
        guard channel.push(bytes, flush: false) else {
            // The consumer left. A short rest is read and dropped so the connection can serve the next request.
            if drainsRest(expected: expectedBody) { return bytes.count }
            abortReason = .cancelled
            return 0
        }
        // Time spent waiting for the consumer is not the server's lack of progress.
        noteProgress()
        return bytes.count
    }

    func sendBody(into buffer: UnsafeMutableRawBufferPointer) -> Int {
        do {
            let n = try body.read(into: buffer)
            noteProgress()
            return n
        } catch {
            abortReason = .bodyStreamFailed(url: url, reason: error.reason)
            return skylift_curl_readfunc_abort
        }
    }

    /// False stops the transfer: the consumer cancelled, or nothing moved for the request's timeout.
    func checkProgress(moved: Int64, expected: Int64) -> Bool {
        channel.flush()
        if expected > 0 { expectedBody = expected }
        if channel.isCancelled && !drainsRest(expected: expectedBody) {
            abortReason = .cancelled
            return false
        }
        if moved != lastMovedBytes {
            lastMovedBytes = moved
            noteProgress()
        } else if ContinuousClock.now - lastProgress > .milliseconds(Int64(request.timeout * 1000)) {
            abortReason = .timedOut(url: url)
            return false
        }
        return true
    }

    /// Whether a transfer whose consumer cancelled should run to its end instead of being aborted (which
    /// closes the connection): a HEAD, whose body never comes, or a body of known length with little left.
    func drainsRest(expected: Int64?) -> Bool {
        if request.method.uppercased() == "HEAD" { return true }
        guard let expected else { return false }
        return expected - received <= Self.drainLimit
    }
}
#endif
