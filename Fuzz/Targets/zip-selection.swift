@testable import SkyliftStorageServer

/// `?zip&name=…` selections: parsing never traps on any query; every name it accepts is a single member
/// name (not empty, no `/`, not `.` or `..`), names are not repeated, and there are never more than the cap.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzZipSelection(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let query = "zip&" + FuzzInput(data, size).text
    if case let .success(selection) = ZipSelection.parse(query: query) {
        for name in selection.names {
            require(!name.isEmpty && name != "." && name != ".." && !name.contains("/") && !name.contains("\0"),
                    "accepted \(name.debugDescription) from \(query.debugDescription)")
        }
        require(Set(selection.names).count == selection.names.count, "repeated names from \(query.debugDescription)")
        require(selection.names.count <= ZipSelection.maxNames, "\(selection.names.count) names")
    }
    require(ZipSelection.isZip(query), "zip& prefix not recognised")
    return 0
}
