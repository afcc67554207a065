import Foundation
import Testing
import VitrineUpdate

/// The order is dpkg's: each pair is checked against `dpkg --compare-versions` too, where dpkg is installed.
@Suite struct PackageVersionTests {
    /// Each pair in ascending order.
    static let ascending: [(String, String)] = [
        ("0.1.0", "0.1.0+repotest1"), ("1.2~rc1", "1.2"), ("1.9", "1.10"), ("1.0", "1:0.1"), ("1.0-1", "1.0-2"),
        ("1.0-9", "1.0-10"), ("1.0~~", "1.0~"), ("1.0a", "1.0b"), ("1.0", "1.0a"), ("1.0a", "1.0+"), ("2.0-1", "2.0.1-1"),
        ("1.2.3-0ubuntu1", "1.2.3-1"), ("0.1.0+repotest1", "0.1.0+repotest2"), ("1.0+b9", "1.0+b10"),
    ]

    @Test(arguments: ascending)
    func ordersAsDpkg(_ pair: (String, String)) throws {
        let lower = try #require(PackageVersion(pair.0))
        let higher = try #require(PackageVersion(pair.1))
        #expect(lower < higher)
        #expect(!(higher < lower))
        #expect(lower != higher)
        if FileManager.default.isExecutableFile(atPath: "/usr/bin/dpkg") {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/dpkg")
            process.arguments = ["--compare-versions", pair.0, "lt", pair.1]
            try process.run()
            process.waitUntilExit()
            #expect(process.terminationStatus == 0, "dpkg disagrees: \(pair.0) lt \(pair.1)")
        }
    }

    @Test func equalAsDpkgHasThem() throws {
        #expect(try #require(PackageVersion("1.0")) == #require(PackageVersion("1.0-0")))
        #expect(try #require(PackageVersion("0:1.0")) == #require(PackageVersion("1.0")))
        #expect(try #require(PackageVersion("1.01")) == #require(PackageVersion("1.1")))
    }

    @Test func refusesWhatIsNotAVersion() {
        for text in ["", "v1.0", "1.0 beta", "x:1.0", "1.0-", "1_0", "-1"] {
            #expect(PackageVersion(text) == nil, "\(text)")
        }
    }
}
