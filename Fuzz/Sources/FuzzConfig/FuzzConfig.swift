// libFuzzer target: configuration text (YAML, or JSON, which YAML reads too)
// through ConfigLoader, as `vitrine check-config` and a pushed configuration take it.
//
// Besides "never crash", it checks what ConfigDocument promises: a configuration
// that loads, written back out as canonical JSON, loads again to the same bytes.
import VitrineConfig

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzConfig(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let bytes = UnsafeBufferPointer(start: data, count: size)
    // Invalid UTF-8 becomes U+FFFD, as String(contentsOfFile:) would refuse it;
    // the loader itself only ever sees a String.
    let text = String(decoding: bytes, as: UTF8.self)
    // Composed once, as a push is: its sections (what the API checks), then its values.
    guard let composed = try? ConfigLoader.compose(text) else { return 0 }
    _ = composed.sections
    guard let configuration = try? composed.configuration(baseDirectory: "/fuzz") else { return 0 }
    _ = ConfigLoader.fileIssues(in: configuration)
    let json = ConfigDocument.json(configuration)
    let back: KioskConfiguration
    do {
        back = try ConfigLoader.parse(String(decoding: json, as: UTF8.self), baseDirectory: "/fuzz")
    } catch {
        fatalError("canonical JSON does not load again: \(error)\n\(String(decoding: json, as: UTF8.self))")
    }
    let again = ConfigDocument.json(back)
    if again != json {
        fatalError("canonical JSON is not stable:\n\(String(decoding: json, as: UTF8.self))\n---\n\(String(decoding: again, as: UTF8.self))")
    }
    return 0
}
