import Foundation
import SkyliftHTTPServer

/// Answers GET and HEAD of any path with the same bytes, as a static file server would for one small file.
struct FixedAnswer: HTTPHandler {
    let body: [UInt8]

    func head(_ request: HTTPRequest) -> HTTPHeadDecision {
        guard request.method == "GET" || request.method == "HEAD" else { return .respond(.text(405, "GET only")) }
        return .respond(HTTPResponse(status: 200, headers: ["Content-Type": "application/octet-stream"],
                                     body: request.method == "HEAD" ? .empty : .bytes(body)))
    }
}

let arguments = CommandLine.arguments
guard arguments.count == 3, let port = UInt16(arguments[2]), let data = FileManager.default.contents(atPath: arguments[1]) else {
    FileHandle.standardError.write(Data("usage: core-fixed FILE PORT\n".utf8))
    exit(2)
}
let server = HTTPServer(configuration: .init(host: "127.0.0.1", port: port), handler: FixedAnswer(body: Array(data)))
do { try server.start() } catch {
    FileHandle.standardError.write(Data("core-fixed: \(error)\n".utf8))
    exit(1)
}
while true { sleep(3600) }
