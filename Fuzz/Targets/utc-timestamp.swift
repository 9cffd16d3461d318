import Foundation
import SkyliftCore

/// UTCTimestamp (resume records' dates): any text parses or is refused without trapping; a parsed date lies in
/// years 1...9999 and formats back to the very text it came from; any Date at all (NaN, ±inf, 1e300) formats to
/// something that parses.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzUTCTimestamp(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let input = FuzzInput(data, size)
    if let date = UTCTimestamp.parse(input.text) {
        let seconds = HTTPDate.seconds(date)
        require((HTTPDate.earliest...HTTPDate.latest).contains(seconds), "parsed date outside years 1...9999")
        require(UTCTimestamp.format(date) == input.text, "\(input.text) -> \(UTCTimestamp.format(date)) does not round-trip")
    }
    let (bits, _) = input.numberAndText()
    let any = Date(timeIntervalSince1970: Double(bitPattern: UInt64(bitPattern: bits)))
    let text = UTCTimestamp.format(any)
    require(UTCTimestamp.parse(text) != nil, "format(\(any.timeIntervalSince1970)) = \(text) does not parse")
    return 0
}
