// SPDX-License-Identifier: Apache-2.0
import XTypes

/// One property to write on the requestor's window.
public struct PropertyWrite: Equatable, Sendable {
    public var property: Atom
    public var value: PropertyValue
    public init(property: Atom, value: PropertyValue) {
        self.property = property
        self.value = value
    }
}

/// What the owner does to answer one SelectionRequest: write these properties on the requestor's window,
/// register these INCR transfers, then send one SelectionNotify naming `notifyProperty`
/// (`.none` refuses the request).
public struct ReplyPlan: Equatable, Sendable {
    public var writes: [PropertyWrite] = []
    public var transfers: [IncrSend] = []
    public var notifyProperty: Atom = .none
    /// Why the request (or one pair of a MULTIPLE) was refused, for the log; never clipboard content.
    public var refusals: [Refusal] = []

    public init() {}

    public var isRefused: Bool { notifyProperty.isNone }
}

/// Why a target was not converted.
public enum Refusal: Equatable, Sendable {
    /// The target is not one the content offers or that the owner knows how to produce.
    case targetNotOffered(Atom)
    /// A MULTIPLE request named no property or its ATOM_PAIR list could not be read.
    case malformedMultiple
    /// MULTIPLE inside MULTIPLE.
    case nestedMultiple
    /// The converted value is format 16 or 32 and larger than one request can carry.
    case tooLargeForOneRequest(Atom)
    /// A side-effect target (DELETE, INSERT_*) that this owner does not perform.
    case sideEffectTarget(Atom)
    /// A MULTIPLE request listing more pairs than the owner accepts.
    case tooManyPairs(Int)
    /// The value's bytes come from a source (a file) that could not be read.
    case unreadableSource(Atom)
}
