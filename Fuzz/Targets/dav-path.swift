import Foundation
@testable import SkyliftStorageServer

/// `Destination` headers, request paths and upload `relativePath`s through PathResolver. Property: whatever
/// is accepted names a place inside the root (checked here independently with realpath, with a symlink out
/// of the root and one back into it present), made of plain segments; everything else is refused.
private let fixture: (root: String, resolver: PathResolver) = {
    let base = FileManager.default.temporaryDirectory.path + "/skylift-fuzz-path-\(getpid())"
    let root = base + "/root"
    try? FileManager.default.createDirectory(atPath: root + "/dir/sub", withIntermediateDirectories: true)
    try? FileManager.default.createDirectory(atPath: base + "/outside", withIntermediateDirectories: true)
    _ = symlink(base + "/outside", root + "/out")
    _ = symlink("..", root + "/dir/up")
    let real = URL(fileURLWithPath: root).resolvingSymlinksInPath().path
    return (real, PathResolver(rootPath: real))
}()

private func insideRoot(_ path: String) -> Bool {
    var candidate = path
    while true {
        if let resolved = realpath(candidate, nil) {
            defer { free(resolved) }
            let real = String(cString: resolved)
            return real == fixture.root || real.hasPrefix(fixture.root + "/")
        }
        // By byte: "/" followed by a combining mark is one Character, and a Character search skipped it.
        guard let slash = candidate.utf8.lastIndex(of: UInt8(ascii: "/")), slash > candidate.utf8.startIndex else { return false }
        candidate = String(decoding: candidate.utf8[..<slash], as: UTF8.self)
    }
}

private func checkPlain(_ segments: [String], _ what: String) {
    for s in segments {
        let bytes = s.utf8
        require(!s.isEmpty && s != "." && s != ".." && !bytes.contains(UInt8(ascii: "/")) && !bytes.contains(0)
                    && !bytes.contains(UInt8(ascii: "\\")),
                "\(what): segment \(s.debugDescription) accepted")
    }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzPathResolver(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let text = FuzzInput(data, size).text
    let resolver = fixture.resolver
    for result in [resolver.resolve(destination: text), resolver.resolve(rawPath: text),
                   resolver.resolve(destination: "http://host/dav/" + text), resolver.resolve(rawPath: "/dav/dir/" + text)] {
        guard case let .success(path) = result else { continue }
        checkPlain(path.segments, "path")
        require(path.rootPath == fixture.root, "root changed")
        require(insideRoot(path.filePath), "\(text.debugDescription) resolved to \(path.filePath), outside the root")
    }
    if case let .success(segments) = resolver.validate(segmentsOf: text) {
        checkPlain(segments, "relativePath")
    }
    return 0
}
