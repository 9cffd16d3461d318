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
        .library(name: "SkyliftHTTPClient", targets: ["SkyliftHTTPClient"]),
        .library(name: "SkyliftBlobStream", targets: ["SkyliftBlobStream"]),
        .library(name: "SkyliftS3", targets: ["SkyliftS3"]),
        .library(name: "SkyliftRemotes", targets: ["SkyliftRemotes"]),
        .library(name: "SkyliftUploads", targets: ["SkyliftUploads"]),
        .library(name: "SkyliftRangeCache", targets: ["SkyliftRangeCache"]),
        .library(name: "SkyliftHTTPServer", targets: ["SkyliftHTTPServer"]),
        .library(name: "SkyliftWebApp", targets: ["SkyliftWebApp"]),
        .library(name: "SkyliftThumbnails", targets: ["SkyliftThumbnails"]),
        .library(name: "SkyliftStorageServer", targets: ["SkyliftStorageServer"]),
        .library(name: "SkyliftStreamProxy", targets: ["SkyliftStreamProxy"]),
        .library(name: "SkyliftFolderWatch", targets: ["SkyliftFolderWatch"]),
        .library(name: "SkyliftAutoUpload", targets: ["SkyliftAutoUpload"]),
        .library(name: "SkyliftDownloads", targets: ["SkyliftDownloads"]),
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
        // libvips for thumbnails; Debian's libvips42 brings the HEIF loader module (libheif with libde265).
        // libvips is opened with dlopen on the first thumbnail (see Sources/CVips/include/CVips.h), not linked.
        .target(name: "CVips"),

        // The platform layer: descriptors, errno, stat, atomic replacement, the blocking-work executor.
        .target(name: "SkyliftSystem"),
        .target(name: "SkyliftCore"),
        // CRC-32C for tus block checksums: the SSE4.2 instruction where the CPU has it, a table elsewhere.
        .target(name: "CCRC32C"),
        .target(name: "SkyliftHashing", dependencies: ["CCrypto", "CCRC32C", "SkyliftCore"]),
        // Self-signed server certificates and their fingerprints, built with libcrypto (no openssl program needed).
        .target(name: "SkyliftCertificates", dependencies: ["CCrypto", "SkyliftCore"]),
        .target(name: "SkyliftHTTPServer", dependencies: ["CMicroHTTPD", "SkyliftCore", "SkyliftSystem"]),
        // Pages and scripts are embedded as Swift constants (WebAssets*.swift, made by scripts/embed-webapp.py from
        // assets/), not package resources: a copied or static `skylift` binary has no resource bundle beside it.
        .target(name: "SkyliftWebApp", dependencies: ["SkyliftHTTPServer", "SkyliftCore", "SkyliftSystem", "SkyliftHashing"], exclude: ["assets"]),
        // Thumbnails and poster frames (libvips; an ffmpeg child for videos), their disk cache, photos' capture dates.
        .target(name: "SkyliftThumbnails", dependencies: ["CVips", "SkyliftCore", "SkyliftSystem", "SkyliftHashing"]),
        .target(name: "SkyliftStorageServer", dependencies: ["SkyliftHTTPServer", "SkyliftCore", "SkyliftSystem", "SkyliftHashing", "SkyliftWebApp", "SkyliftThumbnails", "SkyliftHTTPClient", "SkyliftS3"]),
        .target(name: "SkyliftHTTPClient", dependencies: ["SkyliftCore", "SkyliftSystem", "CCurl"]),
        // URLSession behind the HTTPTransport contract; its own module so only its users link FoundationNetworking.
        .target(name: "SkyliftURLSessionHTTP", dependencies: ["SkyliftHTTPClient", "SkyliftCore"]),
        // No HTTP here: a user of FileSource links no libcurl. HTTPSource (a ranged-GET source) lives in Remotes.
        .target(name: "SkyliftBlobStream", dependencies: ["SkyliftCore", "SkyliftSystem", "SkyliftHashing"]),
        // The S3 client (SigV4 signer, objects, multipart, copy): below Remotes and the embedded cloud's S3 store alike.
        .target(name: "SkyliftS3", dependencies: ["SkyliftCore", "SkyliftHashing", "SkyliftHTTPClient"]),
        .target(name: "SkyliftRemotes", dependencies: ["SkyliftCore", "SkyliftSystem", "SkyliftBlobStream", "SkyliftHashing", "SkyliftHTTPClient", "SkyliftS3"]),
        .target(name: "SkyliftUploads", dependencies: ["SkyliftRemotes", "SkyliftBlobStream", "SkyliftHTTPClient", "SkyliftCore", "SkyliftSystem", "SkyliftHashing"]),
        .target(name: "SkyliftRangeCache", dependencies: ["SkyliftCore", "SkyliftSystem", "SkyliftHTTPClient", "SkyliftHashing"]),
        .target(name: "SkyliftStreamProxy", dependencies: ["SkyliftHTTPServer", "SkyliftRangeCache", "SkyliftCore", "SkyliftSystem"]),
        .target(name: "SkyliftFolderWatch", dependencies: ["SkyliftCore", "SkyliftSystem"]),
        .target(name: "SkyliftAutoUpload", dependencies: ["SkyliftFolderWatch", "SkyliftUploads", "SkyliftRemotes", "SkyliftHTTPClient", "CSQLite", "SkyliftCore", "SkyliftSystem"]),
        // Restores (`skylift download`): listing, resumable ranged reads into hidden partial files, digest checks.
        .target(name: "SkyliftDownloads", dependencies: ["SkyliftRemotes", "SkyliftS3", "SkyliftHTTPClient", "SkyliftHashing", "SkyliftCore", "SkyliftSystem"]),
        .target(name: "SkyliftCLI", dependencies: [
            "SkyliftCore", "SkyliftSystem", "SkyliftHashing", "SkyliftHTTPClient", "SkyliftHTTPServer", "SkyliftStorageServer", "SkyliftWebApp", "SkyliftCertificates", "SkyliftS3", "SkyliftRemotes", "SkyliftUploads",
            "SkyliftRangeCache", "SkyliftStreamProxy", "SkyliftFolderWatch", "SkyliftAutoUpload", "SkyliftDownloads",
        ]),
        // `skylift --version` names the commit: the plugin reads .git (no git needed) and stamps it in.
        .executableTarget(name: "CommitStampTool"),
        .plugin(name: "CommitStamp", capability: .buildTool(), dependencies: ["CommitStampTool"]),
        .executableTarget(name: "skylift", dependencies: ["SkyliftCLI"], plugins: ["CommitStamp"]),
        .executableTarget(name: "BlobStreamBench", dependencies: ["SkyliftBlobStream", "SkyliftHTTPClient", "SkyliftHTTPServer"], path: "bench/blobstream/BlobStreamBench"),

        // Test support shared by the test targets: `TempFolder` (every test's scratch folder), probes for attack tests
        // (a file that must not be opened, a listener that must not be contacted), the S3 peers, and the built
        // `skylift` run as a child (`ServeProcess`, `skyliftBinary()`).
        .target(name: "TestProbes", dependencies: ["TestPrograms"], path: "Tests/TestProbes"),
        // Test support: the one way tests find programs (curl, nginx, python3 …), listed in scripts/test-programs.txt.
        .target(name: "TestPrograms", path: "Tests/TestPrograms"),
        .testTarget(name: "SkyliftCoreTests", dependencies: ["SkyliftCore", "TestProbes"]),
        .testTarget(name: "SkyliftSystemTests", dependencies: ["SkyliftSystem", "TestProbes"]),
        .testTarget(name: "SkyliftHashingTests", dependencies: ["SkyliftHashing", "SkyliftCore"]),
        .testTarget(name: "SkyliftCertificatesTests", dependencies: ["SkyliftCertificates"]),
        .testTarget(name: "SkyliftHTTPServerTests", dependencies: ["SkyliftHTTPServer", "TestProbes", "TestPrograms"]),
        .testTarget(name: "SkyliftWebAppTests", dependencies: ["SkyliftWebApp", "SkyliftHashing", "TestProbes", "TestPrograms"], exclude: ["browser"]),
        .testTarget(name: "SkyliftThumbnailsTests", dependencies: ["SkyliftThumbnails", "SkyliftSystem", "TestProbes", "TestPrograms"]),
        .testTarget(name: "SkyliftStorageServerTests", dependencies: ["SkyliftStorageServer", "SkyliftS3", "SkyliftHTTPClient", "SkyliftHashing", "TestProbes", "TestPrograms"]),
        .testTarget(name: "SkyliftHTTPClientTests", dependencies: ["SkyliftHTTPClient", "SkyliftURLSessionHTTP", "SkyliftHTTPServer", "SkyliftHashing", "TestProbes"]),
        // HTTPSourceTests stay here beside the stream tests whose fixtures they share; HTTPSource itself is in Remotes.
        .testTarget(name: "SkyliftBlobStreamTests", dependencies: ["SkyliftBlobStream", "SkyliftRemotes", "SkyliftHTTPClient", "SkyliftStorageServer", "TestProbes"]),
        .testTarget(name: "SkyliftRemotesTests", dependencies: ["SkyliftRemotes", "SkyliftS3", "SkyliftStorageServer", "SkyliftUploads", "SkyliftRangeCache", "TestProbes", "TestPrograms"]),
        // SkyliftDownloads is here for its WebDAV peer test, which shares the peer launcher (PythonServer) with the upload tests.
        .testTarget(name: "SkyliftUploadsTests", dependencies: ["SkyliftUploads", "SkyliftDownloads", "SkyliftStorageServer", "TestProbes", "TestPrograms"]),
        .testTarget(name: "SkyliftRangeCacheTests", dependencies: ["SkyliftRangeCache", "SkyliftStorageServer", "TestProbes"]),
        .testTarget(name: "SkyliftStreamProxyTests", dependencies: ["SkyliftStreamProxy", "SkyliftStorageServer", "TestProbes", "TestPrograms"]),
        .testTarget(name: "SkyliftFolderWatchTests", dependencies: ["SkyliftFolderWatch", "TestProbes"]),
        .testTarget(name: "SkyliftAutoUploadTests", dependencies: ["SkyliftAutoUpload", "SkyliftStorageServer", "TestProbes"]),
        .testTarget(name: "SkyliftCLITests", dependencies: ["SkyliftCLI", "SkyliftS3", "TestProbes", "TestPrograms"]),
    ],
    swiftLanguageModes: [.v6]
)
