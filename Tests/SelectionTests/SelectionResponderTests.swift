// SPDX-License-Identifier: Apache-2.0
import Selection
import XTypes
import XCTest

final class SelectionResponderTests: XCTestCase {
    let atoms = standardAtoms
    let acquired = Timestamp(1_000)

    func responder(incrThreshold: Int = 1_000, chunkSize: Int = 100, maximumPairs: Int = 4096) -> SelectionResponder {
        SelectionResponder(atoms: atoms, incrThreshold: incrThreshold, chunkSize: chunkSize,
                           maximumMultiplePairs: maximumPairs)
    }

    func request(_ target: Atom, property: Atom = Atom(200), time: Timestamp = Timestamp(2_000)) -> SelectionRequest {
        SelectionRequest(requestor: requestor, selection: atoms.clipboard, target: target, property: property, time: time)
    }

    /// A converter that serves "hello" for UTF8_STRING and <b>hi</b> for text/html, and records each call.
    final class Converter {
        var calls: [Atom] = []
        let values: [Atom: PropertyValue]
        init(_ values: [Atom: PropertyValue]) { self.values = values }
        func convert(_ target: Atom) -> PropertyValue? {
            calls.append(target)
            return values[target]
        }
    }

    func textConverter() -> Converter {
        Converter([
            atoms.utf8String: PropertyValue(type: atoms.utf8String, bytes: Array("hello".utf8)),
            htmlAtom: PropertyValue(type: htmlAtom, bytes: Array("<b>hi</b>".utf8)),
        ])
    }

    // MARK: TARGETS and TIMESTAMP

    func testTargetsListsProtocolTargetsFirstWithoutDuplicates() {
        let converter = textConverter()
        let plan = responder().plan(for: request(atoms.targets), acquiredAt: acquired,
                                    offered: [atoms.utf8String, htmlAtom, atoms.utf8String, atoms.targets, .none],
                                    multiplePairs: nil, convert: converter.convert)
        XCTAssertEqual(plan.notifyProperty, Atom(200))
        XCTAssertEqual(plan.writes, [PropertyWrite(
            property: Atom(200),
            value: PropertyValue(type: atoms.atom, longs: [atoms.targets, atoms.timestamp, atoms.multiple,
                                                           atoms.utf8String, htmlAtom].map(\.rawValue)))])
        XCTAssertEqual(plan.writes.first?.value.format, 32)
        XCTAssertTrue(plan.transfers.isEmpty)
        XCTAssertTrue(converter.calls.isEmpty, "TARGETS is answered without converting content")
    }

    func testTimestampIsTheAcquisitionTimeAsOneInteger() {
        let plan = responder().plan(for: request(atoms.timestamp, time: Timestamp(200_000)), acquiredAt: Timestamp(123_456),
                                    offered: [atoms.utf8String], multiplePairs: nil) { _ in nil }
        XCTAssertEqual(plan.notifyProperty, Atom(200))
        XCTAssertEqual(plan.writes, [PropertyWrite(property: Atom(200),
                                                   value: PropertyValue(type: atoms.integer, longs: [123_456]))])
        XCTAssertEqual(plan.writes.first?.value.format, 32)
    }

    // MARK: Times

    func testARequestTimedBeforeTheAcquisitionIsServed() {
        // Emacs asks from a timer or `emacsclient --eval` with its last key press's time, older than the copy.
        for time in [Timestamp(999), Timestamp(1), Timestamp(0xFFFF_FF00)] {
            let converter = textConverter()
            let plan = responder().plan(for: request(atoms.utf8String, time: time), acquiredAt: acquired,
                                        offered: [atoms.utf8String], multiplePairs: nil, convert: converter.convert)
            XCTAssertEqual(plan.notifyProperty, Atom(200), "\(time)")
            XCTAssertEqual(plan.writes, [PropertyWrite(property: Atom(200),
                                                       value: PropertyValue(type: atoms.utf8String, bytes: Array("hello".utf8)))])
            XCTAssertEqual(plan.refusals, [])
            XCTAssertEqual(converter.calls, [atoms.utf8String])
        }
    }

