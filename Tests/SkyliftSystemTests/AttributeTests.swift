import Foundation
import SkyliftSystem
import Testing

/// Extended attributes on a real file in the temp folder (ext4 and tmpfs keep `user.*`).
@Suite struct AttributeTests {
    @Test func setReadReplaceRemove() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("xattr-\(UUID().uuidString)").path
        let fd = try FileDescriptor.open(path, .readWrite, options: [.create, .exclusive])
        defer { fd.close(); Directory.remove(path) }
        #expect(try fd.attribute("user.skylift.test", limit: 64, path: path) == nil)
        try fd.setAttribute("user.skylift.test", Array("one".utf8), path: path)
        #expect(try fd.attribute("user.skylift.test", limit: 64, path: path) == Array("one".utf8))
        try fd.setAttribute("user.skylift.test", Array("second".utf8), path: path)
        #expect(try fd.attribute("user.skylift.test", limit: 64, path: path) == Array("second".utf8))
        // A value longer than the limit is an error (ERANGE), never cut short.
        #expect(throws: FileError.self) { try fd.attribute("user.skylift.test", limit: 3, path: path) }
        try fd.removeAttribute("user.skylift.test", path: path)
        try fd.removeAttribute("user.skylift.test", path: path)
        #expect(try fd.attribute("user.skylift.test", limit: 64, path: path) == nil)
    }
}
