import Foundation

/// A response body as an `AsyncSequence` of byte chunks.
///
/// The transport puts at most a few chunks into a bounded buffer ahead of the consumer and then waits,
/// so a slow consumer slows the transfer instead of growing memory. Iteration throws `HTTPClientError`
/// when the connection fails mid-body and `HTTPClientError.cancelled` when the consuming task is cancelled.
/// The sequence is single-pass: iterators made from one body share its bytes.
public struct HTTPResponseBody: AsyncSequence, Sendable {
    public typealias Element = [UInt8]

    /// The request's URL (redacted), for errors raised while consuming.
    public let url: URL
    let lifetime: BodyLifetime

    package init(url: URL, channel: ResponseChannel) {
        self.url = url
        self.lifetime = BodyLifetime(channel: channel)
    }

    /// Aborts the transfer; later iteration throws `HTTPClientError.cancelled`.
    public func cancel() { lifetime.channel.cancel() }

    /// Gives back a chunk this body handed out, once the caller holds no other reference to it: the transfer's
    /// next bytes are written into its storage instead of into fresh memory, which the kernel would have to fault
    /// in and zero page by page. Optional; a chunk still shared elsewhere is simply not reused.
    public func recycle(_ chunk: consuming [UInt8]) { lifetime.channel.recycle(chunk) }

    public func makeAsyncIterator() -> Iterator { Iterator(lifetime: lifetime) }

    public struct Iterator: AsyncIteratorProtocol {
        let lifetime: BodyLifetime

        public mutating func next() async throws -> [UInt8]? {
            try await next(isolation: nil)
        }

        /// Runs on the caller's actor, so a consumer on an actor does not hop executors for every chunk.
        public mutating func next(isolation actor: isolated (any Actor)?) async throws(any Error) -> [UInt8]? {
            let channel = lifetime.channel
            return try await withTaskCancellationHandler {
                try await channel.next(isolation: actor)
            } onCancel: {
                channel.cancel()
            }
        }
    }
}

/// Aborts the transfer once neither the body nor any iterator of it is reachable: a consumer that walks
/// away must not leave the transport blocked on a full buffer forever.
final class BodyLifetime: Sendable {
    let channel: ResponseChannel
    init(channel: ResponseChannel) { self.channel = channel }
    deinit { channel.cancel() }
}
