import Foundation
import Testing
import VitrineCore
import VitrineEvdev
import VitrineRuntime

@Suite("evemu recordings: parsing")
struct EvemuParsingTests {
    let abs = EvdevCode.absolute, key = EvdevCode.key

    // MARK: Headers

    @Test func protocolBHeader() throws {
        let recording = try Recordings.load("b-tap.evemu")
        let device = recording.device
        #expect(device.name == "Vitrine Test Touchscreen MT-B")
        #expect(device.properties == [EvdevCode.propertyDirect])
        // Only the types with a bit set appear; the twelve B: 01 lines are one mask.
        #expect(device.codes == [key: [EvdevCode.buttonTouch], abs: [0x00, 0x01, 0x2F, 0x35, 0x36, 0x39]])
        #expect(device.axes == [
            0x00: AxisRange(minimum: 0, maximum: 4095, resolution: 16),
            0x01: AxisRange(minimum: 0, maximum: 2303, resolution: 16),
            0x2F: AxisRange(minimum: 0, maximum: 9, resolution: 0),
            0x35: AxisRange(minimum: 0, maximum: 4095, resolution: 16),
            0x36: AxisRange(minimum: 0, maximum: 2303, resolution: 16),
            0x39: AxisRange(minimum: 0, maximum: 65535, resolution: 0),
        ])
        #expect(device.axes[0x35]?.lengthMillimetres == 4095.0 / 16)
        let lineCount = try Recordings.eventLineCount("b-tap.evemu")
        #expect(recording.events.count == 13)
        #expect(recording.events.count == lineCount)
    }

    @Test func protocolAHeader() throws {
        let recording = try Recordings.load("a-tap.evemu")
        #expect(recording.device.name == "Vitrine Test Touchscreen MT-A")
        #expect(recording.device.properties == [EvdevCode.propertyDirect])
        #expect(recording.device.codes == [key: [EvdevCode.buttonTouch], abs: [0x00, 0x01, 0x35, 0x36]])
        #expect(recording.device.axes == [
            0x00: AxisRange(minimum: 0, maximum: 3840), 0x01: AxisRange(minimum: 0, maximum: 2160),
            0x35: AxisRange(minimum: 0, maximum: 3840), 0x36: AxisRange(minimum: 0, maximum: 2160),
        ])
        #expect(recording.device.axes[0x35]?.lengthMillimetres == nil)
        #expect(recording.events.count == 40)
    }

    @Test func singleTouchHeader() throws {
        let recording = try Recordings.load("st-tap.evemu")
        #expect(recording.device.name == "Vitrine Test Resistive Touchscreen")
        #expect(recording.device.properties.isEmpty)
        #expect(recording.device.codes == [key: [EvdevCode.buttonTouch], abs: [0x00, 0x01]])
        #expect(recording.device.axes == [0x00: AxisRange(minimum: 0, maximum: 960), 0x01: AxisRange(minimum: 0, maximum: 540)])
        #expect(recording.events.count == 6)
        #expect(recording.events == [
            RawInputEvent(type: key, code: EvdevCode.buttonTouch, value: 1, time: .zero),
            RawInputEvent(type: abs, code: EvdevCode.absX, value: 300, time: .zero),
            RawInputEvent(type: abs, code: EvdevCode.absY, value: 200, time: .zero),
            RawInputEvent(type: 0, code: EvdevCode.synReport, value: 0, time: .zero),
            RawInputEvent(type: key, code: EvdevCode.buttonTouch, value: 0, time: .seconds(0.08)),
            RawInputEvent(type: 0, code: EvdevCode.synReport, value: 0, time: .seconds(0.08)),
        ])
    }

    @Test func qemuTabletHeader() throws {
        let recording = try Recordings.load("qemu-tablet.evemu")
        #expect(recording.device.name == "QEMU QEMU USB Tablet")
        #expect(recording.device.properties.isEmpty)
        #expect(recording.device.codes == [
            key: [0x110, 0x111, 0x112],  // BTN_LEFT, BTN_RIGHT, BTN_MIDDLE
            0x02: [0x08],                // REL_WHEEL
            abs: [0x00, 0x01],
            0x04: [0x04],                // MSC_SCAN
        ])
        #expect(recording.device.axes == [0x00: AxisRange(minimum: 0, maximum: 32767), 0x01: AxisRange(minimum: 0, maximum: 32767)])
        #expect(recording.events.count == 51)
        // MSC_SCAN's value is printed in decimal, as evemu does: 0x90001.
        #expect(recording.events.contains(RawInputEvent(type: 4, code: 4, value: 0x90001, time: .seconds(0.2))))
    }

    @Test func touchpadDescription() throws {
        let recording = try Recordings.load("touchpad-description.evemu")
        #expect(recording.device.name == "Vitrine Test Touchpad")
        #expect(recording.device.properties == [0x00, 0x02])  // INPUT_PROP_POINTER, INPUT_PROP_BUTTONPAD
        #expect(recording.device.codes[key] == [0x110, 0x145, 0x14A, 0x14D, 0x14E])
        #expect(recording.device.codes[abs] == [0x00, 0x01, 0x2F, 0x35, 0x36, 0x39])
        #expect(recording.device.axes[0x00] == AxisRange(minimum: 0, maximum: 3200, resolution: 31))
        #expect(recording.events.isEmpty)
    }

    // MARK: Events

    @Test func everyRecordingParsesEveryEventLine() throws {
        let names = [
            "a-first-finger-lifts-first.evemu", "a-second-finger.evemu", "a-tap.evemu",
            "b-first-finger-lifts-first.evemu", "b-flick.evemu", "b-second-finger.evemu", "b-slow-drag.evemu",
            "b-swipe-left.evemu", "b-swipe-right.evemu", "b-syn-dropped.evemu", "b-syn-dropped-lift-lost.evemu",
            "b-syn-dropped-lift-synced.evemu", "b-tap.evemu", "b-vertical-drag.evemu",
            "qemu-tablet.evemu", "st-long-press.evemu", "st-swipe-right.evemu", "st-tap.evemu",
        ]
        let expected = [103, 86, 40, 56, 22, 69, 88, 60, 60, 51, 41, 44, 13, 68, 51, 20, 36, 6]
        for (name, count) in zip(names, expected) {
            let recording = try Recordings.load(name)
            let lineCount = try Recordings.eventLineCount(name)
            #expect(recording.events.count == count, "\(name)")
            #expect(recording.events.count == lineCount, "\(name)")
            // Times never go backwards, and every recording ends on a SYN_REPORT.
            #expect(zip(recording.events, recording.events.dropFirst()).allSatisfy { $0.time <= $1.time }, "\(name)")
            #expect(recording.events.last.map { $0.type == 0 && $0.code == EvdevCode.synReport } == true, "\(name)")
        }
    }

    @Test func negativeValuesAndSynDropped() throws {
        let recording = try Recordings.load("b-syn-dropped.evemu")
        // evemu prints -1 as "-001".
        #expect(recording.events.filter { $0.code == EvdevCode.absMTTrackingID }.map(\.value) == [300, -1, 301, -1])
        let dropped = recording.events.filter { $0.type == 0 && $0.code == EvdevCode.synDropped }
        #expect(dropped == [RawInputEvent(type: 0, code: EvdevCode.synDropped, value: 0, time: .seconds(0.072))])
        #expect(recording.events.first?.time == .zero)
        #expect(recording.events.last?.time == MonotonicInstant(nanoseconds: 680_000_000))
    }

    // MARK: Events-only form

    @Test func eventsOnlyFormMatchesTheWholeRecording() throws {
        let whole = try Recordings.load("b-swipe-left.evemu")
        let split = try EvemuRecording.parse(events: Recordings.text("b-swipe-left.events.evemu"),
                                             description: Recordings.text("b-description.evemu"))
        #expect(split.device == whole.device)
        #expect(split.events == whole.events)
        #expect(split.events.count == 60)
        let replayedSplit = try TouchReplay().run(split), replayedWhole = try TouchReplay().run(whole)
        #expect(replayedSplit == replayedWhole)
        #expect(replayedSplit.map(\.event) == ["dragStart", "dragEnd", "swipe", "pageChanged"])
    }

    @Test func eventsOnlyFileAloneHasNoDevice() throws {
        let text = try Recordings.text("b-swipe-left.events.evemu")
        #expect(throws: EvemuRecording.ParseError.self) { try EvemuRecording.parse(text) }
        do {
            _ = try EvemuRecording.parse(text)
        } catch {
            #expect(error.line == 1)
            #expect(error.message.contains("no device description"))
        }
    }

    @Test func descriptionEventsAreIgnoredInTheEventsOnlyForm() throws {
        // A whole recording may serve as the description: its own events are not replayed.
        let recording = try EvemuRecording.parse(events: Recordings.text("b-swipe-left.events.evemu"),
                                                 description: Recordings.text("b-tap.evemu"))
        let tap = try Recordings.load("b-tap.evemu"), swipe = try Recordings.load("b-swipe-left.evemu")
        #expect(recording.device == tap.device)
        #expect(recording.events == swipe.events)
    }

    // MARK: Malformed lines

    /// The line number and message of the error parsing `text` throws.
    func parseError(_ text: String) -> EvemuRecording.ParseError? {
        do {
            _ = try EvemuRecording.parse(text)
            return nil
        } catch {
            return error
        }
    }

    @Test func malformedLinesAreReportedWithTheirNumbers() {
        let header = "# EVEMU 1.3\nN: Panel\nB: 03 03\n"  // lines 1-3
        var error = parseError(header + "A: 00 0\n")
        #expect(error?.line == 4)
        #expect(error?.message == "A: needs code, minimum and maximum")

        error = parseError(header + "A: 00 0 4095 0 0 16\nE: 0.000000 0003 0000\n")
        #expect(error?.line == 5)
        #expect(error?.message == "E: needs time, type, code and value, found \"E: 0.000000 0003 0000\"")

        error = parseError(header + "\n\n# a comment\nE: 0.000000 0003 00zz 1 # bad code\n")
        #expect(error?.line == 7)
        #expect(error?.message.hasPrefix("E: needs time, type, code and value") == true)

        error = parseError("N: Panel\nB: 01 00 0g 00\n")
        #expect(error?.line == 2)
        #expect(error?.message == "\"0g\" is not a hex byte")

        error = parseError("N: Panel\nP: 02 00\nB:\n")
        #expect(error?.line == 3)
        #expect(error?.message == "B: needs an event type")

        error = parseError("N: Panel\nP: 2 x2\n")
        #expect(error?.line == 2)
        #expect(error?.message == "\"x2\" is not a hex byte")

        error = parseError("N: Panel\nB: 03 03\nE: 0.1 0003 0000 12.5\n")
        #expect(error?.line == 3)
    }

    @Test func malformedLineInARealRecording() throws {
        var lines = try Recordings.text("b-flick.evemu").split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        // Break the value of the tenth event line.
        let index = try #require(lines.indices.filter { lines[$0].hasPrefix("E:") }.dropFirst(9).first)
        lines[index] = "E: 0.036000 0003 0035 2350x\t# EV_ABS / ABS_MT_POSITION_X"
        let error = parseError(lines.joined(separator: "\n"))
        #expect(error?.line == index + 1)
        #expect(error?.message == "E: needs time, type, code and value, found \"E: 0.036000 0003 0035 2350x\"")
    }

    @Test func malformedLineInTheEventsOnlyFormNamesItsLine() throws {
        let description = try Recordings.text("b-description.evemu")
        do {
            _ = try EvemuRecording.parse(events: "# events\nE: 0.0 0003 0035 100\nE: 0.0 0003\n", description: description)
            Issue.record("no error")
        } catch {
            #expect(error.line == 3)
        }
        do {
            _ = try EvemuRecording.parse(events: "E: 0.0 0003 0035 100\n", description: "N: Panel\nA: 35 zero 4095\n")
            Issue.record("no error")
        } catch {
            #expect(error.line == 2)
            #expect(error.message == "A: needs code, minimum and maximum")
        }
    }
}
