import Foundation
@testable import SkyliftS3

/// S3 response documents (ListParts, ListObjectsV2, errors) through S3XMLElement.parse. Properties: listed
/// parts have numbers 1...10,000 and non-negative sizes, and their total is nil exactly when it overflows; the
/// reader's events are balanced and its errors printable.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzS3XML(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let body = FuzzInput(data, size).bytes
    XMLEventCheck.read(body, limits: .serverResponse)
    guard let root = try? S3XMLElement.parse(body) else { return 0 }
    let parts = root.all("Part").compactMap(S3Part.init(listed:))
    var exact: Int64? = 0
    for p in parts {
        require((1...10_000).contains(p.number) && p.size >= 0, "part \(p.number) of \(p.size) bytes accepted")
        exact = exact.flatMap { s in let (v, o) = s.addingReportingOverflow(p.size); return o ? nil : v }
    }
    require(S3Part.total(parts) == exact, "S3Part.total wrong")
    for item in root.all("Contents") {
        _ = item.integer("Size")
        _ = item["LastModified"].flatMap(S3Client.parseISODate)
    }
    _ = (root["Code"], root["Message"], root["UploadId"], root["IsTruncated"], root["NextPartNumberMarker"])
    return 0
}
