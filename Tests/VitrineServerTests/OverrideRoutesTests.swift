import Foundation
import Hummingbird
import HummingbirdTesting
import NIOCore
import ServerTestSupport
import Testing
@testable import VitrineHTTP
import VitrineChannel
import VitrineConfig
import VitrineCore
import VitrinePNG
@testable import VitrineRuntime
@testable import VitrineAPI
import VitrineSystem

@Suite("API: emergency override")
struct OverrideRoutesTests {
    static func post(_ client: some TestClientProtocol, _ text: String, query: String = "") async throws -> (HTTPResponse.Status, [String: Any]) {
        try await sendJSON(client, .post, "/api/v1/override" + query, text)
    }

    static func postPicture(_ client: some TestClientProtocol, _ bytes: [UInt8], query: String,
                            type: String = "image/jpeg") async throws -> (HTTPResponse.Status, [String: Any]) {
        try await client.execute(uri: "/api/v1/override" + query, method: .post, headers: authorized([.contentType: type]),
                                 body: ByteBuffer(bytes: bytes)) { ($0.status, json($0.body)) }
    }

    static func get(_ client: some TestClientProtocol) async throws -> (HTTPResponse.Status, [String: Any]) {
        try await client.execute(uri: "/api/v1/override", method: .get, headers: authorized()) { ($0.status, json($0.body)) }
    }

    static func delete(_ client: some TestClientProtocol, _ uri: String = "/api/v1/override") async throws -> (HTTPResponse.Status, [String: Any]) {
        try await client.execute(uri: uri, method: .delete, headers: authorized()) { ($0.status, json($0.body)) }
    }

    static func instant(_ text: Any?) -> WallInstant? { (text as? String).flatMap(RFC3339.parse) }

    @Test func jsonSlidesAreStoredAndSentAtOnceWithTheirEnd() async throws {
        let harness = try OverrideHarness()
        defer { harness.close() }
        try await harness.application().test(.router) { client in
            let before = WallClock.now()
            let (status, answer) = try await Self.post(client, """
                {"slides": ["\(harness.picturePath)", {"path": "\(harness.picturePath)", "duration": "3s", "fit": "cover"}],
                 "duration": "30m", "interval": "4s"}
                """)
            let after = WallClock.now()
            #expect(status == .created, "\(answer)")
            let id = try #require(answer["id"] as? String)
            #expect(id.count == 8 && id.allSatisfy(\.isHexDigit))
            let since = try #require(Self.instant(answer["since"])), until = try #require(Self.instant(answer["until"]))
            #expect(since >= before && since <= after && until - since == 1800)
            #expect(answer["interval"] as? String == "4s")
            let slides = try #require(answer["slides"] as? [[String: Any]])
            #expect(slides.map { $0["path"] as? String } == [harness.picturePath, harness.picturePath])
            #expect(slides[1]["duration"] as? String == "3s" && slides[1]["fit"] as? String == "cover")

            let expected = KioskOverride(id: id, slides: [SlideConfiguration(path: harness.picturePath),
                                                          SlideConfiguration(path: harness.picturePath, duration: .seconds(3), fit: .cover)],
                                         interval: .seconds(4), since: since, until: until)
            #expect(harness.overridesSent() == [expected])
            #expect(FileManager.default.fileExists(atPath: harness.overrideFile))

            let (getStatus, shown) = try await Self.get(client)
            #expect(getStatus == .ok && shown["id"] as? String == id && shown["until"] as? String == until.description)
        }
    }

