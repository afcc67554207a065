import Foundation
import Hummingbird
import HummingbirdTesting
import Testing
import VitrineCore
import VitrineRuntime
import VitrineSystem

/// A decoder that refuses one file, held back as a picture that stopped a
/// helper would be, until an operator retries it: the API's side of the
/// decoding sandbox, through a real kiosk loop.
final class RefusingDecoder: SlideDecoder, @unchecked Sendable {
    let refusedFile: String
    private let lock = NSLock()
    private var held = true
    private var attempts: [String: Int] = [:]
    private let inProcess = InProcessSlideDecoder()

    init(refusing file: String) { refusedFile = file }

    func picture(for request: SlideRequest, frameStorage: PixelStorage?) throws(SlideError) -> DecodedSlide {
        let refuse = lock.withLock { () -> Bool in
            attempts[request.file, default: 0] += 1
            return request.file == refusedFile && held
        }
        if refuse { throw SlideError(file: request.file, reason: .isolated("decoding stopped: it took longer than 30 s")) }
        return try inProcess.picture(for: request, frameStorage: frameStorage)
    }

    func releaseScratch() {}

    var refusedPictures: [RefusedPicture] {
        lock.withLock {
            held ? [RefusedPicture(file: refusedFile, reason: "decoding stopped: it took longer than 30 s", lastRefused: 1_800_000_000_000_000_000,
                                   refusals: 1, heldBack: true)] : []
        }
    }

    func retry(file: String?) -> Int {
        lock.withLock {
            guard held, file == nil || file == refusedFile else { return 0 }
            held = false
            return 1
        }
    }

    func attempts(of file: String) -> Int { lock.withLock { attempts[file, default: 0] } }
}

@Suite("API: refused pictures")
struct RefusedPicturesAPITests {
    @Test("the status lists a held-back picture; a retry forgets it and the loop decodes the failed slide again")
    func retry() async throws {
        let decoder = RefusingDecoder(refusing: "green.jpg")
        let harness = try ServerHarness(yaml: "slides: [green.jpg, red.jpg]\ninterval: 10m\n", decoder: decoder)
        defer { harness.close() }
        #expect(await harness.eventually { decoder.attempts(of: "green.jpg") == 1 })
        try await harness.application().test(.router) { client in
            let status = try await client.execute(uri: "/api/v1/status", method: .get, headers: authorized()) { json($0.body) }
            let refused = try #require(status["refusedPictures"] as? [[String: Any]])
            #expect(refused.count == 1)
            #expect(refused.first?["file"] as? String == "green.jpg")
            #expect(refused.first?["heldBack"] as? Bool == true)
            #expect(refused.first?["lastRefused"] as? String == "2027-01-15T08:00:00Z")

            let (unknown, _) = try await sendJSON(client, .post, "/api/v1/pictures/retry", #"{"files": "green.jpg"}"#)
            #expect(unknown == .unprocessableContent)
            let (other, otherAnswer) = try await sendJSON(client, .post, "/api/v1/pictures/retry", #"{"file": "blue.jpg"}"#)
            #expect(other == .accepted && otherAnswer["retried"] as? Int == 0)
            let (accepted, answer) = try await sendJSON(client, .post, "/api/v1/pictures/retry", #"{"file": "green.jpg"}"#)
            #expect(accepted == .accepted)
            #expect(answer["retried"] as? Int == 1)
        }
        // The failed slide is decoded again, this time to a picture.
        #expect(await harness.eventually { decoder.attempts(of: "green.jpg") >= 2 })
        try await harness.application().test(.router) { client in
            let status = try await client.execute(uri: "/api/v1/status", method: .get, headers: authorized()) { json($0.body) }
            #expect((status["refusedPictures"] as? [Any])?.isEmpty == true)
            let withoutToken = try await client.execute(uri: "/api/v1/pictures/retry", method: .post) { $0.status }
            #expect(withoutToken == .unauthorized)
        }
    }
}
