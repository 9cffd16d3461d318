// Uploads one file through BlobInputStream and reports throughput; bench/blobstream/run.sh drives it.
//
//   BlobStreamBench urlsession|curl FILE URL   prints `<transport> <bytes> <seconds> <MiB/s> <status> <peak RSS KiB>`
//   BlobStreamBench urlsession-control FILE URL  the same URLSession upload from Foundation's InputStream(fileAtPath:)
//   BlobStreamBench sink                       serves PUTs on 127.0.0.1 (bodies counted, then dropped),
//                                              prints its base URL, runs until stdin closes
import SkyliftBlobStream
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import SkyliftHTTPClient
import SkyliftHTTPServer

/// Block size for BlobInputStream: `BLOB_BLOCK` bytes when set, else the stream's default.
let blockSize = ProcessInfo.processInfo.environment["BLOB_BLOCK"].flatMap(Int.init) ?? BlobInputStream.defaultBlockSize

struct BenchFailure: Error, CustomStringConvertible {
    var description: String
}

/// Peak resident set size of this process, from /proc (Linux); 0 where unavailable.
func peakRSSKiB() -> Int {
    guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return 0 }
    for line in status.split(separator: "\n") where line.hasPrefix("VmHWM:") {
        return Int(line.split(separator: " ").dropFirst().first ?? "") ?? 0
    }
    return 0
}

/// `body` is the stream to send: a BlobInputStream, or Foundation's own file stream as the control.
func uploadWithURLSession(file: String, length: Int64, url: URL, body: InputStream?) async throws -> Int {
    var request = URLRequest(url: url)
    request.httpMethod = "PUT"
    request.httpBodyStream = body
    request.setValue(String(length), forHTTPHeaderField: "Content-Length")
    request.timeoutInterval = 600
    let session = URLSession(configuration: .ephemeral)
    defer { session.finishTasksAndInvalidate() }
    return try await withCheckedThrowingContinuation { c in
        session.dataTask(with: request) { _, response, error in
            if let error { return c.resume(throwing: error) }
            c.resume(returning: (response as? HTTPURLResponse)?.statusCode ?? 0)
        }.resume()
    }
}

func uploadWithCurl(file: String, length: Int64, url: URL) async throws -> Int {
    let body = HTTPClientRequest.Body.stream(length: length) { BlobInputStream(source: FileSource(path: file), blockSize: blockSize) }
    let response = try await CurlTransport().execute(HTTPClientRequest(method: "PUT", url: url, body: body, timeout: 600))
    _ = try await response.collect(upTo: 1 << 20)
    return response.status
}

/// Takes PUT bodies and throws them away: the fixed point both uploaders are measured against.
final class Sink: HTTPHandler {
    final class Counter: HTTPBodyReceiver {
        var count = 0
        func receive(_ chunk: UnsafeRawBufferPointer) -> HTTPResponse? {
            count += chunk.count
            return nil
        }
        func finish() -> HTTPResponse { .text(201, "\(count)") }
        func abort() {}
    }

    func head(_ request: HTTPRequest) -> HTTPHeadDecision {
        request.method == "PUT" ? .receive(Counter()) : .respond(.text(405, "PUT only"))
    }
}

let args = CommandLine.arguments
if args.count == 2, args[1] == "sink" {
    let server = HTTPServer(configuration: .init(), handler: Sink())
    do { try server.start() } catch {
        FileHandle.standardError.write(Data("BlobStreamBench: \(error)\n".utf8))
        exit(1)
    }
    FileHandle.standardOutput.write(Data("\(server.baseURL)\n".utf8))
    _ = FileHandle.standardInput.readDataToEndOfFile()
    server.stop()
    exit(0)
}
guard args.count == 4, ["urlsession", "urlsession-control", "curl"].contains(args[1]), let url = URL(string: args[3]) else {
    FileHandle.standardError.write(Data("usage: BlobStreamBench urlsession|urlsession-control|curl FILE URL | BlobStreamBench sink\n".utf8))
    exit(2)
}
let file = args[2]
do {
    let info = try await FileSource(path: file).open()
    let start = Date()
    let status = switch args[1] {
    case "curl": try await uploadWithCurl(file: file, length: info.length, url: url)
    case "urlsession-control": try await uploadWithURLSession(file: file, length: info.length, url: url,
                                                              body: InputStream(fileAtPath: file))
    default: try await uploadWithURLSession(file: file, length: info.length, url: url,
                                            body: BlobInputStream(source: FileSource(path: file), blockSize: blockSize))
    }
    let seconds = Date().timeIntervalSince(start)
    guard (200 ..< 300).contains(status) else { throw BenchFailure(description: "HTTP \(status) from \(url)") }
    let mib = Double(info.length) / 1_048_576 / seconds
    print("\(args[1]) \(info.length) \(String(format: "%.3f", seconds)) \(String(format: "%.1f", mib)) \(status) \(peakRSSKiB())")
} catch {
    FileHandle.standardError.write(Data("BlobStreamBench: \(error)\n".utf8))
    exit(1)
}
