import Foundation
import SkyliftCore

/// Assembles the final response head from header lines as curl passes them, one line per call,
/// skipping interim (1xx) responses.
struct CurlResponseHead {
    private var status: Int?
    private var fields: [(name: String, value: String)] = []
    private(set) var delivered = false

    mutating func receive(line raw: UnsafeRawBufferPointer, into channel: ResponseChannel) {
        guard !delivered else { return }
        var end = raw.count
        while end > 0, raw[end - 1] == UInt8(ascii: "\n") || raw[end - 1] == UInt8(ascii: "\r") { end -= 1 }
        let line = String(decoding: UnsafeRawBufferPointer(rebasing: raw[..<end]), as: UTF8.self)
        if line.isEmpty {
            // End of a head; an interim response's end just means another head follows.
            if let status, status >= 200 { deliver(to: channel) }
            return
        }
        if line.hasPrefix("HTTP/") {
            let parts = line.split(separator: " ", maxSplits: 2)
            status = parts.count >= 2 ? Int(parts[1]) : nil
            fields.removeAll()
            return
        }
        if let first = line.first, first == " " || first == "\t", !fields.isEmpty {
            // Obsolete line folding: part of the previous field's value.
            fields[fields.count - 1].value += " " + line.trimmingCharacters(in: .whitespaces)
            return
        }
        guard let colon = line.firstIndex(of: ":") else { return }
        let name = String(line[..<colon]).trimmingCharacters(in: .whitespaces)
        let value = String(line[line.index(after: colon)...]).trimmingCharacters(in: .whitespaces)
        fields.append((name: name, value: value))
    }

    /// Delivers a head that arrived without its closing blank line, before the first body byte.
    mutating func deliverIfPending(to channel: ResponseChannel) {
        if !delivered, status != nil { deliver(to: channel) }
    }

    private mutating func deliver(to channel: ResponseChannel) {
        delivered = true
        channel.deliverHead(status: status ?? 0, headers: HTTPHeaders(fields))
    }
}
