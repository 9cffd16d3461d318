import SkyliftCore

/// Entity-tag lists (If-Match / If-None-Match): parsing never traps, yields trimmed non-empty tags, and the
/// comparison functions behave as RFC 9110 §8.8.3.2 says on every tag (weak matches itself; strong only when
/// not weak).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzEntityTagList(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let input = FuzzInput(data, size)
    guard let tags = EntityTag.parseList(input.text) else {
        require(input.text.trimmingSpaces() == "*", "nil (the `*` list) for \(input.text)")
        return 0
    }
    for t in tags {
        require(!t.isEmpty && t == t.trimmingSpaces(), "tag \(t) is empty or untrimmed")
        require(EntityTag.weakMatch(t, t), "\(t) does not weakly match itself")
        require(EntityTag.strongMatch(t, t) == !EntityTag.isWeak(t), "strong self-match of \(t)")
    }
    return 0
}
