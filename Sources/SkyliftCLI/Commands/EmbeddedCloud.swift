import Foundation
import SkyliftCore
import SkyliftSystem
import SkyliftStorageServer

/// The embedded cloud started inside a command that was given no destination (`skylift watch DIR`):
/// the same store, token and address `skylift serve` uses by default.
struct EmbeddedCloud {
    let server: StorageServer
    let store: URL
    let url: URL
    let token: String

    /// Starts on the default address, or on a free port when that one is taken (a `serve` already running).
    static func start(_ environment: [String: String]) throws -> EmbeddedCloud {
        let store = EmbeddedCloudDefaults(environment: environment).store
        // 0700: the store holds the user's uploads and its token file sits beside it.
        do { try PrivateFiles.createDirectory(store.path) } catch { throw CommandFailure("cannot create the store: \(error)") }
        let (token, _) = try EmbeddedCloudDefaults.loadOrCreateToken(forStore: store)
        let configuration = StorageConfiguration(root: store, token: token)
        let listen = EmbeddedCloudDefaults.listen
        var lastError: (any Error)?
        for port in [listen.port, 0] {
            do {
                let server = try StorageServer(configuration: configuration, host: listen.host, port: port)
                try server.start()
                guard let url = URL(string: server.baseURL + "/dav/") else { break }
                return EmbeddedCloud(server: server, store: store, url: url, token: token)
            } catch {
                lastError = error
            }
        }
        throw CommandFailure("cannot start the embedded cloud on \(listen): \(lastError.map { "\($0)" } ?? "bad address")")
    }
}
