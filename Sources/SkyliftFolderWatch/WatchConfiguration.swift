import Foundation

/// How a `FolderWatcher` watches one tree.
public struct WatchConfiguration: Sendable {
    /// The folder to watch.
    public var root: URL
    /// Seconds a file must be quiet before it is reported (`--settle`).
    public var settle: Double
    /// Seconds after which a file that never stops changing is reported anyway (`--max-wait`).
    public var maxWait: Double
    /// Paths left alone; ignored folders are not watched at all.
    public var ignore: IgnoreRules
    /// Seconds between full scans once the kernel's watch limit is reached (the fallback).
    public var fallbackScanInterval: Double

    public init(root: URL, settle: Double = 2, maxWait: Double = 60, ignore: IgnoreRules = .standard,
                fallbackScanInterval: Double = 30) {
        self.root = root
        self.settle = settle
        self.maxWait = maxWait
        self.ignore = ignore
        self.fallbackScanInterval = fallbackScanInterval
    }
}
