import VitrineCore

/// The member displays of a composite display (`SpannedDisplay`,
/// `MirroredDisplay`), and how their states add up to the one display the
/// kiosk sees: what the two composites share, so that both answer alike.
///
/// The rule throughout is that a member that is away does not hold up the
/// others: an unplugged output (`!isShowing`) and a dark one (a `setPower(true)`
/// that failed on it) are left out of readiness and presents, and a member
/// whose call throws does not keep the call from the others.
///
/// Each member flips on its own vblank: every member is a `DRMDisplay` on a
/// lease of its own, so on a CRTC of its own. Only members of the fastest
/// refresh wait for each other (`isReadyForFrame`); a slower member takes a
/// frame when its own flip is done, skips it otherwise, and catches up with
/// the newest frame at its next chance (`membersCatchingUp`).
final class DisplayGroup {
    let members: [DisplayBackend]
    /// Each member's generation when `generation` last looked, and how many
    /// times one had changed: the group's own generation.
    private var seenGenerations: [Int]
    private var changes = 0
    /// Each member's frames: what the log shows at exit.
    private(set) var frameCounts: [MemberFrameCount]
    /// Whether a member did not take the last frame presented: it shows an older one.
    private var behind: [Bool]

    /// Refresh periods this close count as one rate, whose members change
    /// picture together: 59.94 Hz and 60 Hz (0.017 ms apart) do, as do 23.976
    /// and 24 Hz (0.04 ms); 144 Hz and 165 Hz (0.88 ms apart) do not, nor do
    /// 50 and 60 Hz (3.3 ms).
    static let sameRateTolerance: Duration = .microseconds(500)

    init(_ members: [DisplayBackend]) {
        precondition(!members.isEmpty, "a composite display needs at least one member")
        self.members = members
        seenGenerations = members.map(\.generation)
        frameCounts = members.indices.map { MemberFrameCount(member: Self.name(of: members[$0], at: $0)) }
        behind = members.map { _ in false }
    }

    /// A member's name in the log: its connector's; a composite's (a canvas
    /// with mirrors) its members' joined with `+`; a headless member's, which
    /// has no connector and may look like another, its place and description.
    private static func name(of member: DisplayBackend, at index: Int) -> String {
        if let composite = member as? CompositeDisplay {
            return composite.group.members.indices.map { name(of: composite.group.members[$0], at: $0) }.joined(separator: "+")
        }
        return member.connectorName ?? "member \(index + 1) (\(member.description))"
    }

    /// Any member shows: unplugging one output leaves the others running.
    var isShowing: Bool { members.contains { $0.isShowing } }

    /// A member that takes part in the next frame: plugged in and lit.
    private func takesPart(_ member: DisplayBackend) -> Bool { member.isShowing && member.isPoweredOn }

    /// Every member that takes part and refreshes at the fastest rate among
    /// them (within `sameRateTolerance`) is ready (no flip pending), and one
    /// takes part: the next frame reaches all of those together, at the same
    /// vblank or the next, and a flip pending on one of them holds it back
    /// (its completion event wakes the loop). A slower member holds nothing
    /// back: it takes the frame if its own flip is done, and skips it
    /// otherwise. So a 60 Hz and a 30 Hz screen of one canvas run at 60 and 30
    /// frames a second, rather than both at 30.
    ///
    /// No member waits for one of another rate because none shares a CRTC
    /// with another: each is on a lease of its own, with its own CRTC, vblank
    /// and flip events. Were two members ever planes of one CRTC, each would
    /// have to wait for the other's flip whatever their rates: a CRTC takes
    /// one flip at a time (a second before the first completes is refused
    /// with EBUSY), and both flips would complete at that one CRTC's vblank.
    var isReadyForFrame: Bool {
        let taking = members.filter(takesPart)
        guard let fastest = taking.map(\.refreshInterval).min() else { return false }
        return taking.allSatisfy { $0.refreshInterval - fastest > Self.sameRateTolerance || $0.isReadyForFrame }
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
    /// member takes those its own vblank allows.
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

    /// The members that did not take the last frame presented and can now
    /// (a slower member whose flip was pending then), with the buffer each
    /// hands out: the frame is drawn onto these alone, then `catchUp`.
    func membersCatchingUp() -> [(index: Int, canvas: PixelCanvas)] {
        members.indices.compactMap { index in
            guard canCatchUp(index), let canvas = members[index].acquireCanvas() else { return nil }
            return (index, canvas)
        }
    }

    /// Whether a member can catch up now (`membersCatchingUp` is not empty).
    var canCatchUp: Bool { members.indices.contains(where: canCatchUp) }

    /// Member `index` skipped the last frame, takes part, and its flip is done.
    private func canCatchUp(_ index: Int) -> Bool {
        behind[index] && takesPart(members[index]) && members[index].isReadyForFrame
    }

    /// Presents `indices`' members one right after the other, so that they
    /// change picture at the same vblank (or the next): every one is tried,
    /// then the first failure is thrown. Every other member is now behind.
    func present(_ indices: [Int], at now: MonotonicInstant) throws {
        for index in members.indices where !indices.contains(index) {
            behind[index] = true
            if takesPart(members[index]) { frameCounts[index].skipped += 1 }
        }
        try presentEach(indices, at: now)
    }

    /// Presents the frame last presented to `indices`' members, which had
    /// skipped it (`membersCatchingUp`).
    func catchUp(_ indices: [Int], at now: MonotonicInstant) throws {
        try presentEach(indices, at: now, catchingUp: true)
    }

    /// A member whose present throws is not behind: trying again with the
    /// same frame would most likely fail again.
    private func presentEach(_ indices: [Int], at now: MonotonicInstant, catchingUp: Bool = false) throws {
        try forEach(of: indices) { index in
            behind[index] = false
            try members[index].present(at: now)
            frameCounts[index].presented += 1
            if catchingUp { frameCounts[index].caughtUp += 1 }
        }
    }

    /// Forwards to every member that watches `descriptor` (each DRM display
    /// has its own uevent socket, but nothing here relies on that).
    func handleEvents(on descriptor: Int32) throws {
        try forEach(of: members.indices.filter { members[$0].eventDescriptors.contains(descriptor) }) {
            try members[$0].handleEvents(on: descriptor)
        }
    }

    func setPower(_ on: Bool) throws {
        try forEach(of: Array(members.indices)) { try members[$0].setPower(on) }
    }

    func close() { members.forEach { $0.close() } }

    var connectorName: String? { members.first?.connectorName }
    var connectorReference: (card: UInt32, connector: UInt32)? { members.first?.connectorReference }

    /// Runs `body` on each of `indices`' members even when one throws, then
    /// throws the first error: one output failing never stops the others.
    private func forEach(of indices: [Int], _ body: (Int) throws -> Void) throws {
        var firstError: (any Error)?
        for index in indices {
            do {
                try body(index)
            } catch {
                if firstError == nil { firstError = error }
            }
        }
        if let firstError { throw firstError }
    }
}
