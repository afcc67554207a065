import Foundation
import Logging
import Testing
import VitrineConfig
import VitrineCore
@testable import VitrineRuntime
@testable import VitrinePlays

/// The upload URL a followed channel names (`plays.upload` in its manifest).
@Suite("Proof of play: the channel's upload URL")
struct PlaysChannelUploadTests {
    @Test func theChannelsURLIsUsedFromTheMomentItIsNamedAndTheLocalOneWins() async throws {
        let directory = NSTemporaryDirectory() + "vitrine-plays-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let first = try await PlayReceiver(), second = try await PlayReceiver()
        var settings = PlaysConfiguration()
        settings.interval = .seconds(1)
        let plays = try ProofOfPlay(stateDirectory: directory, settings: settings, device: "lobby-left", logger: Logger(label: "test"), policy: .loopbackAllowed)
        #expect(plays.uploader == nil, "no URL anywhere: plays are only kept")
        let running = Task { await plays.run() }
        for index in 0..<3 { plays.log.shown(PlaysTests.shown(index % 2, at: Double(index))) }
        plays.log.ended(at: MonotonicInstant(nanoseconds: 3_000_000_000))
        plays.log.flush()

        // The channel names the first receiver: everything kept so far goes there.
        plays.useChannelUpload(first.url)
        #expect(plays.uploader?.url == first.url)
        for _ in 0..<600 where first.sequences.count < 3 { try await Task.sleep(for: .milliseconds(50)) }
        #expect(first.sequences == [1, 2, 3])
        // Accepted and its cursor written (a switch before that sends the batch again, which a
        // receiver keying plays by device and seq ignores; here the test waits for it).
        for _ in 0..<600 where plays.uploader?.status.uploaded != 3 { try await Task.sleep(for: .milliseconds(50)) }

        // A new version names another: the next plays go there, none twice.
        plays.useChannelUpload(second.url)
        plays.log.shown(PlaysTests.shown(1, at: 4))
        plays.log.ended(at: MonotonicInstant(nanoseconds: 5_000_000_000))
        plays.log.flush()
        for _ in 0..<600 where second.sequences.isEmpty { try await Task.sleep(for: .milliseconds(50)) }
        #expect(second.sequences == [4] && first.sequences == [1, 2, 3])

        // None any more: uploads stop.
        plays.useChannelUpload(nil)
        #expect(plays.uploader == nil)
        running.cancel()
        await running.value

        // A local plays.upload wins over whatever the channel names.
        var local = PlaysConfiguration()
        local.upload = first.url
        let pinned = try ProofOfPlay(stateDirectory: directory, settings: local, device: "d", logger: Logger(label: "test"),
                                     policy: .loopbackAllowed, channelUpload: second.url)
        #expect(pinned.uploader?.url == first.url)
        pinned.useChannelUpload(second.url)
        #expect(pinned.uploader?.url == first.url)
        await first.stop()
        await second.stop()
    }
}
