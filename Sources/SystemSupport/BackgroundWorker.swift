// SPDX-License-Identifier: Apache-2.0
import Glibc

/// Runs jobs on threads of its own, started in submission order, at most `threads` at once, and hands
/// their results back to the thread that polls `readyDescriptor` — the daemon's conversions, so a large
/// document converting never holds the event loop, nor (with two threads) a small conversion behind it.
///
/// Contract:
/// - `submit` returns at once with the job's id; the job runs later on a worker thread.
/// - Each finished job's result is queued and one byte is written to a pipe: poll `readyDescriptor` for
///   readability, then `takeFinished()` empties the pipe and returns the results, oldest first.
/// - `cancel(group:)` drops the group's jobs that have not started; a job already running finishes and its
///   result is delivered (the owner discards what it no longer wants, by id).
/// - Without a thread (it could not be started) jobs run inside `submit`; results are delivered the same way.
///
/// The threads live as long as the process; the queues are shared under one mutex.
public final class BackgroundWorker<Output: Sendable>: @unchecked Sendable {
    public typealias JobID = UInt64

    private struct Job {
        var id: JobID
        var group: UInt64
        var work: @Sendable () -> Output
    }

    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private let condition = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)
    /// Guarded by `mutex`.
    private var queue: [Job] = []
    private var finished: [(JobID, Output)] = []
    private var nextID: JobID = 1
    private var running = 0
    private var started = false
    private var threaded = true
    private let threads: Int
    private let wakeRead: FileDescriptor
    private let wakeWrite: FileDescriptor

    /// The descriptor to poll for readability: readable while results wait in `takeFinished()`.
    public var readyDescriptor: FileDescriptor { wakeRead }

    /// - Parameter threads: how many jobs may run at once (at least one).
    public init(threads: Int = 1) throws {
        self.threads = max(1, threads)
        (wakeRead, wakeWrite) = try FileDescriptor.pipe(nonBlocking: true)
        pthread_mutex_init(mutex, nil)
        pthread_cond_init(condition, nil)
    }

    /// Queues `work` in `group` and returns its id.
    @discardableResult
    public func submit(group: UInt64 = 0, _ work: @escaping @Sendable () -> Output) -> JobID {
        pthread_mutex_lock(mutex)
        let id = nextID
        nextID += 1
        if !started {
            started = true
            for _ in 0..<threads where threaded { threaded = DetachedThread.start { [self] in run() } }
        }
        guard threaded else {
            pthread_mutex_unlock(mutex)
            deliver(id, work())
            return id
        }
        queue.append(Job(id: id, group: group, work: work))
        pthread_cond_broadcast(condition)
        pthread_mutex_unlock(mutex)
        return id
    }

    /// Drops the jobs of `group` that have not started; returns their ids.
    @discardableResult
    public func cancel(group: UInt64) -> [JobID] {
        locked {
            let dropped = queue.filter { $0.group == group }.map(\.id)
            queue.removeAll { $0.group == group }
            return dropped
        }
    }

    /// Jobs queued, running, or finished with their results not yet taken: a job counts until `takeFinished`
    /// hands its result out, so 0 means nothing more will arrive. (A finished job's wake-up byte is written just
    /// after it leaves `running`; counting only queued and running jobs, a caller could see 0 and stop waiting
    /// with a result about to be announced.)
    public var pendingCount: Int { locked { queue.count + running + finished.count } }

    /// The results of the jobs finished since the last call, oldest first.
    public func takeFinished() -> [(id: JobID, output: Output)] {
        var buffer = [UInt8](repeating: 0, count: 256)
        while let n = try? buffer.withUnsafeMutableBytes({ try wakeRead.read(into: $0) }), n > 0 {}
        return locked {
            defer { finished = [] }
            return finished.map { (id: $0.0, output: $0.1) }
        }
    }

    private func deliver(_ id: JobID, _ output: Output) {
        locked { finished.append((id, output)) }
        _ = try? wakeWrite.write([1])
    }

    private func locked<T>(_ body: () -> T) -> T {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return body()
    }

    private func run() {
        while true {
            pthread_mutex_lock(mutex)
            while queue.isEmpty { pthread_cond_wait(condition, mutex) }
            let job = queue.removeFirst()
            running += 1
            pthread_mutex_unlock(mutex)
            let output = job.work()
            locked {
                running -= 1
                finished.append((job.id, output))
            }
            _ = try? wakeWrite.write([1])
        }
    }
}

/// A detached thread running `body` for the life of the process.
public enum DetachedThread {
    /// Starts the thread; false if the system refused one.
    public static func start(_ body: @escaping @Sendable () -> Void) -> Bool {
        final class Box { let body: @Sendable () -> Void; init(_ body: @escaping @Sendable () -> Void) { self.body = body } }
        var thread = pthread_t()
        let context = Unmanaged.passRetained(Box(body)).toOpaque()
        let status = pthread_create(&thread, nil, { context in
            let box = Unmanaged<Box>.fromOpaque(context!).takeRetainedValue()
            box.body()
            return nil
        }, context)
        guard status == 0 else {
            Unmanaged<Box>.fromOpaque(context).release()
            return false
        }
        pthread_detach(thread)
        return true
    }
}
