import Foundation
import SkyliftCore

/// Conditional requests and ranged answers from hostile header values: ConditionalRequest never traps, says
/// 304 only to GET/HEAD and only when a condition asked for it, and RangedResponse lays out only bytes of the
/// representation, with a multipart length that is the sum of its parts.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzConditional(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let input = FuzzInput(data, size)
    let (n, _) = input.numberAndText()
    let values = FuzzInput(Array(input.bytes.dropFirst(8)), max(0, input.bytes.count - 8)).fields(6)
    let names = ["If-Match", "If-None-Match", "If-Modified-Since", "If-Unmodified-Since", "If-Range", "Range"]
    var headers = HTTPHeaders()
    for (name, value) in zip(names, values) where !value.isEmpty { headers.add(name, value) }
    let validators: [ConditionalRequest.Validators?] = [
        nil, .init(etag: "\"v1\"", lastModified: Date(timeIntervalSince1970: TimeInterval(n & 0xFFFF_FFFF))),
        .init(etag: "W/\"v1\"", lastModified: nil), .init(etag: nil, lastModified: Date(timeIntervalSince1970: 1e18)),
    ]
    for current in validators {
        for method in ["GET", "HEAD", "PUT", "DELETE"] {
            let outcome = ConditionalRequest.evaluate(method: method, headers: headers, current: current)
            if outcome == .notModified {
                require(method == "GET" || method == "HEAD", "304 for \(method)")
                require(headers.contains("If-None-Match") || headers.contains("If-Modified-Since"), "304 without a condition")
            }
            if outcome == .preconditionFailed {
                require(names.dropLast(2).contains { headers.contains($0) }, "412 without a condition")
            }
        }
    }
    for length in [n, n & 0xFFFF] {
        let answer = RangedResponse(requestHeaders: headers, rangeApplies: true, length: length, contentType: "a/b", boundary: "B")
        switch answer.body {
        case .unsatisfiable:
            require(answer.status == 416, "unsatisfiable with \(answer.status)")
        case let .whole(r), let .single(r):
            require(r.offset >= 0 && r.end <= max(0, length), "range \(r) outside 0..<\(length)")
        case let .multipart(parts, total):
            var sum: Int64 = 0
            for part in parts {
                if case let .range(r) = part { require(r.offset >= 0 && r.end <= length, "part \(r) outside 0..<\(length)") }
                sum += part.length
            }
            require(sum == total && answer.status == 206, "multipart of \(total) bytes sums to \(sum)")
        }
    }
    return 0
}
