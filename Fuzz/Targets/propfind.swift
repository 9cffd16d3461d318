import Foundation
import SkyliftRemotes
import SkyliftCore

/// PROPFIND multistatus answers from a WebDAV remote through PropfindResponse.parse. Properties: lengths
/// are non-negative and dates within years 1...9999; the reader's events are balanced and its errors printable.
private let url = URL(string: "http://fuzz.invalid/dav/")!

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzPropfind(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let body = FuzzInput(data, size).bytes
    XMLEventCheck.read(body, limits: .serverResponse)
    guard let entries = try? PropfindResponse.parse(body, url: url) else {
        return 0
    }
    for e in entries {
        if let l = e.info.length { require(l >= 0, "negative length \(l)") }
        if let d = e.info.lastModified {
            let s = d.timeIntervalSince1970
            require(s >= Double(HTTPDate.earliest) && s <= Double(HTTPDate.latest) + 60, "date \(s) out of range")
        }
    }
    return 0
}
