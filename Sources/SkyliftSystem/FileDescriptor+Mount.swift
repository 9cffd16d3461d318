extension FileDescriptor {
    /// The kernel's id of the mount the open file lies on (Linux `statx` mount id); nil where the system does
    /// not say (Darwin, Linux before 5.8). Two files on one device can still lie on different mounts (a bind
    /// mount), which only this tells apart.
    public func mountID() -> UInt64? { SkyliftSystem.mountID(rawValue) }
}
