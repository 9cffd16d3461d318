import Foundation

extension TusProtocol {
    /// The `concatenation` extension's name in `Tus-Extension`.
    public static let concatenationExtension = "concatenation"

    /// `Upload-Concat`: a partial upload (its bytes are one piece of a later final upload), or a final upload
    /// joining finished partial uploads, in order, named by their URLs.
    public enum Concat: Equatable, Sendable {
        case partial
        case final([String])

        /// Header name.
        public static let header = "Upload-Concat"
        /// Most partial uploads one final upload may join: bounds the work and memory one creation can ask for.
        public static let maxParts = 10_000

        /// `partial`, or `final;<url> <url> …`.
        public var headerValue: String {
            switch self {
            case .partial: "partial"
            case let .final(urls): "final;" + urls.joined(separator: " ")
            }
        }

        /// Why an `Upload-Concat` value was refused.
        public enum Refusal: Error, Equatable, CustomStringConvertible {
            case malformed
            case empty
            case tooMany(limit: Int)

            public var description: String {
                switch self {
                case .malformed: "Upload-Concat must be \"partial\" or \"final;<url> <url> …\""
                case .empty: "Upload-Concat: final names no partial upload"
                case let .tooMany(limit): "Upload-Concat: final names more than \(limit) partial uploads"
                }
            }
        }

        /// Reads a header value: `partial`, or `final;` followed by URLs separated by spaces (split on the bytes,
        /// stopping as soon as there are more than ``maxParts``). The URLs are not checked here: that they name
        /// finished partial uploads is the server's business.
        public static func parse(_ value: String) -> Result<Concat, Refusal> {
            let trimmed = value.trimmingSpaces()
            if trimmed == "partial" { return .success(.partial) }
            guard trimmed.utf8.starts(with: "final;".utf8) else { return .failure(.malformed) }
            var urls: [String] = []
            for item in trimmed.utf8.dropFirst(6).split(omittingEmptySubsequences: true, whereSeparator: { $0 == 0x20 || $0 == 0x09 }) {
                guard urls.count < maxParts else { return .failure(.tooMany(limit: maxParts)) }
                urls.append(String(decoding: item, as: UTF8.self))
            }
            return urls.isEmpty ? .failure(.empty) : .success(.final(urls))
        }
    }
}