    /// As a push's: JSON writes a character beyond U+FFFF as two escaped UTF-16
    /// surrogates, which the YAML parser does not take on its own (Schemathesis
    /// found an override refused with 422 for one in a tap action's URL).
    @Test func aJSONOverrideMayEscapeCharactersBeyondTheBasicPlane() async throws {
        let harness = try OverrideHarness()
        defer { harness.close() }
        try await harness.application().test(.router) { client in
            let (status, answer) = try await Self.post(client, #"""
                {"slides": [{"path": "\#(harness.picturePath)", "action": {"post": "https://example.com/\ud83d\ude00"}}], "duration": "5m"}
                """#)
            #expect(status == .created, "\(answer)")
        }
        #expect(harness.overridesSent().first??.slides.first?.action == .post(url: "https://example.com/😀", timeout: .seconds(2)))
    }

    @Test func untilIsTakenAsGivenInAnyOffset() async throws {
        let harness = try OverrideHarness()
        defer { harness.close() }
        try await harness.application().test(.router) { client in
            let end = WallClock.now() + 7200
            // The same instant written two hours east of UTC.
            let local = RFC3339.parse(end.description)! + 7200
            let text = String(local.description.dropLast()) + "+02:00"
            let (status, answer) = try await Self.post(client, #"{"slides": ["\#(harness.picturePath)"], "until": "\#(text)"}"#)
            #expect(status == .created, "\(answer)")
            #expect(answer["until"] as? String == end.description && answer["interval"] is NSNull)
        }
    }

    @Test func onePictureIsStoredAsAnAssetAndShownAlone() async throws {
        let harness = try OverrideHarness()
        defer { harness.close() }
        let picture = try ServerHarness.jpeg(ServerHarness.colors["blue"]!)
        let id = ContentDigest.sha256(picture)
        try await harness.application().test(.router) { client in
            let (status, answer) = try await Self.postPicture(client, picture, query: "?duration=10m&name=alert.jpg")
            #expect(status == .created, "\(answer)")
            #expect((answer["slides"] as? [[String: Any]])?.map { $0["path"] as? String } == ["asset:\(id)"])
            #expect(Self.instant(answer["until"]).map { $0 - Self.instant(answer["since"])! } == 600)
            let asset = try #require(harness.api.apply.store.assets.asset(id))
            #expect(asset.name == "alert.jpg")
            #expect(harness.overridesSent().map { $0?.slides.map(\.path) } == [["asset:\(id)"]])
            // PNG too, with until.
            let png = try PNGCodecFixture.png()
            let until = (WallClock.now() + 3600).description
            let (pngStatus, pngAnswer) = try await Self.postPicture(client, png, query: "?until=\(until)", type: "image/png")
            #expect(pngStatus == .created && pngAnswer["until"] as? String == until, "\(pngAnswer)")
        }
    }

    @Test func aNewOverrideReplacesTheCurrentOneAndDeleteEndsIt() async throws {
        let harness = try OverrideHarness()
        defer { harness.close() }
        try await harness.application().test(.router) { client in
            let (_, first) = try await Self.post(client, #"{"slides": ["\#(harness.picturePath)"], "duration": "5m"}"#)
            let (status, second) = try await Self.post(client, #"{"slides": ["\#(harness.picturePath)"], "duration": "1m"}"#)
            #expect(status == .created && first["id"] as? String != second["id"] as? String)
            #expect(harness.overridesSent().map { $0?.id } == [first["id"] as? String, second["id"] as? String])
            #expect(try await Self.get(client).1["id"] as? String == second["id"] as? String)

            #expect(try await Self.delete(client).0 == .noContent)
            #expect(harness.overridesSent() == [nil], "nil ends the override showing")
            #expect(!FileManager.default.fileExists(atPath: harness.overrideFile))
            let (getStatus, none) = try await Self.get(client)
            #expect(getStatus == .notFound && none["error"] as? String == "no override is active")
            let (again, answer) = try await Self.delete(client)
            #expect(again == .notFound && answer["error"] as? String == "no override is active")
            #expect(harness.commands().isEmpty, "deleting nothing sends nothing")
        }
    }

    /// Each bad body: 422 with an issue at the path named, nothing sent, nothing stored.
    @Test(arguments: [
        (#"{"slides": ["https://example.com/alert.jpg"], "duration": "30m"}"#, "slides[0].path", "must not wait on the network"),
        (#"{"slides": ["alert.jpg"], "duration": "30m"}"#, "slides[0].path", "absolute path"),
        (#"{"slides": ["PICTURE", "asset:\#(String(repeating: "0", count: 64))"], "duration": "30m"}"#, "slides[1].path", "has not been uploaded"),
        (#"{"slides": ["CONTENT/missing.jpg"], "duration": "30m"}"#, "slides[0].path", "file not found"),
        (#"{"slides": ["/nonexistent/alert.jpg"], "duration": "30m"}"#, "slides[0].path", "is not under the kiosk's content or state directory"),
        (#"{"slides": ["/etc/passwd"], "duration": "30m"}"#, "slides[0].path", "is not under the kiosk's content or state directory"),
        (#"{"slides": ["CONTENT/../../../etc/hostname"], "duration": "30m"}"#, "slides[0].path", "is not under the kiosk's content or state directory"),
        (#"{"slides": ["CONTENT/link-to-etc/hostname"], "duration": "30m"}"#, "slides[0].path", "is not under the kiosk's content or state directory"),
        (#"{"slides": ["asset:beef"], "duration": "30m"}"#, "slides[0]", "64 lowercase hex digits"),
        (#"{"slides": [], "duration": "30m"}"#, "slides", "at least one slide"),
        (#"{"slides": "PICTURE", "duration": "30m"}"#, "slides", "must be a list"),
        (#"{"duration": "30m"}"#, "slides", "is required"),
        (#"{"slides": [{"path": "PICTURE", "fit": "zoom"}], "duration": "1m"}"#, "slides[0].fit", "must be one of"),
        (#"{"slides": [{"path": "PICTURE", "action": {"goto": 3}}], "duration": "1m"}"#, "slides[0].action.goto", "there is no slide 3"),
        (#"{"slides": [{"duration": "2s"}], "duration": "1m"}"#, "slides[0].path", "is required"),
        (#"{"slides": ["PICTURE"]}"#, "duration", "is required"),
        (#"{"slides": ["PICTURE"], "duration": "30m", "until": "2030-01-01T00:00:00Z"}"#, "duration", "not both"),
        (#"{"slides": ["PICTURE"], "duration": "0s"}"#, "duration", "greater than 0"),
        (#"{"slides": ["PICTURE"], "duration": "10081m"}"#, "duration", "at most 7 days"),
        (#"{"slides": ["PICTURE"], "duration": "2h"}"#, "duration", "must be a duration"),
        (#"{"slides": ["PICTURE"], "until": "2000-01-01T00:00:00Z"}"#, "until", "must be in the future"),
        (#"{"slides": ["PICTURE"], "until": "LATE"}"#, "until", "at most 7 days"),
        (#"{"slides": ["PICTURE"], "until": "tomorrow"}"#, "until", "RFC 3339"),
        (#"{"slides": ["PICTURE"], "until": 12}"#, "until", "RFC 3339"),
        (#"{"slides": ["PICTURE"], "duration": "1m", "interval": "-1s"}"#, "interval", "must be greater than 0"),
        (#"{"slides": ["PICTURE"], "duration": "1m", "intervall": "5s"}"#, "intervall", "did you mean \"interval\""),
        (#"["PICTURE"]"#, "", "must be a mapping"),
        (#"{"slides": ["PICTURE"], "duration": "#, "", "syntax error"),
        (#""#, "", "the body is empty"),
    ])
    func badBodiesAre422AtTheirPathAndChangeNothing(body template: String, path: String, message: String) async throws {
        let harness = try OverrideHarness()
        defer { harness.close() }
        let late = (WallClock.now() + OverrideDocument.longest + 3600).description
        // A symbolic link out of the content directory is judged by where it leads.
        try? FileManager.default.createSymbolicLink(atPath: harness.directory + "/link-to-etc", withDestinationPath: "/etc")
        let text = template.replacingOccurrences(of: "PICTURE", with: harness.picturePath).replacingOccurrences(of: "LATE", with: late)
            .replacingOccurrences(of: "CONTENT", with: harness.directory)
        try await harness.application().test(.router) { client in
            let (status, answer) = try await Self.post(client, text)
            #expect(status == .unprocessableContent, "\(text): \(answer)")
            let issues = answer["issues"] as? [[String: String]] ?? []
            #expect(issues.contains { $0["path"] == path && $0["message"]?.contains(message) == true }, "\(text): \(issues)")
            #expect(harness.commands().isEmpty)
            #expect(!FileManager.default.fileExists(atPath: harness.overrideFile))
            #expect(try await Self.get(client).0 == .notFound)
        }
    }

    /// A picture body with a bad or missing end, a JSON body with a query end, and bodies of other types.
    @Test(arguments: [
        ("image/jpeg", "", HTTPResponse.Status.unprocessableContent, "duration"),
        ("image/jpeg", "?duration=forever", .unprocessableContent, "duration"),
        ("image/jpeg", "?duration=5m&until=2030-01-01T00:00:00Z", .unprocessableContent, "duration"),
        ("image/jpeg", "?until=2000-01-01T00:00:00Z", .unprocessableContent, "until"),
        ("image/jpeg", "?duration=5m&name=a/b.jpg", .unprocessableContent, "name"),
        ("application/json", "?duration=5m", .unprocessableContent, "duration"),
        ("text/plain", "?duration=5m", .unsupportedMediaType, nil),
        ("image/png", "?duration=5m", .unsupportedMediaType, "NOT A PICTURE"),
    ] as [(String, String, HTTPResponse.Status, String?)])
    func pictureRequestsAreRefusedWithTheirReason(type: String, query: String, expected: HTTPResponse.Status, path: String?) async throws {
        let harness = try OverrideHarness()
        defer { harness.close() }
        let picture = path == "NOT A PICTURE" ? Array("hello".utf8) : try ServerHarness.jpeg(ServerHarness.colors["green"]!)
        try await harness.application().test(.router) { client in
            let (status, answer) = try await Self.postPicture(client, picture, query: query, type: type)
            #expect(status == expected, "\(type) \(query): \(answer)")
            #expect(answer["error"] is String)
            if let path, path != "NOT A PICTURE" {
                #expect((answer["issues"] as? [[String: String]] ?? []).contains { $0["path"] == path }, "\(answer)")
            }
            #expect(harness.commands().isEmpty)
            #expect(harness.api.apply.store.assets.list().isEmpty, "a refused override stores no picture")
        }
    }

    @Test func anOverrideSurvivesARestartUntilItEnds() async throws {
        let first = try OverrideHarness()
        defer { first.close() }
        let set = try await first.application().test(.router) { client in
            try await Self.post(client, #"{"slides": ["\#(first.picturePath)"], "duration": "30m", "interval": "2s"}"#).1
        }
        let sent = try #require(first.overridesSent().first ?? nil)
        #expect(sent.id == set["id"] as? String)

        let restarted = try OverrideHarness(stateDirectory: first.stateDirectory)
        defer { restarted.close() }
        #expect(restarted.overridesSent() == [sent], "the stored override goes to the display thread at start")
        try await restarted.application().test(.router) { client in
            let (status, shown) = try await Self.get(client)
            #expect(status == .ok && shown["id"] as? String == sent.id && shown["interval"] as? String == "2s")
        }
    }

    @Test(arguments: ["ended", "garbage", "invalid"])
    func anEndedOrUnreadableStoredOverrideIsRemovedAtStart(kind: String) throws {
        let first = try OverrideHarness()
        defer { first.close() }
        let now = WallClock.now()
        let ended = KioskOverride(id: "0badcafe", slides: [SlideConfiguration(path: first.picturePath)], since: now - 600, until: now - 1)
        let bytes: [UInt8] = switch kind {
        case "ended": OverrideDocument.json(ended)
        case "garbage": Array("{ not json".utf8)
        default: Array(#"{"id": "x", "slides": [], "since": "2026-01-01T00:00:00Z", "until": "2099-01-01T00:00:00Z"}"#.utf8)
        }
        try bytes.write(to: first.overrideFile)

        let restarted = try OverrideHarness(stateDirectory: first.stateDirectory)
        defer { restarted.close() }
        #expect(restarted.commands().isEmpty)
        #expect(!FileManager.default.fileExists(atPath: first.overrideFile))
        #expect(restarted.api.overrides.stored.active(at: now) == nil)
    }

    @Test func theOverridesAssetsAreInUseUntilItEnds() async throws {
        let harness = try OverrideHarness()
        defer { harness.close() }
        let picture = try ServerHarness.jpeg(ServerHarness.colors["green"]!)
        let id = ContentDigest.sha256(picture)
        try await harness.application().test(.router) { client in
            #expect(try await Self.postPicture(client, picture, query: "?duration=5m").0 == .created)
            #expect(harness.api.apply.assetsInUse.contains(id))
            let listed = try await client.execute(uri: "/api/v1/assets", method: .get, headers: authorized()) { json($0.body) }
            #expect((listed["assets"] as? [[String: Any]])?.first { $0["id"] as? String == id }?["inUse"] as? Bool == true)
            let (refused, answer) = try await Self.delete(client, "/api/v1/assets/\(id)")
            #expect(refused == .conflict && (answer["error"] as? String)?.contains("emergency override") == true, "\(answer)")

            #expect(try await Self.delete(client).0 == .noContent)
            #expect(!harness.api.apply.assetsInUse.contains(id))
            #expect(try await Self.delete(client, "/api/v1/assets/\(id)").0 == .noContent)
        }
    }

    @Test func setAndClearAreAnnouncedOnTheEventStream() async throws {
        let harness = try OverrideHarness()
        defer { harness.close() }
        let events = harness.api.events.subscribe()
        try await harness.application().test(.router) { client in
            let id = try await Self.post(client, #"{"slides": ["\#(harness.picturePath)"], "duration": "1m"}"#).1["id"] as? String
            _ = try await Self.delete(client)
            var received: [ServerEvent] = []
            for await event in events {
                received.append(event)
                if received.count == 2 { break }
            }
            #expect(received.map(\.name) == ["overrideSet", "overrideCleared"])
            #expect(received.allSatisfy { $0.data.contains(#""id":"\#(id ?? "?")""#) })
        }
    }

    /// Through a real display loop: the status carries what the display thread shows.
    @Test func theStatusReportsTheOverrideTheDisplayThreadShows() async throws {
        let harness = try ServerHarness()
        defer { harness.close() }
        try await harness.application().test(.router) { client in
            let path = harness.directory + "/blue.jpg"
            let (status, answer) = try await Self.post(client, #"{"slides": ["\#(path)"], "duration": "1m"}"#)
            #expect(status == .created, "\(answer)")
            #expect(await harness.eventually { harness.api.link.status.override?.id == answer["id"] as? String })
            let shown = try await client.execute(uri: "/api/v1/status", method: .get, headers: authorized()) { json($0.body)["override"] }
            #expect((shown as? [String: Any])?["id"] as? String == answer["id"] as? String)
            #expect(try await Self.delete(client).0 == .noContent)
            #expect(await harness.eventually { harness.api.link.status.override == nil })
            let cleared = try await client.execute(uri: "/api/v1/status", method: .get, headers: authorized()) { json($0.body)["override"] }
            #expect(cleared is NSNull)
        }
    }
}

/// A small PNG, for the picture body's second type.
enum PNGCodecFixture {
    static func png() throws -> [UInt8] {
        try PNGCodec.encode(PixelImage(size: PixelSize(width: 8, height: 6), fill: RGBAColor(red: 200, green: 0, blue: 0)))
    }
}
