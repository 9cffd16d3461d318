import Foundation
import SkyliftHTTPServer
import Testing

/// Answers kept by the server and sent again: the same bytes and head each time, and never a kept answer for a
/// request whose head differs.
@Suite struct ReusableResponseTests {
    /// `/same`: one answer, always with the same reuse object; `/other`: the same object with another head;
    /// `/fresh`: a new reuse object each time (the old ones go away while or after they are sent).
    final class Repeater: HTTPHandler {
        let kept = ReusableResponse()
        let body = (0 ..< 3000).map { UInt8(truncatingIfNeeded: $0 &* 7) }

        func head(_ request: HTTPRequest) -> HTTPHeadDecision {
            var response = HTTPResponse(status: 200, headers: ["X-Kind": "same", "Content-Type": "application/octet-stream"],
                                        body: .bytes(body))
            switch request.path {
            case "/same": response.reuse = kept
            case "/other":
                response.headers.set("X-Kind", "other")
                response.status = 203
                response.reuse = kept
            case "/shorter":
                response.body = .bytes(Array(body.prefix(10)))
                response.reuse = kept
            default: response.reuse = ReusableResponse()
            }
            return .respond(response)
        }
    }

    private func fetch(_ url: String) throws -> (status: String, kind: String, body: [UInt8]) {
        let raw = try curl(["-i", url]).out
        guard let end = raw.range(of: Data("\r\n\r\n".utf8)) else { return ("", "", []) }
        let lines = String(decoding: raw[..<end.lowerBound], as: UTF8.self).components(separatedBy: "\r\n")
        let kind = lines.first { $0.lowercased().hasPrefix("x-kind: ") }.map { String($0.dropFirst(8)) } ?? ""
        return (lines.first ?? "", kind, Array(raw[end.upperBound...]))
    }

    @Test func aKeptAnswerIsSentAgainAsItWasAndNeverForAnotherHead() throws {
        let handler = Repeater()
        let server = HTTPServer(configuration: .init(), handler: handler)
        try server.start()
        defer { server.stop() }
        for _ in 0 ..< 3 {
            let r = try fetch("\(server.baseURL)/same")
            #expect(r.status == "HTTP/1.1 200 OK" && r.kind == "same" && r.body == handler.body)
        }
        let other = try fetch("\(server.baseURL)/other")
        #expect(other.status.hasPrefix("HTTP/1.1 203") && other.kind == "other" && other.body == handler.body,
                "another status and head: built for this request, not the kept one")
        #expect(try fetch("\(server.baseURL)/shorter").body == Array(handler.body.prefix(10)), "another body length")
        #expect(try fetch("\(server.baseURL)/same").kind == "same", "the kept one is still the first")
        #expect(try fetch("\(server.baseURL)/fresh").body == handler.body)

        // Many at once, over both loops, kept-open connections and new ones, HEAD among them.
        let urls = (0 ..< 40).map { "\(server.baseURL)/\($0 % 4 == 0 ? "fresh" : "same")" }
        let all = try curl(["--parallel", "--parallel-max", "16"] + urls).out
        #expect(all == Data(Array(repeating: handler.body, count: 40).joined()))
        let head = String(decoding: try curl(["-I", "\(server.baseURL)/same"]).out, as: UTF8.self)
        #expect(head.contains("Content-Length: 3000") && head.contains("X-Kind: same"))
    }
}
