import ArgumentParser
import VitrineSandbox
import VitrineSandboxHelper

/// `vitrine decode-helper`: the sandboxed decoding helper, which the kiosk
/// starts itself (`DecodePool`) with its socket as descriptor 3. Not for people to run.
struct DecodeHelperCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "decode-helper",
        abstract: "The sandboxed picture decoder the kiosk starts (not for running by hand).",
        shouldDisplay: false)

    @Option(help: "Address space the helper may map above its own at start, in MiB.")
    var addressSpaceMib = HelperLimits().addressSpaceMiB

    @Option(help: "CPU seconds the helper may use in its life.")
    var cpuSeconds = HelperLimits().cpuSeconds

    func run() throws {
        DecodeHelper.serve(limits: HelperLimits(addressSpaceMiB: addressSpaceMib, cpuSeconds: cpuSeconds))
    }
}
