/// How a file's items derive from each other, checked before libheif sees
/// the file: a derived item (`grid`, `iovl`, `iden`) names its inputs by
/// `dimg` references, and an auxiliary image (alpha, depth) names the image
/// it belongs to by `auxl`. libheif 1.15 decodes an item by decoding its
/// inputs and its alpha image first, recursively, and checks neither for a
/// cycle: a grid naming itself as its own tile hung its decoder (threads piled
/// up until the process aborted), and two images each the alpha of the other
/// recurse without end.
///
/// Refused, over every item of the file: a `dimg` input that is not an image
/// libheif decodes (`imageTypes`); a cycle through `dimg` and `auxl`;
/// a chain of more than `maxDerivationLevels` items by `dimg` (real files
/// have grid -> tiles, at most overlay -> grid -> tiles); an auxiliary image
/// that has an auxiliary image of its own.
enum HEIFDerivations {
    /// The most items one `dimg` chain may have, its coded items included:
    /// an identity over an overlay over a grid over its tiles.
    static let maxDerivationLevels = 4

    /// The item types libheif 1.15 makes images of (`item_type_is_image`,
    /// less `vvc1`, which it cannot decode). A derived item's input of any
    /// other type, or with no `infe`, is not among libheif's images, and
    /// decoding the derived item fails an assertion (`imginfo`) that aborts the
    /// process: FuzzHEIFDifferential found an `iden` over an `hvc0` item.
    static let imageTypes: Set<String> = ["hvc1", "av01", "grid", "iden", "iovl"]

    /// Checks the derivations of `meta`'s items.
    ///
    /// - Throws: `HEIFError.corrupt` for a cycle (the items named), and
    ///   `.uncheckable` for a chain deeper than allowed.
    static func check(_ meta: HEIFMetaBoxes) throws(HEIFError) {
        func name(_ item: UInt32) -> String { "item \(item) (\(meta.types[item] ?? "no type"))" }
        // Edges from an item to what decoding it decodes: its inputs, and its auxiliary images.
        var next: [UInt32: [(item: UInt32, reference: String)]] = [:]
        for (from, inputs) in meta.references["dimg"] ?? [:] {
            if let input = inputs.first(where: { !imageTypes.contains(meta.types[$0] ?? "") }) {
                throw .corrupt("\(name(from)) derives from \(name(input)), which is not an image libheif decodes "
                    + "(\(imageTypes.sorted().joined(separator: ", "))) (Vitrine's box reader)")
            }
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
        // Depth-first, every item once: `levels[item]` is the longest `dimg` chain from it, in items.
        // The chain so far (`above`, in items) is checked on the way down too, so that a chain of
        // thousands of items is refused at its fifth, not after recursing through all of them.
        var levels: [UInt32: Int] = [:]
        var path: [UInt32] = []
        var onPath: Set<UInt32> = []
        func tooDeep(_ item: UInt32, _ levels: Int) -> HEIFError {
            .uncheckable("\(name(item)) is derived through \(levels) levels of `dimg` references, more than \(maxDerivationLevels)")
        }
        func visit(_ item: UInt32, above: Int) throws(HEIFError) -> Int {
            if let known = levels[item] {
                guard above + known <= maxDerivationLevels else { throw tooDeep(path.first ?? item, above + known) }
                return known
            }
            guard onPath.insert(item).inserted else {
                let cycle = path.drop { $0 != item }.map(name) + [name(item)]
                throw .corrupt("\(name(item)) derives from itself: \(cycle.joined(separator: " -> ")) (Vitrine's box reader)")
            }
            guard above + 1 <= maxDerivationLevels else { throw tooDeep(path.first ?? item, above + 1) }
            path.append(item)
            var deepest = 1
            for edge in next[item] ?? [] {
                let dimg = edge.reference == "dimg"
                // An auxiliary image is decoded beside its image, at its level: its chain counts from there.
                let below = try visit(edge.item, above: dimg ? above + 1 : above)
                deepest = max(deepest, dimg ? below + 1 : below)
            }
            path.removeLast()
            onPath.remove(item)
            levels[item] = deepest
            return deepest
        }
        for item in next.keys.sorted() { _ = try visit(item, above: 0) }
    }
}
