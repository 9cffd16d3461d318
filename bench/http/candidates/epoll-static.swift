// epoll-static ROOT PORT THREADS
//
// A measurement prototype for issue #28, not project code: the ceiling of an epoll loop of Skylift's own, in
// Swift, doing the file work `skylift serve` does for a small GET. Each of THREADS threads has its own listening
// socket on 127.0.0.1:PORT (SO_REUSEPORT) and its own edge-triggered epoll instance; every socket is non-blocking.
// A minimal HTTP/1.1 request-head parser works on the bytes as read (find CRLFCRLF, take method, path and version,
// look only at Connection and at whether a body is announced), with keep-alive and pipelining. A GET or HEAD opens
// the file with openat() on the root directory's descriptor (held open), fstat()s it, and for a file of at most
// 16 KiB preads it and sends head and body with one writev(); a larger file gets its head and then sendfile().
// Every buffer is bounded: 8 KiB of request head per connection, 16 KiB of body and 512 bytes of head per thread,
// and a connection whose socket is full keeps at most one answer (head + 16 KiB) until it drains.
//
// Build: swiftc -O -parse-as-library epoll-static.swift -o epoll-static

import Glibc

private let inCapacity = 8192
private let smallMax = 16384
private let headCapacity = 512
private let outCapacity = headCapacity + smallMax
private let pathCapacity = 4096

// Swift's Glibc module does not include <sys/epoll.h> (nor accept4, a GNU extension): those calls are looked up
// once with dlsym() and called through C function pointers, and its values are spelt out here (they are the kernel's ABI).
private let evIn: UInt32 = 0x001 // EPOLLIN
private let evOut: UInt32 = 0x004 // EPOLLOUT
private let evErr: UInt32 = 0x008 // EPOLLERR
private let evHup: UInt32 = 0x010 // EPOLLHUP
private let evEdge: UInt32 = 1 << 31 // EPOLLET
private let epollCtlAdd: Int32 = 1 // EPOLL_CTL_ADD
/// struct epoll_event is packed on x86_64: a UInt32 of events, then the 8-byte data union at offset 4.
private let eventSize = 12

private typealias EpollCreate1 = @convention(c) (Int32) -> Int32
private typealias EpollCtl = @convention(c) (Int32, Int32, Int32, UnsafeMutableRawPointer?) -> Int32
private typealias EpollWait = @convention(c) (Int32, UnsafeMutableRawPointer?, Int32, Int32) -> Int32

private func libc<T>(_ name: String, as type: T.Type) -> T {
    guard let symbol = dlsym(dlopen(nil, RTLD_NOW), name) else { fail("dlsym \(name)") }
    return unsafeBitCast(symbol, to: type)
}

private let epollCreate1 = libc("epoll_create1", as: EpollCreate1.self)
private let epollCtl = libc("epoll_ctl", as: EpollCtl.self)
private let epollWait = libc("epoll_wait", as: EpollWait.self)
private typealias Accept4 = @convention(c) (Int32, UnsafeMutableRawPointer?, UnsafeMutableRawPointer?, Int32) -> Int32
private let accept4 = libc("accept4", as: Accept4.self)

/// One connection's state, kept in its thread's table at the index of its descriptor.
private struct Conn {
    var inBuf: UnsafeMutablePointer<UInt8>? = nil
    var inLen = 0
    /// The unsent rest of an answer, when the socket would take no more.
    var out: UnsafeMutablePointer<UInt8>? = nil
    var outStart = 0
    var outLen = 0
    /// A large file still being sent with sendfile().
    var fileFd: Int32 = -1
    var fileOff: off_t = 0
    var fileLeft = 0
    /// Close once everything is sent (Connection: close, HTTP/1.0 without keep-alive, or an error).
    var closeAfter = false
}

private enum Outcome { case done, blocked, failed }
private enum Answered { case needMore, blocked, close, failed }

/// Appends bytes to a bounded buffer; text that would not fit is cut (heads here are far below the bound).
private struct Writer {
    let base: UnsafeMutablePointer<UInt8>
    let capacity: Int
    var count = 0

    mutating func add(_ s: StaticString) {
        add(s.utf8Start, s.utf8CodeUnitCount)
    }

