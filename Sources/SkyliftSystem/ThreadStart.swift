/// What a new thread runs, handed to `pthread_create` through its context pointer (retained until the thread
/// takes it).
final class ThreadStart: Sendable {
    let name: String
    let body: @Sendable () -> Void

    init(name: String, body: @escaping @Sendable () -> Void) {
        self.name = name
        self.body = body
    }
}