    func testRequestAtOrAfterAcquisitionIsServed() {
        for time in [Timestamp(1_000), Timestamp(1_001), Timestamp(UInt32(Int32.max))] {
            let plan = responder().plan(for: request(atoms.utf8String, time: time), acquiredAt: acquired,
                                        offered: [atoms.utf8String], multiplePairs: nil,
                                        convert: textConverter().convert)
            XCTAssertFalse(plan.isRefused, "\(time)")
        }
    }

    func testRequestsEitherSideOfTheServerTimeWrapAreServed() {
        // Acquired just before the 32-bit wrap and asked just after it, and the other way round.
        for (time, acquiredAt) in [(Timestamp(0x10), Timestamp(0xFFFF_FF00)), (Timestamp(0xFFFF_FF00), Timestamp(0x10))] {
            let plan = responder().plan(for: request(atoms.utf8String, time: time), acquiredAt: acquiredAt,
                                        offered: [atoms.utf8String], multiplePairs: nil, convert: textConverter().convert)
            XCTAssertEqual(plan.notifyProperty, Atom(200), "\(time) after acquiring at \(acquiredAt)")
            XCTAssertEqual(plan.refusals, [])
        }
    }

    func testTimestampAnswersTheAcquisitionTimeToARequestTimedBeforeIt() {
        let plan = responder().plan(for: request(atoms.timestamp, time: Timestamp(10)), acquiredAt: acquired,
                                    offered: [atoms.utf8String], multiplePairs: nil) { _ in nil }
        XCTAssertEqual(plan.writes, [PropertyWrite(property: Atom(200), value: PropertyValue(type: atoms.integer, longs: [1_000]))])
    }

    func testCurrentTimeIsServedWhateverTheAcquisitionTime() {
        for acquiredAt in [Timestamp(1), Timestamp(0x7FFF_FFFF), Timestamp(0xFFFF_FFFF)] {
            let plan = responder().plan(for: request(atoms.utf8String, time: .currentTime), acquiredAt: acquiredAt,
                                        offered: [atoms.utf8String], multiplePairs: nil,
                                        convert: textConverter().convert)
            XCTAssertEqual(plan.notifyProperty, Atom(200), "\(acquiredAt)")
        }
    }

    func testTimestampOrderingAcrossTheWrap() {
        XCTAssertTrue(Timestamp(1).isEarlier(than: Timestamp(2)))
        XCTAssertFalse(Timestamp(2).isEarlier(than: Timestamp(1)))
        XCTAssertFalse(Timestamp(5).isEarlier(than: Timestamp(5)))
        XCTAssertTrue(Timestamp(0xFFFF_FFF0).isEarlier(than: Timestamp(0x10)))
        XCTAssertFalse(Timestamp(0x10).isEarlier(than: Timestamp(0xFFFF_FFF0)))
    }

    // MARK: Content targets

    func testContentTargetIsWrittenToTheRequestedProperty() {
        let converter = textConverter()
        let plan = responder().plan(for: request(htmlAtom, property: Atom(300)), acquiredAt: acquired,
                                    offered: [atoms.utf8String, htmlAtom], multiplePairs: nil, convert: converter.convert)
        XCTAssertEqual(plan.notifyProperty, Atom(300))
        XCTAssertEqual(plan.writes, [PropertyWrite(property: Atom(300),
                                                   value: PropertyValue(type: htmlAtom, bytes: Array("<b>hi</b>".utf8)))])
        XCTAssertEqual(converter.calls, [htmlAtom], "convert is called once, for the requested target")
    }

    func testPropertyNoneUsesTheTargetAsProperty() {
        let plan = responder().plan(for: request(atoms.utf8String, property: .none), acquiredAt: acquired,
                                    offered: [atoms.utf8String], multiplePairs: nil, convert: textConverter().convert)
        XCTAssertEqual(plan.notifyProperty, atoms.utf8String)
        XCTAssertEqual(plan.writes.map(\.property), [atoms.utf8String])
    }

