import Foundation

/// Who hears a stream's events, and from which stream object.
///
/// @unchecked Sendable: read and written only inside the engine's lock. The delegate is called on the
/// event queue or run loop, as Foundation does for its own streams; `RunLoop.add` is thread-safe.
struct EventTargets: @unchecked Sendable {
    weak var delegate: (any StreamDelegate)?
    /// The stream events are reported as coming from.
    weak var owner: BlobInputStream?
    var runLoops: [(loop: RunLoop, mode: RunLoop.Mode)] = []
}

// Delegate events and run-loop scheduling.
extension BlobStreamEngine {
    func setDelegate(_ delegate: (any StreamDelegate)?) {
        let box = EventTargets(delegate: delegate)
        state.withLock { $0.targets.delegate = box.delegate }
    }

    var delegate: (any StreamDelegate)? {
        state.withLock { EventTargets(delegate: $0.targets.delegate) }.delegate
    }

    func setOwner(_ owner: BlobInputStream) {
        let box = EventTargets(owner: owner)
        state.withLock { $0.targets.owner = box.owner }
    }

    func schedule(in runLoop: RunLoop, forMode mode: RunLoop.Mode) {
        let box = EventTargets(runLoops: [(runLoop, mode)])
        state.withLock { s in
            if !s.targets.runLoops.contains(where: { $0.loop === runLoop && $0.mode == mode }) {
                s.targets.runLoops += box.runLoops
            }
        }
        deliverEvents()
    }

    func remove(from runLoop: RunLoop, forMode mode: RunLoop.Mode) {
        let box = EventTargets(runLoops: [(runLoop, mode)])
        state.withLock { s in s.targets.runLoops.removeAll { $0.loop === box.runLoops[0].loop && $0.mode == mode } }
    }

    /// Queues an event; one pending `hasBytesAvailable` stands for any number.
    func post(_ s: inout State, _ event: Stream.Event) {
        if event == .hasBytesAvailable, s.events.contains(.hasBytesAvailable) { return }
        s.events.append(event)
    }

    /// Hands queued events to the delivery target: the creation-time queue, else each scheduled run loop.
    /// Events stay queued while there is no target yet, so scheduling after `open()` loses none.
    func deliverEvents() {
        state.withLock { s in
            guard !s.events.isEmpty, !s.delivering else { return }
            if let eventQueue {
                eventQueue.async { [self] in deliverPending() }
            } else {
                for (loop, mode) in s.targets.runLoops {
                    let timer = Timer(timeInterval: 0, repeats: false) { [self] _ in deliverPending() }
                    loop.add(timer, forMode: mode)
                }
            }
        }
    }

    /// Delivers queued events in order, one deliverer at a time, so the delegate sees them as they happened.
    private func deliverPending() {
        let claimed = state.withLock { s -> Bool in
            guard !s.delivering else { return false }
            s.delivering = true
            return true
        }
        guard claimed else { return }
        while true {
            let next = state.withLock { s -> (Stream.Event, EventTargets)? in
                while let event = s.events.first {
                    s.events.removeFirst()
                    // Stale by now (the delegate already read what was there): skip it.
                    if event == .hasBytesAvailable, !(s.status == .open && s.position < s.length) { continue }
                    return (event, EventTargets(delegate: s.targets.delegate, owner: s.targets.owner))
                }
                s.delivering = false
                return nil
            }
            guard let (event, targets) = next else { return }
            if let owner = targets.owner, let delegate = targets.delegate {
                #if canImport(ObjectiveC)
                delegate.stream?(owner, handle: event)
                #else
                delegate.stream(owner, handle: event)
                #endif
            }
        }
    }
}
