#if os(Linux)
import Glibc

extension sigaction {
    /// The plain handler, which Glibc keeps in a union of its own.
    mutating func setHandler(_ handler: @escaping @convention(c) (Int32) -> Void) {
        __sigaction_handler.sa_handler = handler
    }
}
#endif