    mutating func add(_ p: UnsafePointer<UInt8>, _ n: Int) {
        let k = min(n, capacity - count)
        (base + count).update(from: p, count: k)
        count += k
    }

    mutating func add(decimal value: Int) {
        var digits: (UInt64, UInt64, UInt64) = (0, 0, 0) // 24 bytes of scratch, enough for any Int
        withUnsafeMutableBytes(of: &digits) { raw in
            let d = raw.baseAddress!.assumingMemoryBound(to: UInt8.self)
            var v = UInt(value)
            var i = 24
            repeat {
                i -= 1
                d[i] = UInt8(truncatingIfNeeded: v % 10) &+ 48
                v /= 10
            } while v > 0
            add(UnsafePointer(d + i), 24 - i)
        }
    }

    mutating func add(hex value: Int) {
        var digits: (UInt64, UInt64) = (0, 0)
        withUnsafeMutableBytes(of: &digits) { raw in
            let d = raw.baseAddress!.assumingMemoryBound(to: UInt8.self)
            var v = UInt(bitPattern: value)
            var i = 16
            repeat {
                i -= 1
                let nibble = UInt8(truncatingIfNeeded: v & 15)
                d[i] = nibble < 10 ? nibble &+ 48 : nibble &+ 87
                v >>= 4
            } while v > 0
            add(UnsafePointer(d + i), 16 - i)
        }
    }
}

/// What the parser took from one request head.
private struct Request {
    enum Method { case get, head, other }
    var method = Method.other
    var bad = false
    var keepAlive = true
    var pathLen = 0 // the decoded path, relative to the root, is in the thread's path buffer
}

@inline(__always) private func lower(_ b: UInt8) -> UInt8 { b >= 65 && b <= 90 ? b | 0x20 : b }

/// Whether the bytes at p, for n bytes, equal the lower-case ASCII `name`, ignoring case.
private func equalsLower(_ p: UnsafePointer<UInt8>, _ n: Int, _ name: StaticString) -> Bool {
    guard n == name.utf8CodeUnitCount else { return false }
    let q = name.utf8Start
    for i in 0..<n where lower(p[i]) != q[i] { return false }
    return true
}

/// Whether the lower-case ASCII token occurs in the n bytes at p, ignoring case.
private func containsLower(_ p: UnsafePointer<UInt8>, _ n: Int, _ token: StaticString) -> Bool {
    let m = token.utf8CodeUnitCount
    let q = token.utf8Start
    guard n >= m else { return false }
    outer: for i in 0...(n - m) {
        for j in 0..<m where lower(p[i + j]) != q[j] { continue outer }
        return true
    }
    return false
}

@inline(__always) private func hexValue(_ b: UInt8) -> Int {
    switch b {
    case 48...57: return Int(b - 48)
    case 65...70: return Int(b - 55)
    case 97...102: return Int(b - 87)
    default: return -1
    }
}

private final class Worker {
    let rootFd: Int32
    let port: UInt16
    var ep: Int32 = -1
    var listener: Int32 = -1
    var table: UnsafeMutablePointer<Conn>
    var tableCapacity = 1024
    let head = UnsafeMutablePointer<UInt8>.allocate(capacity: headCapacity)
    let body = UnsafeMutablePointer<UInt8>.allocate(capacity: smallMax)
    let path = UnsafeMutablePointer<UInt8>.allocate(capacity: pathCapacity + 1)
    let date = UnsafeMutablePointer<UInt8>.allocate(capacity: 32)
    var dateLen = 0
    var dateSecond: time_t = -1
    let lastModified = UnsafeMutablePointer<UInt8>.allocate(capacity: 32)
    var lastModifiedLen = 0
    var lastModifiedOf: time_t = -1

    init(rootFd: Int32, port: UInt16) {
        self.rootFd = rootFd
        self.port = port
        table = UnsafeMutablePointer<Conn>.allocate(capacity: tableCapacity)
        table.initialize(repeating: Conn(), count: tableCapacity)
    }

    // MARK: loop

