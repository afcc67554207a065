/// How a file's items derive from each other, checked before libheif sees
/// the file: a derived item (`grid`, `iovl`, `iden`) names its inputs by
/// `dimg` references, and an auxiliary image (alpha, depth) names the image
/// it belongs to by `auxl`. libheif 1.15 decodes an item by decoding its
/// inputs and its alpha image first, recursively, and checks neither for a
/// cycle: a grid naming itself as its own tile hung its decoder (threads piled
/// up until the process aborted), and two images each the alpha of the other
/// recurse without end.
///
/// Refused, over every item of the file: a cycle through `dimg` and `auxl`;
/// a chain of more than `maxDerivationLevels` items by `dimg` (real files
/// have grid -> tiles, at most overlay -> grid -> tiles); an auxiliary image
/// that has an auxiliary image of its own.
enum HEIFDerivations {
    /// The most items one `dimg` chain may have, its coded items included:
    /// an identity over an overlay over a grid over its tiles.
    static let maxDerivationLevels = 4

    /// Checks the derivations of `meta`'s items.
    ///
    /// - Throws: `HEIFError.corrupt` for a cycle (the items named), and
    ///   `.uncheckable` for a chain deeper than allowed.
    static func check(_ meta: HEIFMetaBoxes) throws(HEIFError) {
        // Edges from an item to what decoding it decodes: its inputs, and its auxiliary images.
        var next: [UInt32: [(item: UInt32, reference: String)]] = [:]
        for (from, inputs) in meta.references["dimg"] ?? [:] {
            next[from, default: []] += inputs.map { ($0, "dimg") }
        }
        var auxiliaries: Set<UInt32> = []
        for (auxiliary, masters) in meta.references["auxl"] ?? [:] {
            auxiliaries.insert(auxiliary)
            for master in masters { next[master, default: []].append((auxiliary, "auxl")) }
        }
        for (master, _) in next where auxiliaries.contains(master) {
            if let auxiliary = next[master]?.first(where: { $0.reference == "auxl" }) {
                throw .uncheckable("item \(master) is an auxiliary image with an auxiliary image of its own (item \(auxiliary.item))")
            }
        }
        func name(_ item: UInt32) -> String { "item \(item) (\(meta.types[item] ?? "no type"))" }
        // Depth-first, every item once: `levels[item]` is the longest `dimg` chain from it, in items.
        var levels: [UInt32: Int] = [:]
        var path: [UInt32] = []
        var onPath: Set<UInt32> = []
        func visit(_ item: UInt32) throws(HEIFError) -> Int {
            if let known = levels[item] { return known }
            guard onPath.insert(item).inserted else {
                let cycle = path.drop { $0 != item }.map(name) + [name(item)]
                throw .corrupt("\(name(item)) derives from itself: \(cycle.joined(separator: " -> ")) (Vitrine's box reader)")
            }
            path.append(item)
            var deepest = 1
            for edge in next[item] ?? [] {
                let below = try visit(edge.item)
                deepest = max(deepest, edge.reference == "dimg" ? below + 1 : below)
            }
            guard deepest <= maxDerivationLevels else {
                throw .uncheckable("\(name(item)) is derived through \(deepest) levels of `dimg` references, more than \(maxDerivationLevels)")
            }
            path.removeLast()
            onPath.remove(item)
            levels[item] = deepest
            return deepest
        }
        for item in next.keys.sorted() { _ = try visit(item) }
    }
}
