/// Decodes one device's evdev events into the driving finger's `TouchEvent`s.
///
/// Events are applied a frame at a time: nothing is reported until SYN_REPORT
/// closes the frame, as the kernel intends. The first finger down drives;
/// fingers that join it are ignored, and after it lifts a new touch starts
/// only once every finger is up, so a second finger can never turn into a tap.
///
/// SYN_DROPPED (the kernel's buffer overflowed) means the device state this
/// model holds can no longer be trusted. The touch in progress is cancelled,
/// and every contact becomes unknown until its slot reports a tracking ID
/// again. Under libevdev's sync (the live path), a finger that lifted during
/// the gap arrives as tracking ID -1, so nothing stays stuck; in a recording
/// replayed without a kernel, a finger that stayed down is ignored until it
/// lifts: it can be missed, but never stuck down.
public struct TouchDeviceModel: Sendable {
    public let kind: TouchDeviceKind
    public var mapper: TouchCoordinateMapper

    private struct Slot: Sendable {
        var trackingID: Int32 = -1
        var x: Int32 = 0
        var y: Int32 = 0
        /// False after SYN_DROPPED until the slot reports a tracking ID again.
        var known = true
    }

    private enum Primary: Sendable {
        /// No finger drives.
        case none
        /// A finger drives: its slot (protocol B) or 0, its tracking ID, where it was last reported.
        case down(slot: Int, trackingID: Int32, last: TouchPoint)
        /// The driving finger lifted (or was cancelled) while others stay down.
        case waitingForAllUp
    }

    private var slots: [Int: Slot] = [:]
    private var currentSlot = 0
    private var primary = Primary.none
    /// Protocol A: the contacts of the frame being read, and the one being built.
    private var frameContacts: [(x: Int32, y: Int32)] = []
    private var pendingContact: (x: Int32?, y: Int32?) = (nil, nil)
    /// Single-touch and pointer devices; the button state is unknown after
    /// SYN_DROPPED until a button event says what it is.
    private var buttonDown = false
    private var buttonKnown = true
    /// Protocol A: the previous frame's contacts, to tell which one lifted.
    private var previousContacts: [TouchPoint] = []
    private var position: (x: Int32, y: Int32) = (0, 0)
    /// Between SYN_DROPPED and the SYN_REPORT that ends the gap.
    private var dropping = false

    public init(kind: TouchDeviceKind, mapper: TouchCoordinateMapper) {
        self.kind = kind
        self.mapper = mapper
    }

    /// Whether a finger is on the device as far as this model knows.
    public var isTouching: Bool {
        if case .none = primary { return false }
        return true
    }

    public mutating func handle(_ event: RawInputEvent) -> [TouchEvent] {
        switch (event.type, event.code) {
        case (EvdevCode.synchronization, EvdevCode.synDropped):
            return beginDrop(at: event.time)
        case (EvdevCode.synchronization, EvdevCode.synReport):
            if dropping {
                // The gap ends. A finger that lifted during it (a tracking ID -1
                // from libevdev's sync, or a lift the recording lost) leaves no
                // known contact: the next touch may start at once.
                dropping = false
                frameContacts.removeAll()
                if case .waitingForAllUp = primary, contacts().isEmpty { primary = .none }
                return []
            }
            return endFrame(at: event.time)
        case (EvdevCode.synchronization, EvdevCode.synMTReport):
            if kind == .multitouchA, !dropping, let x = pendingContact.x, let y = pendingContact.y {
                frameContacts.append((x, y))
            }
            pendingContact = (nil, nil)
            return []
        case (EvdevCode.absolute, _):
            absolute(code: event.code, value: event.value)
            return []
        case (EvdevCode.key, _):
            if (kind == .singleTouch && event.code == EvdevCode.buttonTouch)
                || (kind == .absolutePointer && event.code == EvdevCode.buttonLeft) {
                buttonDown = event.value != 0
                buttonKnown = true
            }
            return []
        default:
            return []
        }
    }

    /// The device went away: a touch in progress is cancelled.
    public mutating func deviceRemoved(at time: MonotonicInstant) -> [TouchEvent] {
        defer { primary = .none; slots.removeAll(); buttonDown = false }
        if case .down = primary { return [.cancel(at: time)] }
        return []
    }

    // MARK: Decoding

