import Foundation

// Buffer access for `getBuffer`, seeking and stream properties.
extension BlobStreamEngine {
    /// Consumes the rest of the current block; returns where it lies, or nil when nothing is buffered.
    func takeBuffered() -> (index: Int, from: Int, count: Int)? {
        let taken = state.withLock { s -> (index: Int, from: Int, count: Int)? in
            guard s.status == .open, let current = s.current, current.covers(s.position) else { return nil }
            let n = Int(current.end - s.position)
            let from = Int(s.position - current.start)
            s.position += Int64(n)
            if s.position >= s.length { reachEnd(&s) } else { afterConsuming(&s) }
            return (current.index, from, n)
        }
        deliverEvents()
        return taken
    }

    func pointer(index: Int, from: Int) -> UnsafeMutablePointer<UInt8> {
        (storage[index] + from).assumingMemoryBound(to: UInt8.self)
    }

    /// Moves the next read to `offset`. Before `open()` any offset is accepted (checked against the length
    /// when the source opens); once open it must lie within the content.
    func seek(to offset: Int64) -> Bool {
        guard offset >= 0 else { return false }
        let ok = state.withLock { s -> Bool in
            switch s.status {
            case .notOpen, .opening:
                s.position = offset
                return true
            case .open, .atEnd:
                guard offset <= s.length else { return false }
                s.position = offset
                s.status = .open
                if offset >= s.length { reachEnd(&s) } else {
                    scheduleFill(&s)
                    postAvailability(&s)
                }
                return true
            default:
                return false
            }
        }
        deliverEvents()
        return ok
    }

    var offset: Int64 { state.withLock { $0.position } }

    func property(forKey key: Stream.PropertyKey) -> NSNumber? {
        key == .fileCurrentOffsetKey ? NSNumber(value: offset) : nil
    }

    func setProperty(_ property: Any?, forKey key: Stream.PropertyKey) -> Bool {
        guard key == .fileCurrentOffsetKey, let number = property as? NSNumber else { return false }
        return seek(to: number.int64Value)
    }
}
