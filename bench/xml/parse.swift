import Foundation

/// Parses a PROPFIND body (200 property names) and an S3 ListParts answer (200 parts) N times each with
/// XMLReader and prints the parse rate and the process RSS before and after: memory kept per parsed body shows
/// as growth. Built by bench/xml/parse.sh against the SkyliftCore sources of a given revision.
@main
enum XMLParseBench {
    final class Count: XMLEventHandler {
        var elements = 0
        func startElement(_ name: XMLName, attributes: [XMLAttribute], namespaces: [String: String]) { elements += 1 }
        func characters(_ text: String) {}
        func endElement(_ name: XMLName) {}
    }

    static func rss() -> String {
        let status = (try? String(contentsOfFile: "/proc/self/status", encoding: .utf8)) ?? ""
        return status.split(separator: "\n").first { $0.hasPrefix("VmRSS") }.map { $0.split(separator: " ", omittingEmptySubsequences: true).dropFirst().joined(separator: " ") } ?? "?"
    }

    static func main() {
        let names = (0..<200).map { "<Z:p\($0)/>" }.joined()
        let propfind = "<?xml version=\"1.0\" encoding=\"utf-8\"?>\n<D:propfind xmlns:D=\"DAV:\" xmlns:Z=\"urn:bench:xml\"><D:prop>"
            + names + "</D:prop></D:propfind>"
        let parts = (1...200).map { "<Part><PartNumber>\($0)</PartNumber><ETag>&quot;e\($0)&quot;</ETag><Size>5242880</Size></Part>" }
        let s3 = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<ListPartsResult xmlns=\"http://s3.amazonaws.com/doc/2006-03-01/\">"
            + "<Bucket>b</Bucket>" + parts.joined() + "</ListPartsResult>"
        let n = CommandLine.arguments.dropFirst().first.flatMap { Int($0) } ?? 20_000
        for (label, text) in [("PROPFIND, 200 names", propfind), ("S3 ListParts, 200 parts", s3)] {
            let body = Array(text.utf8), before = rss(), start = Date()
            for _ in 0..<n {
                do { try XMLReader.read(body, limits: .serverResponse, into: Count()) } catch {
                    print("\(label): refused: \(error)")
                    exit(1)
                }
            }
            let rate = Double(n) / Date().timeIntervalSince(start)
            print("\(label) (\(body.count) B): \(n) parses, \(Int(rate))/s, RSS \(before) -> \(rss())")
        }
    }
}
