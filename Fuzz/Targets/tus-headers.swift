import Foundation
import Remotes
import SkyliftCore
@testable import StorageServer

/// tus headers, server side (Upload-Metadata, Upload-Checksum, Upload-Offset, Upload-Length, Content-Length as
/// TusUploads reads them) and client side (a server's Upload-Offset/Upload-Length/Tus-Max-Size as TusRemote
/// reads them). Properties: numbers are non-negative and spelled as sent; checksums have the digest's size;
/// the length checks a PATCH goes through cannot overflow.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzTusHeaders(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let f = FuzzInput(data, size).fields(5)
    if let pairs = TusUploads.parseMetadata(f[0]) {
        for key in pairs.keys { require(!key.isEmpty && !key.contains(",") && !key.contains(" "), "metadata key \(key)") }
    }
    if case let .value(checksum?) = TusUploads.parseChecksum(f[1]) {
        require(checksum.expected.count == checksum.algorithm.byteCount, "checksum of the wrong size")
    }
    let headers = HTTPHeaders([("Upload-Offset", f[2]), ("Upload-Length", f[3]), ("Content-Length", f[4]),
                               ("Tus-Max-Size", f[3]), ("Tus-Version", "1.0.0")])
    for name in ["Upload-Offset", "Upload-Length", "Content-Length"] {
        guard let v = headers.integer(name) else { continue }
        require(v >= 0, "\(name) negative")
        let digits = headers[name]!.trimmingSpaces().drop { $0 == "0" }
        require(String(v) == (digits.isEmpty ? "0" : String(digits)), "\(name) \(v) is not what was sent")
    }
    require(TusProtocol.offset(headers) == headers.integer("Upload-Offset"), "client and server read Upload-Offset apart")
    require(TusProtocol.length(headers) == headers.integer("Upload-Length"), "client and server read Upload-Length apart")
    _ = TusOptions(headers: headers)
    // The checks TusUploads.receive and TusPatchReceiver.receive make, with these numbers.
    if let offset = headers.integer("Upload-Offset"), let limit = headers.integer("Upload-Length"),
       let body = headers.integer("Content-Length"), offset <= limit {
        _ = body > limit - offset
    }
    return 0
}
