// SPDX-License-Identifier: Apache-2.0
/// Splits argv into options and operands: `-x`, `-x VALUE`, `-xVALUE`, `--long`, `--long VALUE`,
/// `--long=VALUE`, grouped short flags (`-pn`), and `--` ending the options.
struct ArgumentScanner {
    struct Option {
        var short: Character?
        var long: String
        /// Extra spellings, matched whole (for xclip's `-selection` and macOS's `-pboard`).
        var aliases: [String] = []
        var takesValue = false
    }

    enum Token: Equatable {
        case option(String, value: String?)
        case operand(String)
    }

    let options: [Option]
    let command: String

    func scan(_ arguments: [String]) throws(UsageError) -> [Token] {
        var tokens: [Token] = []
        var index = 0
        var onlyOperands = false
        func value(for option: Option, inline: String?) throws(UsageError) -> String? {
            guard option.takesValue else {
                if inline != nil { throw UsageError("option --\(option.long) takes no value", command: command) }
                return nil
            }
            if let inline { return inline }
            index += 1
            guard index < arguments.count else {
                throw UsageError("option --\(option.long) needs a value", command: command)
            }
            return arguments[index]
        }
        while index < arguments.count {
            let argument = arguments[index]
            if onlyOperands || argument == "-" || !argument.hasPrefix("-") {
                tokens.append(.operand(argument))
            } else if argument == "--" {
                onlyOperands = true
            } else if let option = options.first(where: { $0.aliases.contains(argument) }) {
                tokens.append(.option(option.long, value: try value(for: option, inline: nil)))
            } else if argument.hasPrefix("--") {
                let body = argument.dropFirst(2)
                let name = body.split(separator: "=", maxSplits: 1).first.map(String.init) ?? ""
                let inline = body.contains("=") ? String(body[body.index(after: body.firstIndex(of: "=")!)...]) : nil
                guard let option = options.first(where: { $0.long == name }) else {
                    throw UsageError("unknown option --\(name)", command: command)
                }
                tokens.append(.option(option.long, value: try value(for: option, inline: inline)))
            } else {
                var rest = argument.dropFirst()
                while let letter = rest.first {
                    rest = rest.dropFirst()
                    guard let option = options.first(where: { $0.short == letter }) else {
                        throw UsageError("unknown option -\(letter)", command: command)
                    }
                    if option.takesValue {
                        tokens.append(.option(option.long, value: try value(for: option, inline: rest.isEmpty ? nil : String(rest))))
                        break
                    }
                    tokens.append(.option(option.long, value: nil))
                }
            }
            index += 1
        }
        return tokens
    }
}