    func run() -> Never {
        listener = openListener()
        ep = epollCreate1(O_CLOEXEC) // EPOLL_CLOEXEC is O_CLOEXEC
        if ep < 0 { fail("epoll_create1") }
        watch(listener, evIn | evEdge)
        let capacity: Int32 = 256
        let events = UnsafeMutableRawPointer.allocate(byteCount: Int(capacity) * eventSize, alignment: 8)
        while true {
            let n = epollWait(ep, events, capacity, -1)
            if n < 0 {
                if errno == EINTR { continue }
                fail("epoll_wait")
            }
            for i in 0..<Int(n) {
                let flags = events.loadUnaligned(fromByteOffset: i * eventSize, as: UInt32.self)
                let fd = events.loadUnaligned(fromByteOffset: i * eventSize + 4, as: Int32.self)
                if fd == listener {
                    acceptAll()
                } else if flags & (evErr | evHup) != 0 {
                    closeConn(fd)
                } else {
                    drive(fd)
                }
            }
        }
    }

    func openListener() -> Int32 {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue | SOCK_NONBLOCK.rawValue | SOCK_CLOEXEC.rawValue), 0)
        if fd < 0 { fail("socket") }
        var on: Int32 = 1
        let size = socklen_t(MemoryLayout<Int32>.size)
        if setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &on, size) != 0 { fail("SO_REUSEADDR") }
        if setsockopt(fd, SOL_SOCKET, SO_REUSEPORT, &on, size) != 0 { fail("SO_REUSEPORT") }
        var addr = sockaddr_in()
        addr.sin_family = sa_family_t(AF_INET)
        addr.sin_port = port.bigEndian
        addr.sin_addr.s_addr = UInt32(0x7f00_0001).bigEndian
        let bound = withUnsafePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        if bound != 0 { fail("bind 127.0.0.1:\(port)") }
        if listen(fd, 4096) != 0 { fail("listen") }
        return fd
    }

    func watch(_ fd: Int32, _ flags: UInt32) {
        var ev: (UInt64, UInt64) = (0, 0) // 16 bytes, of which the 12 of an epoll_event are used
        withUnsafeMutableBytes(of: &ev) { raw in
            raw.storeBytes(of: flags, toByteOffset: 0, as: UInt32.self)
            raw.storeBytes(of: UInt64(UInt32(bitPattern: fd)), toByteOffset: 4, as: UInt64.self)
            if epollCtl(ep, epollCtlAdd, fd, raw.baseAddress) != 0 { fail("epoll_ctl") }
        }
    }

    func acceptAll() {
        while true {
            let fd = accept4(listener, nil, nil, Int32(SOCK_NONBLOCK.rawValue | SOCK_CLOEXEC.rawValue))
            if fd < 0 {
                if errno == EINTR || errno == ECONNABORTED { continue }
                return // EAGAIN: all taken; EMFILE and the like: the prototype leaves them queued
            }
            var on: Int32 = 1
            setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &on, socklen_t(MemoryLayout<Int32>.size))
            if Int(fd) >= tableCapacity { grow(to: Int(fd) + 1) }
            let c = table + Int(fd)
            c.pointee = Conn()
            c.pointee.inBuf = UnsafeMutablePointer<UInt8>.allocate(capacity: inCapacity)
            // Both directions once, edge-triggered: no epoll_ctl per request.
            watch(fd, evIn | evOut | evEdge)
            // A request may already be there (the client wrote right after connecting).
            drive(fd)
        }
    }

    func grow(to needed: Int) {
        var capacity = tableCapacity
        while capacity < needed { capacity *= 2 }
        let bigger = UnsafeMutablePointer<Conn>.allocate(capacity: capacity)
        bigger.moveInitialize(from: table, count: tableCapacity)
        (bigger + tableCapacity).initialize(repeating: Conn(), count: capacity - tableCapacity)
        table.deallocate()
        table = bigger
        tableCapacity = capacity
    }

    func closeConn(_ fd: Int32) {
        let c = table + Int(fd)
        guard c.pointee.inBuf != nil else { return }
        c.pointee.inBuf?.deallocate()
        c.pointee.out?.deallocate()
        if c.pointee.fileFd >= 0 { close(c.pointee.fileFd) }
        c.pointee = Conn()
        close(fd)
    }

    /// Moves a connection on as far as it goes without waiting: send what is pending, answer every complete
    /// request head in the buffer, read more. Returns when the socket would block (epoll reports the change).
    func drive(_ fd: Int32) {
        let c = table + Int(fd)
        guard c.pointee.inBuf != nil else { return }
        var drained = false
        while true {
            if c.pointee.outLen > 0 || c.pointee.fileLeft > 0 {
                switch flush(fd, c) {
                case .done: break
                case .blocked: return
                case .failed: closeConn(fd); return
                }
            }
            if c.pointee.closeAfter { closeConn(fd); return }
            switch answerBuffered(fd, c) {
            case .blocked: return
            case .close, .failed: closeConn(fd); return
            case .needMore: break
            }
            if drained { return }
            let have = c.pointee.inLen
            if have == inCapacity { // a head bigger than the buffer
                _ = sendError(fd, c, 431, close: true)
                closeConn(fd)
                return
            }
            let want = inCapacity - have
            let n = read(fd, c.pointee.inBuf! + have, want)
            if n > 0 {
                c.pointee.inLen += n
                // A short read emptied the socket; with edge triggering, new bytes bring a new event.
                if n < want { drained = true }
                continue
            }
            if n < 0 && errno == EINTR { continue }
            if n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) { return }
            closeConn(fd) // end of stream (nothing is half-answered here) or an error
            return
        }
    }

    /// Sends the pending rest of an answer, then the rest of a large file.
    func flush(_ fd: Int32, _ c: UnsafeMutablePointer<Conn>) -> Outcome {
        while c.pointee.outLen > 0 {
            let more = c.pointee.fileLeft > 0 ? Int32(MSG_MORE) : 0
            let n = send(fd, c.pointee.out! + c.pointee.outStart, c.pointee.outLen, Int32(MSG_NOSIGNAL) | more)
            if n < 0 {
                if errno == EINTR { continue }
                return errno == EAGAIN || errno == EWOULDBLOCK ? .blocked : .failed
            }
            c.pointee.outStart += n
            c.pointee.outLen -= n
        }
        c.pointee.outStart = 0
        while c.pointee.fileLeft > 0 {
            let n = sendfile(fd, c.pointee.fileFd, &c.pointee.fileOff, min(c.pointee.fileLeft, 1 << 20))
            if n > 0 {
                c.pointee.fileLeft -= n
                continue
            }
            if n < 0 && errno == EINTR { continue }
            if n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) { return .blocked }
            return .failed // the file shrank under us, or the socket failed: the length sent can't be kept
        }
        if c.pointee.fileFd >= 0 {
            close(c.pointee.fileFd)
            c.pointee.fileFd = -1
        }
        return .done
    }

    /// Keeps the unsent tail of head + body for later, when a write was short.
    func keep(_ c: UnsafeMutablePointer<Conn>, _ iov: UnsafePointer<iovec>, _ count: Int, sent: Int) {
        if c.pointee.out == nil { c.pointee.out = UnsafeMutablePointer<UInt8>.allocate(capacity: outCapacity) }
        var skip = sent
        var len = 0
        for i in 0..<count {
            let part = iov[i].iov_len
            if skip >= part { skip -= part; continue }
            let from = iov[i].iov_base!.assumingMemoryBound(to: UInt8.self) + skip
            (c.pointee.out! + len).update(from: from, count: part - skip)
            len += part - skip
            skip = 0
        }
        c.pointee.outStart = 0
        c.pointee.outLen = len
    }

    /// Writes head and body with one writev(); a short write keeps the rest and reports .blocked.
    func sendAll(_ fd: Int32, _ c: UnsafeMutablePointer<Conn>, _ headLen: Int, _ bodyPtr: UnsafePointer<UInt8>?,
                 _ bodyLen: Int) -> Outcome {
        var iov = (iovec(iov_base: UnsafeMutableRawPointer(head), iov_len: headLen),
                   iovec(iov_base: UnsafeMutableRawPointer(mutating: bodyPtr), iov_len: bodyLen))
        let total = headLen + bodyLen
        return withUnsafeMutableBytes(of: &iov) { raw -> Outcome in
            let v = raw.baseAddress!.assumingMemoryBound(to: iovec.self)
            let count: Int32 = bodyLen > 0 ? 2 : 1
            while true {
                let n = writev(fd, v, count)
                if n == total { return .done }
                if n >= 0 {
                    keep(c, v, Int(count), sent: n)
                    return .blocked
                }
                if errno == EINTR { continue }
                if errno == EAGAIN || errno == EWOULDBLOCK {
                    keep(c, v, Int(count), sent: 0)
                    return .blocked
                }
                return .failed
            }
        }
    }

    // MARK: requests

    /// Answers every complete request head in the buffer, in order, until one cannot be sent at once.
    func answerBuffered(_ fd: Int32, _ c: UnsafeMutablePointer<Conn>) -> Answered {
        let buf = c.pointee.inBuf!
        var consumed = 0
        var result = Answered.needMore
        while true {
            // Empty lines before a request line are allowed (RFC 9112 section 2.2).
            while consumed + 1 < c.pointee.inLen && buf[consumed] == 13 && buf[consumed + 1] == 10 { consumed += 2 }
            let start = buf + consumed
            let headLen = headEnd(start, c.pointee.inLen - consumed)
            if headLen == 0 { break }
            consumed += headLen
            let request = parse(start, headLen)
            if !request.keepAlive { c.pointee.closeAfter = true }
            let outcome = respond(fd, c, request)
            if outcome == .failed { result = .failed; break }
            if outcome == .blocked { result = .blocked; break }
            if c.pointee.closeAfter { result = .close; break }
        }
        if consumed > 0 {
            let left = c.pointee.inLen - consumed
            if left > 0 { memmove(buf, buf + consumed, left) }
            c.pointee.inLen = left
        }
        return result
    }

    /// The length of the head (through CRLFCRLF) at the start of the n bytes at p, or 0 if it is not complete.
    func headEnd(_ p: UnsafePointer<UInt8>, _ n: Int) -> Int {
        var from = 0
        while from < n {
            guard let lf = memchr(p + from, 10, n - from) else { return 0 }
            let i = UnsafeRawPointer(p).distance(to: UnsafeRawPointer(lf))
            if i >= 3 && p[i - 1] == 13 && p[i - 2] == 10 && p[i - 3] == 13 { return i + 1 }
            from = i + 1
        }
        return 0
    }

    func parse(_ p: UnsafePointer<UInt8>, _ n: Int) -> Request {
        var r = Request()
        // Request line: METHOD SP target SP HTTP/1.x CRLF
        var lineEnd = 0
        while lineEnd < n && p[lineEnd] != 13 { lineEnd += 1 }
        var sp1 = 0
        while sp1 < lineEnd && p[sp1] != 32 { sp1 += 1 }
        var sp2 = sp1 + 1
        while sp2 < lineEnd && p[sp2] != 32 { sp2 += 1 }
        if sp1 == 0 || sp2 >= lineEnd || lineEnd - sp2 - 1 != 8 {
            r.bad = true; r.keepAlive = false
            return r
        }
        // Methods are case-sensitive (RFC 9110 section 9.1).
        if sp1 == 3 && memcmp(p, "GET", 3) == 0 { r.method = .get }
        else if sp1 == 4 && memcmp(p, "HEAD", 4) == 0 { r.method = .head }
        let version = p + sp2 + 1
        let http10: Bool
        if memcmp(version, "HTTP/1.1", 8) == 0 { http10 = false }
        else if memcmp(version, "HTTP/1.0", 8) == 0 { http10 = true }
        else { r.bad = true; r.keepAlive = false; return r }
        r.keepAlive = !http10

        // Headers: only Connection matters, and whether a body is announced (the prototype won't skip one).
        var line = lineEnd + 2
        while line < n - 2 {
            var end = line
            while end < n && p[end] != 13 { end += 1 }
            var colon = line
            while colon < end && p[colon] != 58 { colon += 1 }
            if colon < end {
                var v = colon + 1
                while v < end && (p[v] == 32 || p[v] == 9) { v += 1 }
                let name = p + line, nameLen = colon - line
                let first = lower(p[line])
                if first == 99 { // c
                    if equalsLower(name, nameLen, "connection") {
                        if containsLower(p + v, end - v, "close") { r.keepAlive = false }
                        else if http10 && containsLower(p + v, end - v, "keep-alive") { r.keepAlive = true }
                    } else if equalsLower(name, nameLen, "content-length") {
                        if !(end - v == 1 && p[v] == 48) { r.bad = true; r.keepAlive = false }
                    }
                } else if first == 116 && equalsLower(name, nameLen, "transfer-encoding") {
                    r.bad = true; r.keepAlive = false
                }
            }
            line = end + 2
        }
        if r.bad || r.method == .other { return r }

        // Target: origin-form only; the query is dropped, %XX decoded, "." and ".." segments refused.
        var i = sp1 + 1
        if p[i] != 47 { r.bad = true; r.keepAlive = false; return r }
        while i < sp2 && p[i] == 47 { i += 1 }
        var len = 0
        var segmentStart = 0
        while i < sp2 {
            var b = p[i]
            if b == 63 || b == 35 { break } // ? or #
            if b == 37 { // %
                guard i + 2 < sp2, hexValue(p[i + 1]) >= 0, hexValue(p[i + 2]) >= 0 else {
                    r.bad = true; r.keepAlive = false; return r
                }
                b = UInt8(hexValue(p[i + 1]) * 16 + hexValue(p[i + 2]))
                i += 2
            }
            i += 1
            if b == 0 || len == pathCapacity { r.bad = true; r.keepAlive = false; return r }
            if b == 47 {
                if dotSegment(segmentStart, len) { r.bad = true; r.keepAlive = false; return r }
                segmentStart = len + 1
            }
            path[len] = b
            len += 1
        }
        if dotSegment(segmentStart, len) { r.bad = true; r.keepAlive = false; return r }
        path[len] = 0
        r.pathLen = len
        return r
    }

    func dotSegment(_ start: Int, _ end: Int) -> Bool {
        (end - start == 1 && path[start] == 46) || (end - start == 2 && path[start] == 46 && path[start + 1] == 46)
    }

    func respond(_ fd: Int32, _ c: UnsafeMutablePointer<Conn>, _ r: Request) -> Outcome {
        if r.bad { return sendError(fd, c, 400, close: true) }
        if r.method == .other { return sendError(fd, c, 405, close: true) }
        if r.pathLen == 0 { return sendError(fd, c, 404, close: !r.keepAlive) }
        let file = path.withMemoryRebound(to: CChar.self, capacity: r.pathLen + 1) {
            openat(rootFd, $0, O_RDONLY | O_CLOEXEC | O_NOCTTY)
        }
        if file < 0 { return sendError(fd, c, 404, close: !r.keepAlive) }
        var st = stat()
        if fstat(file, &st) != 0 || st.st_mode & S_IFMT != S_IFREG {
            close(file)
            return sendError(fd, c, 404, close: !r.keepAlive)
        }
        var size = Int(st.st_size)
        if r.method == .head || size <= smallMax {
            if r.method == .get && size > 0 {
                let n = pread(file, body, size, 0)
                if n < 0 { close(file); return sendError(fd, c, 500, close: true) }
                size = n // a file that shrank since fstat is sent as it is now
            }
            close(file)
            let headLen = writeHead(size, st, close: !r.keepAlive)
            return sendAll(fd, c, headLen, r.method == .get ? UnsafePointer(body) : nil, r.method == .get ? size : 0)
        }
        // A large file: the head (held back with MSG_MORE), then sendfile() until done or the socket is full.
        let headLen = writeHead(size, st, close: !r.keepAlive)
        c.pointee.fileFd = file
        c.pointee.fileOff = 0
        c.pointee.fileLeft = size
        var sent = 0
        while sent < headLen {
            let n = send(fd, head + sent, headLen - sent, Int32(MSG_NOSIGNAL | MSG_MORE))
            if n >= 0 { sent += n; continue }
            if errno == EINTR { continue }
            if errno == EAGAIN || errno == EWOULDBLOCK { break }
            return .failed
        }
        if sent < headLen {
            var part = iovec(iov_base: UnsafeMutableRawPointer(head), iov_len: headLen)
            keep(c, &part, 1, sent: sent)
        }
        return flush(fd, c)
    }

    func refreshDate() {
        let now = time(nil)
        if now == dateSecond { return }
        dateSecond = now
        dateLen = httpDate(now, date)
    }

    func httpDate(_ t: time_t, _ into: UnsafeMutablePointer<UInt8>) -> Int {
        var when = t
        var parts = tm()
        gmtime_r(&when, &parts)
        return into.withMemoryRebound(to: CChar.self, capacity: 32) {
            strftime($0, 32, "%a, %d %b %Y %H:%M:%S GMT", &parts)
        }
    }

    func writeHead(_ length: Int, _ st: stat, close: Bool) -> Int {
        refreshDate()
        var w = Writer(base: head, capacity: headCapacity)
        w.add("HTTP/1.1 200 OK\r\nServer: epoll-static\r\nDate: ")
        w.add(date, dateLen)
        w.add("\r\nContent-Type: application/octet-stream\r\nContent-Length: ")
        w.add(decimal: length)
        let mtime = st.st_mtim.tv_sec
        if mtime != lastModifiedOf {
            lastModifiedOf = mtime
            lastModifiedLen = httpDate(mtime, lastModified)
        }
        w.add("\r\nLast-Modified: ")
        w.add(lastModified, lastModifiedLen)
        w.add("\r\nETag: \"")
        w.add(hex: mtime)
        w.add("-")
        w.add(hex: length)
        w.add(close ? "\"\r\nConnection: close\r\n\r\n" : "\"\r\nConnection: keep-alive\r\n\r\n")
        return w.count
    }

    func sendError(_ fd: Int32, _ c: UnsafeMutablePointer<Conn>, _ status: Int, close: Bool) -> Outcome {
        if close { c.pointee.closeAfter = true }
        refreshDate()
        let line: StaticString, text: StaticString
        switch status {
        case 400: (line, text) = ("HTTP/1.1 400 Bad Request\r\n", "bad request\n")
        case 404: (line, text) = ("HTTP/1.1 404 Not Found\r\n", "not found\n")
        case 405: (line, text) = ("HTTP/1.1 405 Method Not Allowed\r\nAllow: GET, HEAD\r\n", "method not allowed\n")
        case 431: (line, text) = ("HTTP/1.1 431 Request Header Fields Too Large\r\n", "request head too large (8 KiB)\n")
        default: (line, text) = ("HTTP/1.1 500 Internal Server Error\r\n", "internal server error\n")
        }
        var w = Writer(base: head, capacity: headCapacity)
        w.add(line)
        w.add("Server: epoll-static\r\nContent-Type: text/plain\r\nContent-Length: ")
        w.add(decimal: text.utf8CodeUnitCount)
        w.add("\r\nDate: ")
        w.add(date, dateLen)
        w.add(close ? "\r\nConnection: close\r\n\r\n" : "\r\nConnection: keep-alive\r\n\r\n")
        w.add(text)
        return sendAll(fd, c, w.count, nil, 0)
    }
}

