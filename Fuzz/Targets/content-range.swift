import SkyliftCore

/// Content-Range: parsed positions are ordered and inside the complete length, and the range they name is
/// exactly first...last.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzContentRange(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let input = FuzzInput(data, size)
    guard let cr = ContentRange(input.text) else { return 0 }
    require(cr.first != nil || cr.total != nil, "neither a range nor a length")
    require((cr.first == nil) == (cr.last == nil), "half a range")
    if let first = cr.first, let last = cr.last {
        require(first >= 0 && first <= last, "first \(first) last \(last)")
        if let total = cr.total { require(last < total, "last \(last) not below total \(total)") }
        if let r = cr.range { require(r.offset == first && r.last == last, "range \(r) is not \(first)-\(last)") }
        else { require(last == Int64.max, "no range for \(first)-\(last)") }
    }
    if let total = cr.total { require(total >= 0, "negative total") }
    return 0
}
