import SkyliftCore

/// `Want-Repr-Digest`: parsing never traps; weights are 0...10; what `choose` returns was offered and not
/// refused with weight 0.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzWantDigest(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let input = FuzzInput(data, size)
    guard let preference = DigestPreference(input.text) else { return 0 }
    require(preference.weights.count <= DigestPreference.maxMembers, "too many members")
    for (key, weight) in preference.weights {
        require((0...10).contains(weight), "weight \(weight) for \(key)")
        require(preference.weights.filter { $0.key == key }.count == 1, "\(key) twice")
    }
    let offered = ["sha-256", "sha-512"]
    for key in preference.choose(from: offered) {
        require(offered.contains(key), "chose \(key), not offered")
        require(preference.weight(of: key) != 0, "chose \(key), refused with 0")
    }
    return 0
}
