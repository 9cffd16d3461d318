import Foundation
import SkyliftThumbnails

/// EXIF DateTimeOriginal and OffsetTimeOriginal as libvips renders them (the text comes from a stored file): any
/// pair parses or is refused without trapping; a parsed date lies in years 1...9999 (±14 hours for the offset),
/// and a date that parses with an offset differs from it without the offset by exactly that offset.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzPhotoDate(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let fields = FuzzInput(data, size).fields(2)
    let plain = PhotoDate.parse(fields[0])
    if let plain {
        let t = plain.timeIntervalSince1970
        require(t >= -62_135_596_800 && t <= 253_402_300_799, "\(fields[0]) -> \(t) outside years 1...9999")
    }
    if let shifted = PhotoDate.parse(fields[0], offset: fields[1]) {
        guard let plain else { require(false, "parses with an offset, not without: \(fields)"); return 0 }
        let delta = plain.timeIntervalSince1970 - shifted.timeIntervalSince1970
        require(abs(delta) <= 14 * 3600 + 59 * 60 && delta.truncatingRemainder(dividingBy: 60) == 0, "offset \(delta) s from \(fields[1])")
    }
    return 0
}
