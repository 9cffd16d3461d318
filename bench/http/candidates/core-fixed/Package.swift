// swift-tools-version:6.0
// Skylift's HTTP core (SkyliftHTTPServer over libmicrohttpd) with a handler that answers every GET with one
// file's bytes read at start: the core's own cost, without the storage server's per-request file work.
import PackageDescription

let package = Package(
    name: "core-fixed",
    platforms: [.macOS(.v15)],
    dependencies: [.package(name: "skylift", path: "../../../..")],
    targets: [.executableTarget(name: "core-fixed", dependencies: [.product(name: "SkyliftHTTPServer", package: "skylift")])]
)
