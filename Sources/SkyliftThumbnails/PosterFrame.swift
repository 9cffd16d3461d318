import Foundation
import Synchronization

/// A video's poster frame, taken by an `ffmpeg` child process: one frame about a second in (the first, for
/// shorter videos), scaled so its longer side is the thumbnail's size, written as PNG to a pipe.
///
/// A separate process rather than libavcodec linked in: video decoders are the largest attack surface a file
/// can reach, and a crash, a hang or a memory blow-up there ends only the child (it is killed after
/// ``ThumbnailOptions/posterTimeout``), never the server; see ARCHITECTURE.md for the measured cost.
struct PosterFrame {
    let ffmpeg: String
    let timeout: Double

    /// Demuxers the child may use. Playlists and the concat demuxer are left out: they open further files
    /// or URLs named inside the file, which would let a stored file make the server read another.
    static let formats = "mov,mp4,m4a,3gp,3g2,mj2,matroska,webm,avi,mpegts,mpeg,ogg,asf"

    /// Most bytes read from the child: a PNG of at most 512×512 pixels is well under this.
    static let maxOutput = 8 << 20

    /// The frame of the open video `fd` as PNG bytes, its longer side `size`.
    func frame(fd: Int32, size: Int) -> Result<[UInt8], ThumbnailError> {
        switch run(fd: fd, size: size, seek: "1") {
        case let .success(bytes) where !bytes.isEmpty: return .success(bytes)
        case let .failure(error): return .failure(error)
        case .success: return run(fd: fd, size: size, seek: nil).flatMap { bytes in
            bytes.isEmpty ? .failure(.undecodable(reason: "ffmpeg found no video frame")) : .success(bytes)
        }
        }
    }

    func arguments(size: Int, seek: String?) -> [String] {
        var args = ["-nostdin", "-hide_banner", "-loglevel", "error", "-threads", "1",
                    "-protocol_whitelist", "file", "-format_whitelist", Self.formats]
        if let seek { args += ["-ss", seek] }
        // The child reads the descriptor the server opened (its stdin) through the /dev/stdin name, which
        // reopens that very file, seekable; no path from the request ever reaches ffmpeg.
        args += ["-i", "file:/dev/stdin", "-map", "0:v:0", "-frames:v", "1", "-an", "-sn", "-dn",
                 "-vf", "scale=w=\(size):h=\(size):force_original_aspect_ratio=decrease",
                 "-f", "image2pipe", "-c:v", "png", "pipe:1"]
        return args
    }

    private func run(fd: Int32, size: Int, seek: String?) -> Result<[UInt8], ThumbnailError> {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: ffmpeg)
        process.arguments = arguments(size: size, seek: seek)
        process.environment = ["PATH": "/usr/bin:/bin"]
        process.standardInput = FileHandle(fileDescriptor: fd, closeOnDealloc: false)
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        do { try process.run() } catch { return .failure(.noVideoDecoder) }
        let killed = Atomic<Bool>(false)
        let pid = process.processIdentifier
        // Once the child's output has ended the timer no longer signals it: Foundation reaps children on its own,
        // and a pid signalled after that could name another process. (Left open: the instant between the
        // child's exit and the end of its output reaching `read`.)
        let ended = Mutex(false)
        let timer = DispatchSource.makeTimerSource(queue: .global())
        timer.schedule(deadline: .now() + timeout)
        timer.setEventHandler {
            ended.withLock { done in
                guard !done else { return }
                killed.store(true, ordering: .relaxed)
                kill(pid, SIGKILL)
            }
        }
        timer.resume()
        let bytes = read(output.fileHandleForReading, pid: pid)
        ended.withLock { $0 = true }
        timer.cancel()
        process.waitUntilExit()
        if killed.load(ordering: .relaxed) { return .failure(.timedOut(seconds: timeout)) }
        guard let bytes else { return .failure(.undecodable(reason: "ffmpeg wrote more than \(Self.maxOutput) bytes")) }
        if process.terminationStatus != 0 && bytes.isEmpty {
            return seek == nil ? .failure(.undecodable(reason: "ffmpeg could not decode the video")) : .success([])
        }
        return .success(bytes)
    }

    /// Everything the child writes, or nil (and the child killed) past ``maxOutput``.
    private func read(_ handle: FileHandle, pid: Int32) -> [UInt8]? {
        var bytes: [UInt8] = []
        while true {
            let chunk = handle.availableData
            if chunk.isEmpty { return bytes }
            bytes += chunk
            if bytes.count > Self.maxOutput {
                kill(pid, SIGKILL)
                return nil
            }
        }
    }

    /// `ffmpeg` on `PATH` (searched once per maker), or nil.
    static func find(in path: String?) -> String? {
        for folder in (path ?? "/usr/bin:/bin").split(separator: ":") {
            let candidate = String(folder) + "/ffmpeg"
            if access(candidate, X_OK) == 0 { return candidate }
        }
        return nil
    }
}
