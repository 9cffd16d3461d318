import CMicroHTTPD
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Questions asked of a connection's socket behind libmicrohttpd's back.
enum PeerSocket {
    /// True when the peer closed its side and nothing is left unread: a peek for one byte sees the end of the
    /// stream at once. Never blocks and never consumes data.
    static func hasHungUp(_ fd: Int32) -> Bool {
        guard fd >= 0 else { return false }
        var byte: UInt8 = 0
        return recv(fd, &byte, 1, Int32(MSG_PEEK) | Int32(MSG_DONTWAIT)) == 0
    }
}
