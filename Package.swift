// swift-tools-version:6.0
import PackageDescription

// ARCHITECTURE.md is the map: what each module owns, the data paths, the concurrency model, lock order
// and durability rules. Data flows one way: source → BlobStream → Remotes → Uploads; HTTPClient → RangeCache →
// StreamProxy; FolderWatch → AutoUpload → Uploads. A module depends only on modules upstream of it;
// scripts/check-architecture.sh fails when this file, the imports and ARCHITECTURE.md's table disagree.
let package = Package(
    name: "Skylift",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "skylift", targets: ["skylift"]),
        .library(name: "SkyliftSystem", targets: ["SkyliftSystem"]),
        .library(name: "SkyliftCore", targets: ["SkyliftCore"]),
        .library(name: "HTTPClient", targets: ["HTTPClient"]),
        .library(name: "BlobStream", targets: ["BlobStream"]),
        .library(name: "Remotes", targets: ["Remotes"]),
        .library(name: "Uploads", targets: ["Uploads"]),
        .library(name: "RangeCache", targets: ["RangeCache"]),
        .library(name: "HTTPServer", targets: ["HTTPServer"]),
        .library(name: "WebApp", targets: ["WebApp"]),
        .library(name: "StorageServer", targets: ["StorageServer"]),
        .library(name: "StreamProxy", targets: ["StreamProxy"]),
        .library(name: "FolderWatch", targets: ["FolderWatch"]),
        .library(name: "AutoUpload", targets: ["AutoUpload"]),
        .library(name: "Downloads", targets: ["Downloads"]),
    ],
    targets: [
        // System libraries from Debian -dev packages.
        .systemLibrary(name: "CMicroHTTPD", pkgConfig: "libmicrohttpd",
                       providers: [.apt(["libmicrohttpd-dev"]), .brew(["libmicrohttpd"])]),
        .systemLibrary(name: "CSQLite", pkgConfig: "sqlite3",
                       providers: [.apt(["libsqlite3-dev"]), .brew(["sqlite"])]),
        .systemLibrary(name: "CCrypto", pkgConfig: "libcrypto",
                       providers: [.apt(["libssl-dev"]), .brew(["openssl"])]),
        .systemLibrary(name: "CCurl", pkgConfig: "libcurl",
                       providers: [.apt(["libcurl4-openssl-dev"]), .brew(["curl"])]),

        // The platform layer: descriptors, errno, stat, atomic replacement, the blocking-work executor.
        .target(name: "SkyliftSystem"),
        .target(name: "SkyliftCore"),
        // CRC-32C for tus block checksums: the SSE4.2 instruction where the CPU has it, a table elsewhere.
        .target(name: "CCRC32C"),
        .target(name: "Hashing", dependencies: ["CCrypto", "CCRC32C", "SkyliftCore"]),
        // Self-signed server certificates and their fingerprints, built with libcrypto (no openssl program needed).
        .target(name: "Certificates", dependencies: ["CCrypto", "SkyliftCore"]),
        .target(name: "HTTPServer", dependencies: ["CMicroHTTPD", "SkyliftCore"]),
        // Pages and scripts are embedded as Swift constants (WebAssets*.swift, made by scripts/embed-webapp.py from
        // assets/), not package resources: a copied or static `skylift` binary has no resource bundle beside it.
        .target(name: "WebApp", dependencies: ["HTTPServer", "SkyliftCore", "SkyliftSystem", "Hashing"], exclude: ["assets"]),
        .target(name: "StorageServer", dependencies: ["HTTPServer", "SkyliftCore", "SkyliftSystem", "Hashing", "WebApp"]),
        .target(name: "HTTPClient", dependencies: ["SkyliftCore", "CCurl"]),
        // URLSession behind the HTTPTransport contract; its own module so only its users link FoundationNetworking.
        .target(name: "URLSessionHTTP", dependencies: ["HTTPClient", "SkyliftCore"]),
        // No HTTP here: a user of FileSource links no libcurl. HTTPSource (a ranged-GET source) lives in Remotes.
        .target(name: "BlobStream", dependencies: ["SkyliftCore", "SkyliftSystem", "Hashing"]),
        .target(name: "Remotes", dependencies: ["SkyliftCore", "SkyliftSystem", "BlobStream", "Hashing", "HTTPClient"]),
        .target(name: "Uploads", dependencies: ["Remotes", "BlobStream", "HTTPClient", "SkyliftCore", "SkyliftSystem", "Hashing"]),
        .target(name: "RangeCache", dependencies: ["SkyliftCore", "SkyliftSystem", "HTTPClient", "Hashing"]),
        .target(name: "StreamProxy", dependencies: ["HTTPServer", "RangeCache", "SkyliftCore", "SkyliftSystem"]),
        .target(name: "FolderWatch", dependencies: ["SkyliftCore", "SkyliftSystem"]),
        .target(name: "AutoUpload", dependencies: ["FolderWatch", "Uploads", "Remotes", "HTTPClient", "CSQLite", "SkyliftCore", "SkyliftSystem"]),
        // Restores (`skylift download`): listing, resumable ranged reads into hidden partial files, digest checks.
        .target(name: "Downloads", dependencies: ["Remotes", "HTTPClient", "Hashing", "SkyliftCore", "SkyliftSystem"]),
        .target(name: "SkyliftCLI", dependencies: [
            "SkyliftCore", "SkyliftSystem", "Hashing", "HTTPClient", "HTTPServer", "StorageServer", "WebApp", "Certificates", "Remotes", "Uploads",
            "RangeCache", "StreamProxy", "FolderWatch", "AutoUpload", "Downloads",
        ]),
        // `skylift --version` names the commit: the plugin reads .git (no git needed) and stamps it in.
        .executableTarget(name: "CommitStampTool"),
        .plugin(name: "CommitStamp", capability: .buildTool(), dependencies: ["CommitStampTool"]),
        .executableTarget(name: "skylift", dependencies: ["SkyliftCLI"], plugins: ["CommitStamp"]),
        .executableTarget(name: "BlobStreamBench", dependencies: ["BlobStream", "HTTPClient", "HTTPServer"], path: "bench/blobstream/BlobStreamBench"),

        // Probes for attack tests (a file that must not be opened, a listener that must not be contacted).
        .target(name: "TestProbes", dependencies: ["TestPrograms"], path: "Tests/TestProbes"),
        // Test support: the one way tests find programs (curl, nginx, python3 …), listed in scripts/test-programs.txt.
        .target(name: "TestPrograms", path: "Tests/TestPrograms"),
        .testTarget(name: "SkyliftCoreTests", dependencies: ["SkyliftCore", "TestProbes"]),
        .testTarget(name: "SkyliftSystemTests", dependencies: ["SkyliftSystem"]),
        .testTarget(name: "HashingTests", dependencies: ["Hashing", "SkyliftCore"]),
        .testTarget(name: "CertificatesTests", dependencies: ["Certificates"]),
        .testTarget(name: "HTTPServerTests", dependencies: ["HTTPServer", "TestPrograms"]),
        .testTarget(name: "WebAppTests", dependencies: ["WebApp", "Hashing", "TestPrograms"], exclude: ["browser"]),
        .testTarget(name: "StorageServerTests", dependencies: ["StorageServer", "Hashing", "TestProbes", "TestPrograms"]),
        .testTarget(name: "HTTPClientTests", dependencies: ["HTTPClient", "URLSessionHTTP", "HTTPServer", "Hashing"]),
        // HTTPSourceTests stay here beside the stream tests whose fixtures they share; HTTPSource itself is in Remotes.
        .testTarget(name: "BlobStreamTests", dependencies: ["BlobStream", "Remotes", "HTTPClient", "StorageServer"]),
        .testTarget(name: "RemotesTests", dependencies: ["Remotes", "StorageServer", "Uploads", "RangeCache", "TestProbes", "TestPrograms"]),
        // Downloads is here for its WebDAV peer test, which shares the peer launcher (PythonServer) with the upload tests.
        .testTarget(name: "UploadsTests", dependencies: ["Uploads", "Downloads", "StorageServer", "TestProbes", "TestPrograms"]),
        .testTarget(name: "RangeCacheTests", dependencies: ["RangeCache", "StorageServer"]),
        .testTarget(name: "StreamProxyTests", dependencies: ["StreamProxy", "StorageServer", "TestPrograms"]),
        .testTarget(name: "FolderWatchTests", dependencies: ["FolderWatch"]),
        .testTarget(name: "AutoUploadTests", dependencies: ["AutoUpload", "StorageServer"]),
        .testTarget(name: "SkyliftCLITests", dependencies: ["SkyliftCLI", "TestProbes", "TestPrograms"]),
    ],
    swiftLanguageModes: [.v6]
)
