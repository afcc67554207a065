import Foundation
import Hummingbird
import HummingbirdTesting
import NIOCore
import Testing
import VitrineCore

/// The board's health in the status and `/metrics`: null and absent before
/// the first reading, then this machine's power and storage as the doctor
/// reads them (power is `unavailable` on a PC).
@Suite("API: board health")
struct BoardHealthAPITests {
    @Test func theStatusAndMetricsCarryTheLastReading() async throws {
        let harness = try ServerHarness()
        defer { harness.close() }
        try await harness.application().test(.router) { client in
            try await client.execute(uri: "/api/v1/status", method: .get, headers: authorized()) { response in
                let status = json(response.body)
                #expect(status.keys.contains("board") && status["board"] is NSNull, "null before the first reading")
            }
            try await client.execute(uri: "/metrics", method: .get) { response in
                #expect(!String(buffer: response.body).contains("vitrine_board_health"))
            }
            let watch = try #require(harness.api.board)
            watch.check(at: WallInstant(secondsSinceEpoch: 1_795_000_000))
            let status = try await client.execute(uri: "/api/v1/status", method: .get, headers: authorized()) { json($0.body) }
            let board = status["board"] as? [String: Any]
            let subjects = board?["subjects"] as? [[String: Any]] ?? []
            #expect(subjects.map { $0["id"] as? String } == ["power", "storage"])
            #expect(board?["checkedAt"] as? String == WallInstant(secondsSinceEpoch: 1_795_000_000).description)
            #expect(board?["status"] as? String == DoctorStatusOrder.worst(subjects.compactMap { $0["status"] as? String }))
            try await client.execute(uri: "/metrics", method: .get) { response in
                let text = String(buffer: response.body)
                #expect(text.contains("# TYPE vitrine_board_health gauge"))
                // One state is 1 for each subject, the others 0.
                for subject in ["power", "storage"] {
                    let ones = ["ok", "unavailable", "warning", "problem"].filter {
                        text.contains("vitrine_board_health{subject=\"\(subject)\",state=\"\($0)\"} 1")
                    }
                    #expect(ones.count == 1, "\(subject): \(ones)")
                }
            }
        }
    }
}

/// The doctor's statuses from best to worst, as the API spells them.
enum DoctorStatusOrder {
    static let order = ["ok", "unavailable", "warning", "problem"]
    static func worst(_ statuses: [String]) -> String {
        statuses.max { order.firstIndex(of: $0) ?? 0 < order.firstIndex(of: $1) ?? 0 } ?? "ok"
    }
}
