extension ListenAddress {
    /// True when only this machine can connect: `localhost`, 127.0.0.0/8 or `::1`.
    public var isLoopback: Bool {
        let h = host.lowercased()
        return h == "localhost" || h == "::1" || h.hasPrefix("127.")
    }
}
