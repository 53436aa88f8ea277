// SPDX-License-Identifier: Apache-2.0
// What the libFuzzer harnesses share: the input as a stream of choices, invariants, and the entry point
// that is libFuzzer's driver when built with -DFUZZING and -sanitize=fuzzer, and otherwise replays the files
// named on the command line (crash reproducers, corpus checks) or writes a seed corpus. See docs/fuzzing.md.
#if canImport(Glibc)
import Glibc
#endif

/// The fuzz input as a stream of choices. Past the end every read is 0, so short inputs are still whole cases.
public struct FuzzInput {
    public let bytes: [UInt8]
    public var index = 0
    public init(_ bytes: [UInt8]) { self.bytes = bytes }

    public var isAtEnd: Bool { index >= bytes.count }
    /// What has not been read yet.
    public var rest: ArraySlice<UInt8> { bytes[min(index, bytes.count)...] }
    public mutating func u8() -> UInt8 {
        guard index < bytes.count else { return 0 }
        defer { index += 1 }
        return bytes[index]
    }
    public mutating func u16() -> UInt16 { UInt16(u8()) | UInt16(u8()) << 8 }
    public mutating func u32() -> UInt32 { UInt32(u16()) | UInt32(u16()) << 16 }
    public mutating func u64() -> UInt64 { UInt64(u32()) | UInt64(u32()) << 32 }
    public mutating func bool() -> Bool { u8() & 1 == 1 }
    /// Up to `count` bytes taken from the input.
    public mutating func take(_ count: Int) -> [UInt8] {
        let end = min(bytes.count, index + max(count, 0))
        defer { index = max(index, end) }
        return index < end ? Array(bytes[index..<end]) : []
    }
}

/// Stops the run with a message libFuzzer reports (and saves the input) when a contract is broken.
public func invariant(_ condition: @autoclosure () -> Bool, _ message: @autoclosure () -> String) {
    if !condition() { fatalError("invariant: " + message()) }
}

/// The harness's one-input function, set by `FuzzMain.run`.
nonisolated(unsafe) private var currentTarget: ([UInt8]) -> Void = { _ in }

/// libFuzzer calls this symbol (its own `main`, when linked, looks for it too).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzTestOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    currentTarget(data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? [])
    return 0
}

#if FUZZING
/// libFuzzer's driver (FuzzerDriver.cpp); SwiftPM makes a harness's top-level code `main`, so it is called here.
@_silgen_name("LLVMFuzzerRunDriver")
func LLVMFuzzerRunDriver(
    _ argc: UnsafeMutablePointer<CInt>,
    _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>>,
    _ callback: @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt
) -> CInt
#endif

public enum FuzzMain {
    /// Runs `target` on every input: under libFuzzer (built with -DFUZZING), or on each file named on the
    /// command line (printing `ok FILE`). With `writeSeeds`, `--write-seeds DIR` writes the seed corpus.
    public static func run(_ target: @escaping ([UInt8]) -> Void,
                           writeSeeds: ((String) throws -> Void)? = nil) -> Never {
        currentTarget = target
        #if FUZZING
        var argc = CommandLine.argc
        var argv = CommandLine.unsafeArgv
        exit(LLVMFuzzerRunDriver(&argc, &argv, { data, size in fuzzTestOneInput(data, size) }))
        #else
        let arguments = Array(CommandLine.arguments.dropFirst())
        if let writeSeeds, arguments.first == "--write-seeds", arguments.count == 2 {
            do { try writeSeeds(arguments[1]) } catch {
                print("cannot write the seeds: \(error)")
                exit(1)
            }
            exit(0)
        }
        for path in arguments {
            guard let bytes = readFile(path) else {
                print("cannot read \(path)")
                exit(1)
            }
            target(bytes)
            print("ok \(path)")
        }
        exit(0)
        #endif
    }

    private static func readFile(_ path: String) -> [UInt8]? {
        guard let file = fopen(path, "rb") else { return nil }
        defer { fclose(file) }
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let n = fread(&buffer, 1, buffer.count, file)
            if n > 0 { bytes += buffer[..<n] }
            if n < buffer.count { return ferror(file) == 0 ? bytes : nil }
        }
    }
}
