import Foundation
import HTTPServer

/// WebDAV class 1 and 2 (RFC 4918) over the store: PUT, DELETE, MKCOL here; properties, copy/move and
/// locks in their own files.
final class WebDAV: Sendable {
    let store: Store
    let maxUploadSize: Int64

    init(store: Store, maxUploadSize: Int64) {
        self.store = store
        self.maxUploadSize = maxUploadSize
    }

    func handle(_ request: HTTPRequest, target: StoragePath) -> HTTPHeadDecision {
        switch request.method {
        case "PUT": return put(request, target: target)
        case "DELETE": return .respond(delete(request, target: target))
        case "MKCOL": return mkcol(request, target: target)
        default: return .respond(.text(405, "method \(request.method) not allowed on \(target.relative)"))
        }
    }

    private func put(_ request: HTTPRequest, target: StoragePath) -> HTTPHeadDecision {
        guard let parent = target.parent else { return .respond(.text(405, "cannot PUT the root collection")) }
        let existing = FileSystem.stat(target.filePath)
        if existing?.isDirectory == true { return .respond(.text(405, "a collection exists at \(target.relative)")) }
        guard FileSystem.stat(parent.filePath)?.isDirectory == true else {
            return .respond(.text(409, "parent collection missing: \(parent.relative)"))
        }
        if let status = Preconditions.evaluate(request, stat: existing) {
            return .respond(.text(status, "precondition failed for \(target.relative)"))
        }
        if let length = request.contentLength, length > maxUploadSize {
            return .respond(.text(413, "body larger than \(maxUploadSize) bytes"))
        }
        do {
            return .receive(try PutReceiver(target: target, maxSize: maxUploadSize, onStored: { _ in }))
        } catch {
            return .respond(PutReceiver.response(for: error, path: target))
        }
    }

    private func delete(_ request: HTTPRequest, target: StoragePath) -> HTTPResponse {
        if target.isRoot { return .text(403, "cannot delete the root collection") }
        let existing = FileSystem.stat(target.filePath)
        guard existing != nil else { return .text(404, "not found: \(target.relative)") }
        if let status = Preconditions.evaluate(request, stat: existing) {
            return .text(status, "precondition failed for \(target.relative)")
        }
        do { try FileSystem.removeTree(target.filePath) } catch {
            return .text(500, "cannot delete \(target.relative)")
        }
        return HTTPResponse(status: 204)
    }

    private func mkcol(_ request: HTTPRequest, target: StoragePath) -> HTTPHeadDecision {
        // RFC 4918 §9.3: a body we do not understand is 415; only an empty one is accepted.
        if let length = request.contentLength, length > 0 { return .respond(.text(415, "MKCOL with a body is not supported")) }
        if request.headers["Transfer-Encoding"] != nil { return .respond(.text(415, "MKCOL with a body is not supported")) }
        if FileSystem.stat(target.filePath) != nil { return .respond(.text(405, "already exists: \(target.relative)")) }
        guard let parent = target.parent, FileSystem.stat(parent.filePath)?.isDirectory == true else {
            return .respond(.text(409, "parent collection missing for \(target.relative)"))
        }
        do { try FileSystem.makeDirectory(target.filePath) } catch let e as FileSystemError {
            return .respond(e.isNoSpace ? .text(507, "insufficient storage") : .text(500, "cannot create \(target.relative)"))
        } catch { return .respond(.text(500, "cannot create \(target.relative)")) }
        return .respond(.text(201, "created"))
    }
}
