import SkyliftCore

/// Range + resolve + RangePlan: every resolved range lies inside the representation, and a plan never asks
/// for more bytes than the representation has, overlapping or touching ranges, or more than maxRanges parts.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzRange(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let input = FuzzInput(data, size)
    let (n, text) = input.numberAndText()
    guard let header = RangeHeader(text) else { return 0 }
    require(RangeHeader(header.headerValue) == header, "headerValue does not parse back to the same specs")
    // The length as given (any Int64, negative too) and a small one, so both regimes are reached.
    for length in [n, n & 0xFFFF] {
        let resolved = header.resolve(length: length)
        if case let .satisfiable(ranges) = resolved {
            for r in ranges {
                require(r.offset >= 0 && r.length > 0 && r.end <= length, "range \(r) outside 0..<\(length)")
            }
        }
        switch RangePlan.plan(header, length: length) {
        case .whole:
            require(header.specs.count > RangePlan.maxRanges || resolved != .unsatisfiable, "whole for an unsatisfiable set")
        case .unsatisfiable:
            require(resolved == .unsatisfiable, "plan unsatisfiable but resolve found ranges")
        case let .partial(ranges):
            require(!ranges.isEmpty && ranges.count <= RangePlan.maxRanges, "\(ranges.count) parts")
            var total: Int64 = 0
            for r in ranges {
                require(r.offset >= 0 && r.length > 0 && r.end <= length, "planned range \(r) outside 0..<\(length)")
                total += r.length
            }
            require(total <= length, "plan sends \(total) bytes of \(length)")
            let sorted = ranges.sorted { $0.offset < $1.offset }
            for (a, b) in zip(sorted, sorted.dropFirst()) {
                require(a.end < b.offset, "planned ranges \(a) and \(b) overlap or touch")
            }
        }
    }
    return 0
}
