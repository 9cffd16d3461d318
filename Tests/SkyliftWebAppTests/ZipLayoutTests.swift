import TestPrograms
import Foundation
import SkyliftSystem
import TestProbes
import Testing
@testable import SkyliftWebApp

@Suite struct ZipLayoutTests {
    private func le(_ b: [UInt8], _ at: Int, _ n: Int) -> UInt64 {
        (0..<n).reduce(UInt64(0)) { $0 | UInt64(b[at + $1]) << (8 * UInt64($1)) }
    }

    @Test func crc32OfKnownInput() {
        var crc = CRC32()
        Array("123456789".utf8).withUnsafeBytes { crc.update($0) }
        #expect(crc.value == 0xCBF4_3926)
    }

    @Test func smallEntryUsesClassicFields() {
        let r = ZipLayout.Record(name: Array("a.txt".utf8), size: 10, crc: 7, offset: 100, isFolder: false, modified: Date())
        let local = ZipLayout.localHeader(r)
        #expect(local.count == 30 + 5 && le(local, 6, 2) == 0x0808 && le(local, 28, 2) == 0)
        #expect(ZipLayout.dataDescriptor(r).count == 16)
        let central = ZipLayout.centralHeader(r)
        #expect(le(central, 20, 4) == 10 && le(central, 24, 4) == 10 && le(central, 42, 4) == 100 && le(central, 30, 2) == 0)
    }

    /// A 5 GiB entry at an offset past 4 GiB, without writing 5 GiB: every field that overflows goes to zip64.
    @Test func largeEntryAndOffsetGoToZip64() {
        let size: Int64 = 5 << 30, offset: Int64 = (4 << 30) + 12
        let r = ZipLayout.Record(name: Array("big".utf8), size: size, crc: 0xDEAD_BEEF, offset: offset, isFolder: false, modified: Date())
        let local = ZipLayout.localHeader(r)
        #expect(le(local, 4, 2) == 45 && le(local, 18, 4) == 0xFFFF_FFFF && le(local, 22, 4) == 0xFFFF_FFFF)
        #expect(le(local, 28, 2) == 20 && le(local, 33, 2) == 1 && le(local, 35, 2) == 16)
        let descriptor = ZipLayout.dataDescriptor(r)
        #expect(descriptor.count == 24 && le(descriptor, 4, 4) == 0xDEAD_BEEF && le(descriptor, 8, 8) == UInt64(size) && le(descriptor, 16, 8) == UInt64(size))
        let central = ZipLayout.centralHeader(r)
        #expect(le(central, 20, 4) == 0xFFFF_FFFF && le(central, 24, 4) == 0xFFFF_FFFF && le(central, 42, 4) == 0xFFFF_FFFF)
        let extra = 46 + 3
        #expect(le(central, 30, 2) == 28 && le(central, extra, 2) == 1 && le(central, extra + 2, 2) == 24)
        #expect(le(central, extra + 4, 8) == UInt64(size) && le(central, extra + 12, 8) == UInt64(size) && le(central, extra + 20, 8) == UInt64(offset))

        let end = ZipLayout.end(entries: 3, directoryOffset: (6 << 30), directorySize: 300)
        #expect(le(end, 0, 4) == 0x0606_4B50 && le(end, 48, 8) == UInt64(6 << 30) && le(end, 40, 8) == 300)
        #expect(le(end, 56, 4) == 0x0706_4B50 && le(end, 64, 8) == UInt64((6 << 30) + 300))
        #expect(le(end, 76, 4) == 0x0605_4B50 && le(end, 76 + 16, 4) == 0xFFFF_FFFF)
        #expect(ZipLayout.end(entries: 3, directoryOffset: 10, directorySize: 300).count == 22)
    }

