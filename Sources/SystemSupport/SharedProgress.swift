// SPDX-License-Identifier: Apache-2.0
import Glibc

/// A count that one thread raises and another waits on: a producer (run on a thread of its own by `start`)
/// hands work over piece by piece, as the PNG decoder hands rows to the JPEG encoder (ImageCodecs).
///
/// Contract:
/// - `advance(to:)` raises the count (never lowers it) and wakes the waiters; `finish()` says no more will come.
/// - `wait(for:)` blocks until the count reaches the value or the producer finished, and returns the count.
/// - `start` runs the producer on a new thread and finishes when it returns; without a thread it runs it at
///   once, on the caller's thread, so the consumer then finds everything there.
public final class SharedProgress: @unchecked Sendable {
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private let condition = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)
    /// Guarded by `mutex`.
    private var count = 0
    private var finished = false

    public init() {
        pthread_mutex_init(mutex, nil)
        pthread_cond_init(condition, nil)
    }

    deinit {
        pthread_cond_destroy(condition)
        pthread_mutex_destroy(mutex)
        condition.deallocate()
        mutex.deallocate()
    }

    /// Raises the count to `value` and wakes the waiters.
    public func advance(to value: Int) {
        pthread_mutex_lock(mutex)
        count = max(count, value)
        pthread_cond_broadcast(condition)
        pthread_mutex_unlock(mutex)
    }

    /// No more will come: wakes the waiters for good.
    public func finish() {
        pthread_mutex_lock(mutex)
        finished = true
        pthread_cond_broadcast(condition)
        pthread_mutex_unlock(mutex)
    }

    /// Blocks until the count reaches `value` or the producer finished; returns the count.
    @discardableResult
    public func wait(for value: Int) -> Int {
        pthread_mutex_lock(mutex)
        while count < value && !finished { pthread_cond_wait(condition, mutex) }
        let reached = count
        pthread_mutex_unlock(mutex)
        return reached
    }

    /// Blocks until the producer finished.
    public func waitUntilFinished() {
        pthread_mutex_lock(mutex)
        while !finished { pthread_cond_wait(condition, mutex) }
        pthread_mutex_unlock(mutex)
    }

    /// Runs `producer` on a new thread and then `finish()`es; on the caller's thread if none can be started.
    public func start(_ producer: @escaping @Sendable () -> Void) {
        let started = DetachedThread.start { [self] in
            producer()
            finish()
        }
        if !started {
            producer()
            finish()
        }
    }
}
