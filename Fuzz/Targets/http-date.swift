import Foundation
import SkyliftCore

/// HTTPDate: any text parses or is refused without trapping; a parsed date lies in years 1...9999 and survives
/// a format/parse round trip; any Date at all (NaN, ±inf, 1e300) formats to something that parses.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzHTTPDate(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let input = FuzzInput(data, size)
    if let date = HTTPDate.parse(input.text) {
        let seconds = HTTPDate.seconds(date)
        require((HTTPDate.earliest...HTTPDate.latest).contains(seconds), "parsed date outside years 1...9999")
        let text = HTTPDate.format(date)
        require(HTTPDate.parse(text).map(HTTPDate.seconds) == seconds, "\(input.text) -> \(text) does not round-trip")
    }
    let (bits, _) = input.numberAndText()
    let any = Date(timeIntervalSince1970: Double(bitPattern: UInt64(bitPattern: bits)))
    let text = HTTPDate.format(any)
    require(HTTPDate.parse(text) != nil, "format(\(any.timeIntervalSince1970)) = \(text) does not parse")
    return 0
}
