import SkyliftSystem

/// Where the upload engine's blocking work runs, off Swift's cooperative pool.
enum UploadExecutors {
    /// Reading sources outside a transfer (digests for verification and skip checks): streams over network
    /// sources block while they open and read. Four threads: more digests wait their turn, each reading at
    /// disk or network speed.
    static let sourceReads = BlockingExecutor(name: "skylift-source", threads: 4)
    /// Resume records (``ResumeFileStore``'s `AtomicFile` replacement: two fsyncs and a rename each). Two threads:
    /// parallel jobs save their records side by side, and a record saves before its upload's first byte.
    static let stateFiles = BlockingExecutor(name: "skylift-state", threads: 2)
}