    func testTargetNotOfferedIsRefusedWithoutConverting() {
        let converter = textConverter()
        let plan = responder().plan(for: request(pngAtom), acquiredAt: acquired,
                                    offered: [atoms.utf8String], multiplePairs: nil, convert: converter.convert)
        XCTAssertTrue(plan.isRefused)
        XCTAssertEqual(plan.refusals, [.targetNotOffered(pngAtom)])
        XCTAssertTrue(plan.writes.isEmpty)
        XCTAssertTrue(converter.calls.isEmpty)
    }

    func testOfferedTargetThatFailsToConvertIsRefused() {
        let converter = textConverter()
        let plan = responder().plan(for: request(rtfAtom), acquiredAt: acquired,
                                    offered: [rtfAtom], multiplePairs: nil, convert: converter.convert)
        XCTAssertTrue(plan.isRefused)
        XCTAssertEqual(plan.refusals, [.targetNotOffered(rtfAtom)])
        XCTAssertEqual(converter.calls, [rtfAtom])
    }

    func testSideEffectTargetsAreRefusedEvenWhenOffered() {
        for target in [atoms.delete, atoms.insertSelection, atoms.insertProperty] {
            let converter = Converter([target: PropertyValue(type: atoms.null, bytes: [])])
            let plan = responder().plan(for: request(target), acquiredAt: acquired,
                                        offered: [atoms.utf8String, target], multiplePairs: nil,
                                        convert: converter.convert)
            XCTAssertTrue(plan.isRefused, "\(target)")
            XCTAssertEqual(plan.refusals, [.sideEffectTarget(target)])
            XCTAssertTrue(plan.writes.isEmpty)
            XCTAssertTrue(converter.calls.isEmpty, "a side effect is never performed")
        }
    }

    // MARK: INCR

    func testValueOverThresholdGoesByIncr() {
        let data = (0..<25).map { UInt8($0) }
        let converter = Converter([htmlAtom: PropertyValue(type: htmlAtom, bytes: data)])
        let plan = responder(incrThreshold: 10, chunkSize: 4).plan(
            for: request(htmlAtom, property: Atom(300)), acquiredAt: acquired,
            offered: [htmlAtom], multiplePairs: nil, convert: converter.convert)
        XCTAssertEqual(plan.notifyProperty, Atom(300))
        XCTAssertEqual(plan.writes, [PropertyWrite(property: Atom(300),
                                                   value: PropertyValue(type: atoms.incr, longs: [25]))])
        XCTAssertEqual(plan.writes.first?.value.format, 32)
        XCTAssertEqual(plan.transfers.count, 1)
        let transfer = plan.transfers[0]
        XCTAssertEqual(transfer.key, TransferKey(requestor: requestor, property: Atom(300)))
        XCTAssertEqual(transfer.type, htmlAtom, "chunks carry the real type, not INCR")
        XCTAssertEqual(transfer.sentBytes, data)
        XCTAssertEqual(transfer.chunkSize, 4)
    }

    func testValueAtThresholdIsWrittenDirectly() {
        let data = [UInt8](repeating: 0x61, count: 10)
        let plan = responder(incrThreshold: 10, chunkSize: 4).plan(
            for: request(htmlAtom), acquiredAt: acquired, offered: [htmlAtom], multiplePairs: nil
        ) { _ in PropertyValue(type: htmlAtom, bytes: data) }
        XCTAssertEqual(plan.writes, [PropertyWrite(property: Atom(200), value: PropertyValue(type: htmlAtom, bytes: data))])
        XCTAssertTrue(plan.transfers.isEmpty)
    }