    /// Python's zipfile reads the zip64 central directory and end records of a fake 5 GiB entry (its data left out:
    /// only the directory is read) and of a real archive with 70,000 entries, past the 16-bit entry count.
    @Test func pythonReadsZip64Records() throws {
        let scratch = try TempFolder("zip"), dir = scratch.url

        let r = ZipLayout.Record(name: Array("big.bin".utf8), size: 5 << 30, crc: 1, offset: 0, isFolder: false, modified: Date())
        var fake = ZipLayout.localHeader(r) + ZipLayout.dataDescriptor(r)
        let cd = ZipLayout.centralHeader(r)
        let cdOffset = Int64(fake.count)
        fake += cd + ZipLayout.end(entries: 1, directoryOffset: cdOffset, directorySize: Int64(cd.count))
        try Data(fake).write(to: dir.appendingPathComponent("fake.zip"))

        final class Folders: ZipEntrySource {
            var left = 70_000
            func next() -> ZipEntry? {
                guard left > 0 else { return nil }
                left -= 1
                return ZipEntry(name: "d\(left)/", modified: Date(timeIntervalSince1970: 1_700_000_000), size: 0, descriptor: nil)
            }
        }
        let stream = ZipStream(source: Folders())
        let bytes = try #require(Self.drain(stream), "stream failed")
        try Data(bytes).write(to: dir.appendingPathComponent("many.zip"))
        let script = """
        import sys, zipfile
        big = zipfile.ZipFile(sys.argv[1]).infolist()[0]
        many = zipfile.ZipFile(sys.argv[2])
        print(big.filename, big.file_size, len(many.infolist()), many.testzip())
        """
        let out = try TestPrograms.runPython(script, [dir.appendingPathComponent("fake.zip").path, dir.appendingPathComponent("many.zip").path])
        #expect(out == "big.bin \(5 << 30) 70000 None", "\(out)")
    }

    /// A name longer than the 16-bit length field holds is left out (its file closed), and the archive around it
    /// stays readable: before, the length was clamped while the whole name was written, and every reader failed.
    @Test func anEntryWhoseNameDoesNotFitIsLeftOut() throws {
        let scratch = try TempFolder("zip"), dir = scratch.url
        let file = dir.appendingPathComponent("content.txt")
        try Data("kept".utf8).write(to: file)

        final class Entries: ZipEntrySource {
            var left: [ZipEntry]
            init(_ entries: [ZipEntry]) { left = entries.reversed() }
            func next() -> ZipEntry? { left.popLast() }
        }
        let long = String(repeating: "n/", count: 40_000) + "file.txt"
        let opened = [open(file.path, O_RDONLY), open(file.path, O_RDONLY)]
        let when = Date(timeIntervalSince1970: 1_700_000_000)
        let stream = ZipStream(source: Entries([
            ZipEntry(name: "first.txt", modified: when, size: 4, descriptor: FileDescriptor(rawValue: opened[0])),
            ZipEntry(name: long, modified: when, size: 4, descriptor: FileDescriptor(rawValue: opened[1])),
            ZipEntry(name: String(repeating: "d", count: 70_000) + "/", modified: when, size: 0, descriptor: nil),
            ZipEntry(name: "folder/", modified: when, size: 0, descriptor: nil),
        ]))
        let bytes = try #require(Self.drain(stream), "stream failed")
        #expect(fcntl(opened[1], F_GETFD) == -1, "the left-out file's descriptor is closed")
        let archive = dir.appendingPathComponent("out.zip")
        try Data(bytes).write(to: archive)
        let out = try TestPrograms.runPython("import sys, zipfile; z = zipfile.ZipFile(sys.argv[1]); print(z.namelist(), z.read('first.txt'), z.testzip())",
                                             [archive.path])
        #expect(out == "['first.txt', 'folder/'] b'kept' None", "\(out)")
    }

    /// Everything `stream` produces, in 64 KiB calls; nil when it fails.
    static func drain(_ stream: ZipStream) -> [UInt8]? {
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            switch buffer.withUnsafeMutableBytes({ stream.produce(into: $0, at: Int64(bytes.count)) }) {
            case let .bytes(n): bytes += buffer[0..<n]
            case .end: return bytes
            case .failed, .pending: return nil
            }
        }
    }

    @Test func generatedAssetsMatchTheirSources() throws {
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("../../scripts/embed-webapp.py").standardized
        let p = Process()
        p.executableURL = try TestPrograms.python()
        p.arguments = [script.path, "--check"]
        try p.run()
        p.waitUntilExit()
        #expect(p.terminationStatus == 0, "run scripts/embed-webapp.py")
    }
}
