// The client half of bench/httpclient/run.sh: one download or upload through a Skylift transport.
//   httpclient-bench get URL [curl|urlsession]          prints bytes received
//   httpclient-bench put URL FILE [curl|urlsession]     prints the response status
import Foundation
import SkyliftHTTPClient
import SkyliftURLSessionHTTP

@main
struct HTTPClientBench {
    static func main() async throws {
        let args = CommandLine.arguments
        guard args.count >= 3, let url = URL(string: args[2]) else {
            FileHandle.standardError.write(Data("usage: httpclient-bench get URL [transport] | put URL FILE [transport]\n".utf8))
            exit(2)
        }
        let transportName = args.count > (args[1] == "put" ? 4 : 3) ? args.last! : "curl"
        let transport: any HTTPTransport = transportName == "urlsession" ? URLSessionTransport() : CurlTransport()
        switch args[1] {
        case "get":
            let response = try await transport.execute(HTTPClientRequest(url: url))
            var count = 0
            var chunks = 0
            for try await chunk in response.body { count += chunk.count; chunks += 1 }
            print(count, chunks)
            if response.status != 200 { exit(1) }
        case "put":
            let path = args[3]
            let size = try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int64 ?? 0
            let response = try await transport.execute(HTTPClientRequest(
                method: "PUT", url: url,
                body: .stream(length: size) { InputStream(fileAtPath: path)! }))
            _ = try await response.collect(upTo: 1 << 20)
            print(response.status)
            if !(200..<300).contains(response.status) { exit(1) }
        default:
            exit(2)
        }
    }
}