    func testAValueFromASourceIsSentFromItInChunksWhenLarge() throws {
        let data = (0..<25).map { UInt8($0) }
        let source = ArraySource(data)
        let plan = responder(incrThreshold: 10, chunkSize: 4).plan(
            for: request(htmlAtom), acquiredAt: acquired, offered: [htmlAtom], multiplePairs: nil
        ) { _ in PropertyValue(type: htmlAtom, source: source) }
        XCTAssertEqual(plan.writes, [PropertyWrite(property: Atom(200), value: PropertyValue(type: atoms.incr, longs: [25]))])
        guard case .source(let sent) = plan.transfers.first?.payload else { return XCTFail("an INCR transfer from the source") }
        XCTAssertTrue(sent === source, "the transfer reads the source a chunk at a time, it is not copied first")
        XCTAssertEqual(plan.transfers.first?.sentBytes, data)
    }

    func testASmallValueFromASourceIsReadAndWrittenWhole() {
        let data = [UInt8](repeating: 0x62, count: 10)
        let plan = responder(incrThreshold: 10, chunkSize: 4).plan(
            for: request(htmlAtom), acquiredAt: acquired, offered: [htmlAtom], multiplePairs: nil
        ) { _ in PropertyValue(type: htmlAtom, source: ArraySource(data)) }
        XCTAssertEqual(plan.writes, [PropertyWrite(property: Atom(200), value: PropertyValue(type: htmlAtom, bytes: data))])
        XCTAssertTrue(plan.transfers.isEmpty)
    }

    func testASourceThatCannotBeReadIsRefusedNotSentEmpty() {
        let plan = responder(incrThreshold: 10, chunkSize: 4).plan(
            for: request(htmlAtom), acquiredAt: acquired, offered: [htmlAtom], multiplePairs: nil
        ) { _ in PropertyValue(type: htmlAtom, source: ArraySource([1, 2, 3], failing: true)) }
        XCTAssertTrue(plan.isRefused)
        XCTAssertEqual(plan.refusals, [.unreadableSource(htmlAtom)])
        XCTAssertTrue(plan.writes.isEmpty)
    }

    func testOversizeFormat32ValueIsRefused() {
        let plan = responder(incrThreshold: 10, chunkSize: 4).plan(
            for: request(rtfAtom), acquiredAt: acquired, offered: [rtfAtom], multiplePairs: nil
        ) { _ in PropertyValue(type: atoms.atom, longs: [1, 2, 3]) } // 12 bytes
        XCTAssertTrue(plan.isRefused)
        XCTAssertEqual(plan.refusals, [.tooLargeForOneRequest(rtfAtom)])
        XCTAssertTrue(plan.writes.isEmpty)
        XCTAssertTrue(plan.transfers.isEmpty)
    }

    func testSizesKeepChunksAtMostOneMebibyte() {
        for maximum in [16_384, 262_140, 4_194_300, 4_001_024, 4_001_025, 16_777_212, Int(UInt32.max) * 4] {
            let sizes = SelectionResponder.sizes(maximumRequestBytes: maximum)
            XCTAssertLessThanOrEqual(sizes.chunkSize, 1 << 20, "\(maximum)")
            XCTAssertLessThanOrEqual(sizes.chunkSize, maximum - 1024, "room for the request header at \(maximum)")
            XCTAssertGreaterThan(sizes.chunkSize, 0)
            XCTAssertLessThanOrEqual(sizes.incrThreshold, sizes.chunkSize)
        }
        XCTAssertEqual(SelectionResponder.sizes(maximumRequestBytes: 262_140).chunkSize, 262_140 - 1024)
        XCTAssertEqual(SelectionResponder.sizes(maximumRequestBytes: 16_777_212).chunkSize, 1 << 20)
    }

    // MARK: MULTIPLE

    func multiple(_ pairs: [Atom]?, property: Atom = Atom(400), responder: SelectionResponder? = nil,
                  converter: Converter? = nil) -> (ReplyPlan, Converter) {
        let converter = converter ?? textConverter()
        let plan = (responder ?? self.responder()).plan(
            for: request(atoms.multiple, property: property), acquiredAt: acquired,
            offered: [atoms.utf8String, htmlAtom, pngAtom], multiplePairs: pairs, convert: converter.convert)
        return (plan, converter)
    }