private func fail(_ what: String) -> Never {
    let message = "epoll-static: \(what): \(String(cString: strerror(errno)))\n"
    _ = message.withCString { write(2, $0, strlen($0)) }
    exit(1)
}

/// What each thread is given: the root's descriptor and the port.
private struct Start {
    var rootFd: Int32
    var port: UInt16
}

@main
struct EpollStatic {
    static func main() {
        let args = CommandLine.arguments
        guard args.count == 4, let port = UInt16(args[2]), port > 0, let threads = Int(args[3]), threads > 0,
              threads <= 256 else {
            let usage = "usage: epoll-static ROOT PORT THREADS\n"
            _ = usage.withCString { write(2, $0, strlen($0)) }
            exit(2)
        }
        signal(SIGPIPE, SIG_IGN)
        var limit = rlimit()
        if getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 {
            limit.rlim_cur = limit.rlim_max
            setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
        }
        let rootFd = open(args[1], O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if rootFd < 0 { fail("open \(args[1])") }

        // THREADS - 1 threads of their own; the main thread runs the last loop.
        for _ in 1..<threads {
            let start = UnsafeMutablePointer<Start>.allocate(capacity: 1)
            start.initialize(to: Start(rootFd: rootFd, port: port))
            var thread = pthread_t()
            let made = pthread_create(&thread, nil, { arg in
                let s = arg!.assumingMemoryBound(to: Start.self).pointee
                Worker(rootFd: s.rootFd, port: s.port).run()
            }, start)
            if made != 0 { fail("pthread_create") }
        }
        Worker(rootFd: rootFd, port: port).run()
    }
}
