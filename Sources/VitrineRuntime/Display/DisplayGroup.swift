import VitrineCore

/// The member displays of a composite display (`SpannedDisplay`,
/// `MirroredDisplay`), and how their states add up to the one display the
/// kiosk sees: what the two composites share, so that both answer alike.
///
/// The rule throughout is that a member that is away does not hold up the
/// others: an unplugged output (`!isShowing`) and a dark one (a `setPower(true)`
/// that failed on it) are left out of readiness and presents, and a member
/// whose call throws does not keep the call from the others.
final class DisplayGroup {
    let members: [DisplayBackend]
    /// Each member's generation when `generation` last looked, and how many
    /// times one had changed: the group's own generation.
    private var seenGenerations: [Int]
    private var changes = 0

    init(_ members: [DisplayBackend]) {
        precondition(!members.isEmpty, "a composite display needs at least one member")
        self.members = members
        seenGenerations = members.map(\.generation)
    }

    /// Any member shows: unplugging one output leaves the others running.
    var isShowing: Bool { members.contains { $0.isShowing } }

    /// A member that takes part in the next frame: plugged in and lit.
    private func takesPart(_ member: DisplayBackend) -> Bool { member.isShowing && member.isPoweredOn }

    /// Every member that takes part is ready (no flip pending), and one does:
    /// the next frame reaches all of them together. A flip pending on any
    /// member holds the frame back; its completion event wakes the loop.
    var isReadyForFrame: Bool {
        var any = false
        for member in members where takesPart(member) {
            guard member.isReadyForFrame else { return false }
            any = true
        }
        return any
    }

    /// Lit while any member's panel is: a `setPower(false)` that failed on one
    /// leaves the group lit, so the kiosk tries again.
    var isPoweredOn: Bool { members.contains { $0.isPoweredOn } }
    var isFlipPending: Bool { members.contains { $0.isFlipPending } }

    /// Changes whenever a member's does: counted rather than summed, so that
    /// two members changing in opposite directions still count.
    var generation: Int {
        for (index, member) in members.enumerated() where member.generation != seenGenerations[index] {
            seenGenerations[index] = member.generation
            changes += 1
        }
        return changes
    }

    /// The fastest member's refresh: frames are paced for it, and a slower
    /// member holds a frame back only while its own flip is pending.
    var refreshInterval: Duration { members.map(\.refreshInterval).min()! }
    var pacesItself: Bool { members.contains { $0.pacesItself } }
    var lastScanout: MonotonicInstant? { members.compactMap(\.lastScanout).max() }

    /// Every member's descriptors, each once.
    var eventDescriptors: [Int32] {
        var seen = Set<Int32>()
        return members.flatMap(\.eventDescriptors).filter { seen.insert($0).inserted }
    }

    /// The members a frame goes to now, with the buffer each hands out.
    func membersTakingFrame() -> [(index: Int, canvas: PixelCanvas)] {
        members.indices.compactMap { index in
            let member = members[index]
            guard takesPart(member), member.isReadyForFrame, let canvas = member.acquireCanvas() else { return nil }
            return (index, canvas)
        }
    }

    /// Presents `indices`' members one right after the other, so that they
    /// change picture at the same vblank (or the next): every one is tried,
    /// then the first failure is thrown.
    func present(_ indices: [Int], at now: MonotonicInstant) throws {
        try forEach(of: indices) { try $0.present(at: now) }
    }

    /// Forwards to every member that watches `descriptor` (each DRM display
    /// has its own uevent socket, but nothing here relies on that).
    func handleEvents(on descriptor: Int32) throws {
        try forEach(of: members.indices.filter { members[$0].eventDescriptors.contains(descriptor) }) {
            try $0.handleEvents(on: descriptor)
        }
    }

    func setPower(_ on: Bool) throws {
        try forEach(of: Array(members.indices)) { try $0.setPower(on) }
    }

    func close() { members.forEach { $0.close() } }

    var connectorName: String? { members.first?.connectorName }
    var connectorReference: (card: UInt32, connector: UInt32)? { members.first?.connectorReference }

    /// Runs `body` on each of `indices`' members even when one throws, then
    /// throws the first error: one output failing never stops the others.
    private func forEach(of indices: [Int], _ body: (DisplayBackend) throws -> Void) throws {
        var firstError: (any Error)?
        for index in indices {
            do {
                try body(members[index])
            } catch {
                if firstError == nil { firstError = error }
            }
        }
        if let firstError { throw firstError }
    }
}