    func testMultipleWithEveryPairServedWritesEachAndNoPairList() {
        let (plan, converter) = multiple([atoms.utf8String, Atom(201), htmlAtom, Atom(202), atoms.targets, Atom(203)])
        XCTAssertEqual(plan.notifyProperty, Atom(400))
        XCTAssertEqual(plan.writes.map(\.property), [Atom(201), Atom(202), Atom(203)])
        XCTAssertEqual(plan.writes[0].value, PropertyValue(type: atoms.utf8String, bytes: Array("hello".utf8)))
        XCTAssertEqual(plan.writes[1].value, PropertyValue(type: htmlAtom, bytes: Array("<b>hi</b>".utf8)))
        XCTAssertEqual(plan.writes[2].value.type, atoms.atom)
        XCTAssertEqual(plan.refusals, [])
        XCTAssertEqual(converter.calls, [atoms.utf8String, htmlAtom], "each content target converted once")
    }

    func testMultipleNamingOneTargetTwiceConvertsItOnce() {
        let (plan, converter) = multiple([htmlAtom, Atom(201), htmlAtom, Atom(202)])
        XCTAssertEqual(plan.writes.map(\.property), [Atom(201), Atom(202)])
        XCTAssertEqual(plan.writes[0].value, plan.writes[1].value)
        XCTAssertEqual(converter.calls, [htmlAtom], "converted once per request")
    }

    func testSaveTargetsIsASideEffectOnAContentSelection() {
        let plan = responder().plan(for: request(atoms.saveTargets), acquiredAt: acquired,
                                    offered: [atoms.saveTargets], multiplePairs: nil, convert: { _ in
                                        XCTFail("SAVE_TARGETS is never converted as data"); return nil })
        XCTAssertTrue(plan.isRefused)
        XCTAssertEqual(plan.refusals, [.sideEffectTarget(atoms.saveTargets)])
    }

    func testMultipleWithOneFailingPairWritesItBackAsNone() {
        // png is offered but the converter cannot produce it.
        let (plan, _) = multiple([atoms.utf8String, Atom(201), pngAtom, Atom(202), htmlAtom, Atom(203)])
        XCTAssertEqual(plan.notifyProperty, Atom(400), "one notify naming the MULTIPLE property")
        XCTAssertFalse(plan.isRefused)
        XCTAssertEqual(plan.writes.map(\.property), [Atom(201), Atom(203), Atom(400)])
        XCTAssertEqual(plan.writes.last?.value, PropertyValue(
            type: atoms.atomPair,
            longs: [atoms.utf8String, Atom(201), pngAtom, .none, htmlAtom, Atom(203)].map(\.rawValue)))
        XCTAssertEqual(plan.refusals, [.targetNotOffered(pngAtom)])
    }

    func testMultipleRefusesSideEffectPairsAndKeepsOthers() {
        let (plan, _) = multiple([atoms.delete, Atom(201), atoms.utf8String, Atom(202)])
        XCTAssertEqual(plan.notifyProperty, Atom(400))
        XCTAssertEqual(plan.writes.first?.property, Atom(202))
        XCTAssertEqual(plan.writes.last?.value.atoms, [atoms.delete, .none, atoms.utf8String, Atom(202)])
        XCTAssertEqual(plan.refusals, [.sideEffectTarget(atoms.delete)])
    }

    func testMultipleWithPropertyNoneIsRefused() {
        let (plan, converter) = multiple([atoms.utf8String, Atom(201)], property: .none)
        XCTAssertTrue(plan.isRefused)
        XCTAssertEqual(plan.refusals, [.malformedMultiple])
        XCTAssertTrue(plan.writes.isEmpty)
        XCTAssertTrue(converter.calls.isEmpty)
    }

