#if canImport(Darwin)
import Darwin

extension sigaction {
    /// The plain handler, which Darwin keeps in a union of its own.
    mutating func setHandler(_ handler: @escaping @convention(c) (Int32) -> Void) {
        __sigaction_u.__sa_handler = handler
    }
}
#endif
