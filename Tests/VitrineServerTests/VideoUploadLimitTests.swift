import Foundation
import Hummingbird
import HummingbirdTesting
import PictureTestSupport
import Testing
import VitrineCore
import VitrineRuntime
import VitrineSandbox
import VitrineSandboxHelper

/// A video upload is held to the configuration's `decode.maxVideoBitrate`,
/// as `decode.maxPixels` holds a picture: a 409 that names the setting and
/// both figures, and nothing stored.
@Suite("API: a video upload over the bitrate limit")
struct VideoUploadLimitTests {
    private static var inspector: SandboxedPictureInspector {
        let built = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().deletingLastPathComponent()
        return SandboxedPictureInspector(pool: DecodePool(executable: built.appendingPathComponent("vitrine").path, size: 1, limits: HelperLimits()),
                                         videos: SandboxedVideoOpener(executable: built.appendingPathComponent("vitrine-video").path))
    }

    @Test func aVideoOverTheLimitIsAConflictAndOneWithinItIsStored() async throws {
        // testsrc2 coded losslessly: several megabits a second.
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("vitrine-bitrate-\(getpid())-\(UUID().uuidString).mp4").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        _ = try runTool("/usr/bin/ffmpeg", ["-v", "error", "-y", "-f", "lavfi", "-i", "testsrc2=s=320x240:r=25:d=1",
                                            "-c:v", "libx264", "-preset", "ultrafast", "-qp", "0", path])
        let bytes = Array(try Data(contentsOf: URL(fileURLWithPath: path)))
        try #require(bytes.count * 8 > 1_500_000, "the clip is \(bytes.count * 8) bit/s, not over 1 Mbit/s")
        for (limit, over) in [(1, true), (1000, false)] {
            let yaml = ServerHarness.defaultYAML + "\ndecode:\n  maxVideoBitrate: \(limit)\n"
            let harness = try ServerHarness(yaml: yaml, pictures: Self.inspector)
            defer { harness.close() }
            try await harness.application().test(.router) { client in
                try await client.execute(uri: "/api/v1/assets?name=promo.mp4", method: .post, headers: authorized(),
                                         body: ByteBuffer(bytes: bytes)) { response in
                    if over {
                        #expect(response.status == .conflict)
                        let error = json(response.body)["error"] as? String ?? ""
                        #expect(error.contains("promo.mp4 is over this kiosk's configuration") && error.contains("over decode.maxVideoBitrate (1.0 Mbit/s)"),
                                "\(error)")
                    } else {
                        #expect(response.status == .created)
                        #expect(json(response.body)["type"] as? String == "mp4")
                    }
                }
            }
            #expect(harness.store.assets.list().count == (over ? 0 : 1))
        }
    }
}