    func testMultipleWithUnreadableOddOrEmptyPairsIsRefused() {
        for pairs: [Atom]? in [nil, [], [atoms.utf8String], [atoms.utf8String, Atom(201), htmlAtom]] {
            let (plan, converter) = multiple(pairs)
            XCTAssertTrue(plan.isRefused, "\(String(describing: pairs))")
            XCTAssertEqual(plan.refusals, [.malformedMultiple])
            XCTAssertTrue(plan.writes.isEmpty)
            XCTAssertTrue(converter.calls.isEmpty)
        }
    }

    func testNestedMultipleFailsThatPairOnly() {
        let (plan, _) = multiple([atoms.multiple, Atom(201), atoms.utf8String, Atom(202)])
        XCTAssertEqual(plan.notifyProperty, Atom(400))
        XCTAssertEqual(plan.refusals, [.nestedMultiple])
        XCTAssertEqual(plan.writes.map(\.property), [Atom(202), Atom(400)])
        XCTAssertEqual(plan.writes.last?.value.atoms, [atoms.multiple, .none, atoms.utf8String, Atom(202)])
    }

    func testPairWithPropertyNoneFailsThatPairOnly() {
        let (plan, _) = multiple([atoms.utf8String, .none, htmlAtom, Atom(202)])
        XCTAssertEqual(plan.notifyProperty, Atom(400))
        XCTAssertEqual(plan.refusals, [.malformedMultiple])
        XCTAssertEqual(plan.writes.map(\.property), [Atom(202), Atom(400)])
    }

    func testMultipleWithTooManyPairsIsRefused() {
        let limited = responder(maximumPairs: 2)
        let three = [atoms.utf8String, Atom(201), htmlAtom, Atom(202), atoms.targets, Atom(203)]
        let (refused, converter) = multiple(three, responder: limited)
        XCTAssertTrue(refused.isRefused)
        XCTAssertEqual(refused.refusals, [.tooManyPairs(3)])
        XCTAssertTrue(refused.writes.isEmpty)
        XCTAssertTrue(converter.calls.isEmpty)

        let (served, _) = multiple(Array(three.prefix(4)), responder: limited)
        XCTAssertEqual(served.notifyProperty, Atom(400), "exactly the limit is accepted")
    }

    func testAMultipleTimedBeforeTheAcquisitionIsAnswered() {
        let converter = textConverter()
        let plan = responder().plan(for: request(atoms.multiple, property: Atom(400), time: Timestamp(10)),
                                    acquiredAt: acquired, offered: [atoms.utf8String],
                                    multiplePairs: [atoms.utf8String, Atom(201)], convert: converter.convert)
        XCTAssertEqual(plan.notifyProperty, Atom(400))
        XCTAssertEqual(plan.refusals, [])
        XCTAssertEqual(plan.writes.map(\.property), [Atom(201)])
        XCTAssertEqual(converter.calls, [atoms.utf8String])
    }

    func testLargePairInsideMultipleStartsAnIncrOnItsOwnProperty() {
        let big = [UInt8](repeating: 0x42, count: 50)
        let converter = Converter([
            atoms.utf8String: PropertyValue(type: atoms.utf8String, bytes: Array("hello".utf8)),
            pngAtom: PropertyValue(type: pngAtom, bytes: big),
        ])
        let (plan, _) = multiple([atoms.utf8String, Atom(201), pngAtom, Atom(202)],
                                 responder: responder(incrThreshold: 10, chunkSize: 8), converter: converter)
        XCTAssertEqual(plan.notifyProperty, Atom(400))
        XCTAssertEqual(plan.writes, [
            PropertyWrite(property: Atom(201), value: PropertyValue(type: atoms.utf8String, bytes: Array("hello".utf8))),
            PropertyWrite(property: Atom(202), value: PropertyValue(type: atoms.incr, longs: [50])),
        ])
        XCTAssertEqual(plan.transfers.map(\.key), [TransferKey(requestor: requestor, property: Atom(202))])
        XCTAssertEqual(plan.transfers.first?.sentBytes, big)
    }
}
