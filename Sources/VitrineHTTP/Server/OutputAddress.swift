import Hummingbird

/// Which output group a request addresses: the `output` query parameter of
/// the status, screenshot, control, power and override routes, a connector's name
/// (`HDMI-A-1`). Without it a request is for the kiosk as a whole, as before
/// there were several groups: the status, screenshot and power are the first
/// group's, and a command goes to every group. A name no group drives is a
/// 404 naming it and listing those there are.
struct OutputAddress {
    /// The group named; nil: the kiosk as a whole.
    let group: OutputGroupLink?

    init(_ request: Request, link: any DisplayLoopLink) throws {
        let named = request.decodedQuery.getAll("output")
        guard let name = named.first else {
            group = nil
            return
        }
        let groups = link.outputGroups
        // The same name twice is that name; two different ones are not one output.
        guard named.allSatisfy({ $0 == named[0] }),
              let found = groups.first(where: { $0.answers(to: name) }) else {
            throw Self.unknown(named, groups: groups)
        }
        group = found
    }

    /// The loop to ask: the group's, or the kiosk's whole link.
    func loop(_ link: any DisplayLoopLink) -> any DisplayLoopLink { group?.loop ?? link }

    /// The names the kiosk answers to, in group order.
    static func knownNames(_ groups: [OutputGroupLink]) -> [String] {
        var seen = Set<String>()
        return groups.flatMap { [$0.name].compactMap { $0 } + $0.connectors }.filter { seen.insert($0).inserted }
    }

    static func unknown(_ names: [String], groups: [OutputGroupLink]) -> APIError {
        // The name is the caller's: quoted, but no longer than a name can be.
        let name = APIError.quoted(names[0])
        let known = knownNames(groups)
        let asked = Set(names).count == 1 ? "no output \(name)" : "one output at a time: output is given \(Set(names).count) different ways"
        let there = known.isEmpty
            ? "this kiosk's display has no connector name (headless): leave output out"
            : "this kiosk drives \(known.joined(separator: ", "))"
        var error = APIError(.notFound, "\(asked): \(there)", issues: [.init(path: "output", message: there)])
        error.outputs = known
        return error
    }
}
