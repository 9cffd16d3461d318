import Foundation

/// One entry of a batch: where it goes and how to open its source (opened only when its turn comes).
public struct UploadItem: Sendable {
    /// What to call the item before its source is open (the path or URL as given).
    public var label: String
    /// Relative path in the remote's folder.
    public var name: String
    public var open: @Sendable () async throws -> any UploadSource

    public init(label: String, name: String, open: @escaping @Sendable () async throws -> any UploadSource) {
        self.label = label
        self.name = name
        self.open = open
    }
}

extension Uploader {
    /// Uploads `items` with at most `jobs` running at once, reporting every event with the item's index.
    /// A failing item does not stop the others. Memory stays bounded: each running upload streams, and
    /// sources are opened only when their turn comes.
    public func uploadAll(_ items: [UploadItem], jobs: Int,
                          onEvent: @escaping @Sendable (Int, UploadEvent) -> Void) async -> [Result<UploadResult, UploadError>] {
        var results = [Result<UploadResult, UploadError>?](repeating: nil, count: items.count)
        await withTaskGroup(of: (Int, Result<UploadResult, UploadError>).self) { group in
            var next = 0
            func launch() {
                guard next < items.count else { return }
                let index = next, item = items[index]
                next += 1
                group.addTask {
                    do {
                        let source = try await item.open()
                        let result = try await self.run(source, as: item.name) { onEvent(index, $0) }
                        return (index, .success(result))
                    } catch {
                        let e = (error as? UploadError) ?? (error is CancellationError ? .cancelled(source: item.label)
                                                             : .sourceUnreadable(path: item.label, reason: String(describing: error)))
                        onEvent(index, .failed(e))
                        return (index, .failure(e))
                    }
                }
            }
            for _ in 0..<max(1, jobs) { launch() }
            for await (index, result) in group {
                results[index] = result
                launch()
            }
        }
        return results.enumerated().map { $0.element ?? .failure(.cancelled(source: items[$0.offset].label)) }
    }
}
