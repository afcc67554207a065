import Foundation
import Hummingbird
import HummingbirdTesting
import Testing
import VitrineCore
import VitrineDoctor

@Suite("API: the doctor's report")
struct DoctorRoutesTests {
    @Test("404 before any report, the saved report after, 500 naming the file when it is damaged, 401 without the token")
    func lastSavedReport() async throws {
        let harness = try ServerHarness()
        defer { harness.close() }
        try await harness.application().test(.router) { client in
            try await client.execute(uri: "/api/v1/doctor", method: .get, headers: authorized()) { response in
                #expect(response.status == .notFound)
                #expect((json(response.body)["error"] as? String)?.hasPrefix("no doctor report yet") == true)
            }
            let report = DoctorReport(version: "9.9.9", generatedAt: WallInstant(secondsSinceEpoch: 1_795_000_000).description, sections: [
                DoctorSection(id: "power", title: "Power", status: .warning, summary: "Under-voltage happened since boot",
                              facts: [DoctorFact("get_throttled", "0x50000")], findings: ["Under-voltage happened since boot."]),
                DoctorSection(id: "displays", title: "Displays", summary: "1 card", subsections: [
                    DoctorSection(id: "card", title: "card0 (vc4)", summary: "HDMI-A-1 connected")]),
            ])
            try Doctor.save(report, stateDirectory: harness.stateDirectory)
            try await client.execute(uri: "/api/v1/doctor", method: .get, headers: authorized()) { response in
                #expect(response.status == .ok)
                let answer = try JSONDecoder().decode(DoctorReport.self, from: Data(buffer: response.body))
                #expect(answer == report)
            }
            try await client.execute(uri: "/api/v1/doctor", method: .get) { response in
                #expect(response.status == .unauthorized)
            }
            try Array("{\"format\": 1".utf8).write(to: harness.stateDirectory + "/doctor.json")
            try await client.execute(uri: "/api/v1/doctor", method: .get, headers: authorized()) { response in
                #expect(response.status == .internalServerError)
                #expect((json(response.body)["error"] as? String)?.contains("doctor.json cannot be read as a doctor report") == true)
            }
        }
    }
}
