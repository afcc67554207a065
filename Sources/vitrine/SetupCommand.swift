import ArgumentParser
import Glibc
import VitrineCardSetup

/// `vitrine setup`: the setup files on the SD card's boot partition taken at
/// boot, before the kiosk starts (docs/card-setup.md). Run by
/// `vitrine-setup.service`, as root.
struct SetupCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "setup",
        abstract: "Take the setup files from the SD card's boot partition: configuration, token, time zone, Wi-Fi, channel root, factory reset (root).",
        discussion: """
            Reads vitrine.yaml, vitrine-token.txt, vitrine-timezone.txt, vitrine-wifi.txt, vitrine-channel-root.json (with its .sig) \
            and vitrine-factory-reset from the boot partition, takes each that changed since it was last taken, removes the token \
            and the Wi-Fi password from the card once read, and writes vitrine-setup-result.txt there saying what it did and what \
            it refused, and why. Run by vitrine-setup.service at each boot, before the kiosk starts.
            """)

    @Option(help: ArgumentHelp("The boot partition.", valueName: "DIR"))
    var boot = "/boot/firmware"

    func run() throws {
        guard geteuid() == 0 else { throw CommandFailure("vitrine setup writes the system's configuration: run it as root (vitrine-setup.service does)") }
        let run = CardSetupRun(boot: boot, log: { line in
            var text = "vitrine setup: " + line + "\n"
            text.withUTF8 { _ = write(2, $0.baseAddress, $0.count) }
        })
        guard let lines = run.run() else {
            print("no setup file in \(boot): nothing to do")
            return
        }
        for line in lines { print(line) }
    }
}
