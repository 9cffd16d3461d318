// Early writeback and mount identity: what the store's writers and its scrub ask of the kernel beyond POSIX.
extension FileDescriptor {
    /// Starts writing the range's dirty pages to disk without waiting for them (Linux `sync_file_range`), so
    /// the disk works while more bytes arrive and a later `fsync` has little left to do. Returns false where
    /// the system cannot (Darwin): nothing happens then, and `fsync` does all the work as before.
    @discardableResult
    public func startWriteback(offset: Int64, length: Int64) -> Bool {
        SkyliftSystem.startWriteback(rawValue, offset: offset, length: length)
    }

    /// The kernel's id of the mount the open file lies on (Linux `statx` mount id); nil where the system does
    /// not say (Darwin, Linux before 5.8). Two files on one device can still lie on different mounts (a bind
    /// mount), which only this tells apart.
    public func mountID() -> UInt64? { SkyliftSystem.mountID(rawValue) }
}
