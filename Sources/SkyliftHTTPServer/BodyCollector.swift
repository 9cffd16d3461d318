/// Collects a small request body (a WebDAV XML document, a JSON request, a sign-in form) up to a limit,
/// then answers from it. A larger body is refused with 413 naming its kind, and never held.
public final class BodyCollector: HTTPBodyReceiver {
    private let limit: Int
    private let kind: String
    private var bytes: [UInt8] = []
    private let answer: ([UInt8]) -> HTTPResponse

    /// `kind` names the body in the refusal: `XML`, `JSON`, `form`.
    public init(limit: Int, kind: String, answer: @escaping ([UInt8]) -> HTTPResponse) {
        self.limit = limit
        self.kind = kind
        self.answer = answer
    }

    public func receive(_ chunk: UnsafeRawBufferPointer) -> HTTPResponse? {
        guard chunk.count <= limit - bytes.count else { return Self.tooLarge(limit, kind: kind) }
        bytes.append(contentsOf: chunk)
        return nil
    }

    public func finish() -> HTTPResponse { answer(bytes) }

    public func abort() { bytes = [] }

    /// 413 for a `kind` body over `limit` bytes (also when `Content-Length` says so before any byte came).
    public static func tooLarge(_ limit: Int, kind: String) -> HTTPResponse {
        .text(413, "\(kind) body larger than \(limit) bytes")
    }
}