    private mutating func absolute(code: UInt16, value: Int32) {
        switch kind {
        case .multitouchB:
            switch code {
            case EvdevCode.absMTSlot:
                currentSlot = Int(value)
            case EvdevCode.absMTTrackingID:
                slots[currentSlot, default: Slot()].trackingID = value
                slots[currentSlot, default: Slot()].known = true
            case EvdevCode.absMTPositionX:
                slots[currentSlot, default: Slot()].x = value
            case EvdevCode.absMTPositionY:
                slots[currentSlot, default: Slot()].y = value
            default:
                break
            }
        case .multitouchA:
            if code == EvdevCode.absMTPositionX { pendingContact.x = value }
            if code == EvdevCode.absMTPositionY { pendingContact.y = value }
        case .singleTouch, .absolutePointer:
            if code == EvdevCode.absX { position.x = value }
            if code == EvdevCode.absY { position.y = value }
        }
    }

    private mutating func beginDrop(at time: MonotonicInstant) -> [TouchEvent] {
        dropping = true
        for key in slots.keys { slots[key]?.known = false }
        buttonKnown = false
        previousContacts.removeAll()
        frameContacts.removeAll()
        pendingContact = (nil, nil)
        if case .down = primary {
            primary = .waitingForAllUp
            return [.cancel(at: time)]
        }
        return []
    }

    /// The contacts on the device at the end of a frame, by identity.
    private func contacts() -> [(slot: Int, trackingID: Int32, x: Int32, y: Int32)] {
        switch kind {
        case .multitouchB:
            return slots.filter { $0.value.known && $0.value.trackingID >= 0 }
                .map { ($0.key, $0.value.trackingID, $0.value.x, $0.value.y) }
                .sorted { $0.slot < $1.slot }
        case .multitouchA:
            return frameContacts.map { (0, 0, $0.x, $0.y) }
        case .singleTouch, .absolutePointer:
            return buttonDown && buttonKnown ? [(0, 0, position.x, position.y)] : []
        }
    }

    private mutating func endFrame(at time: MonotonicInstant) -> [TouchEvent] {
        let present = contacts()
        let previous = previousContacts
        if kind == .multitouchA {
            frameContacts.removeAll()
            previousContacts = present.map { mapper.map(x: $0.x, y: $0.y) }
        }
        switch primary {
        case .none:
            guard let first = present.first else { return [] }
            let point = mapper.map(x: first.x, y: first.y)
            primary = .down(slot: first.slot, trackingID: first.trackingID, last: point)
            return [.down(point, at: time)]
        case .down(let slot, let trackingID, let last):
            // Protocol A has no identities: the driving finger is the contact
            // nearest to where it was.
            let same: (slot: Int, trackingID: Int32, x: Int32, y: Int32)?
            if kind == .multitouchA {
                if present.count < previous.count, drivingContactLifted(previous: previous, present: present, last: last) {
                    primary = present.isEmpty ? .none : .waitingForAllUp
                    return [.up(last, at: time)]
                }
                same = present.min { a, b in
                    distance(mapper.map(x: a.x, y: a.y), last) < distance(mapper.map(x: b.x, y: b.y), last)
                }
            } else {
                same = present.first { $0.slot == slot && $0.trackingID == trackingID }
            }
            guard let same else {
                primary = present.isEmpty ? .none : .waitingForAllUp
                return [.up(last, at: time)]
            }
            let point = mapper.map(x: same.x, y: same.y)
            primary = .down(slot: slot, trackingID: trackingID, last: point)
            return point == last ? [] : [.move(point, at: time)]
        case .waitingForAllUp:
            if present.isEmpty { primary = .none }
            return []
        }
    }

    /// Protocol A, when a frame has fewer contacts than the last: whether the
    /// contact that went is the driving one. Each remaining contact is paired
    /// with the nearest previous one; the previous contact nobody claims lifted.
    private func drivingContactLifted(previous: [TouchPoint], present: [(slot: Int, trackingID: Int32, x: Int32, y: Int32)],
                                      last: TouchPoint) -> Bool {
        var unclaimed = Array(previous.indices)
        for contact in present {
            let point = mapper.map(x: contact.x, y: contact.y)
            if let nearest = unclaimed.min(by: { distance(previous[$0], point) < distance(previous[$1], point) }) {
                unclaimed.removeAll { $0 == nearest }
            }
        }
        guard let driving = previous.indices.min(by: { distance(previous[$0], last) < distance(previous[$1], last) }) else { return true }
        return unclaimed.contains(driving)
    }

    private func distance(_ a: TouchPoint, _ b: TouchPoint) -> Double {
        let dx = a.x - b.x, dy = a.y - b.y
        return dx * dx + dy * dy
    }
}
