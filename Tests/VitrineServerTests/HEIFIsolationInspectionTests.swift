import Testing
import VitrineCore
import VitrineRuntime
@testable import VitrineURLImages

/// Issue 39's HEIF isolation findings through the server's inspection, which
/// uploads, pushes and `vitrine check-config` (`ConfiguredPictures`, depth
/// `.decode`) use: each file is refused from Vitrine's own reading of its
/// boxes, before libheif decodes anything (Tests/VitrineHEIFTests/Fixtures).
@Suite("HEIF isolation findings refused by the server's inspection")
struct HEIFIsolationInspectionTests {
    @Test("the overlay bomb in two iloc extents is over the pixel limit by its overlay's canvas")
    func twoExtents() throws {
        let bytes = try PictureFormat.heif.fixture("overlay-bomb-two-extents.heic")
        do throws(ImageInspection.Failure) {
            let image = try ImageInspection.inspect(bytes, maxPixels: 100_000_000)
            Issue.record("inspected as \(image)")
        } catch {
            guard case .overPixelLimit(let words) = error else { Issue.record("\(error)"); return }
            #expect(words.contains("24757x26758"), "\(words)")
        }
    }

    @Test("boxes Vitrine cannot read exactly, and derivation loops, are undecodable with the reason named", arguments: [
        ("overlay-bomb-offset-size-2.heic", "offset_size is 2"),
        ("overlay-bomb-iloc-v1-index-size.heic", "version 1 with index_size 4"),
        ("grid-self-reference.heic", "item 2 (grid) derives from itself"),
        ("alpha-auxl-loop.heic", "an auxiliary image with an auxiliary image of its own"),
    ])
    func refused(name: String, words: String) throws {
        let bytes = try PictureFormat.heif.fixture(name)
        do throws(ImageInspection.Failure) {
            let image = try ImageInspection.inspect(bytes, maxPixels: 100_000_000)
            Issue.record("\(name) inspected as \(image)")
        } catch {
            guard case .undecodable(let reason) = error else { Issue.record("\(name): \(error)"); return }
            #expect(reason.contains(words), "\(reason)")
        }
        // A push's header check says the same.
        let problem = ConfiguredPictures.headerProblem(bytes, maxPixels: 100_000_000)
        #expect(problem?.contains(words) == true, "\(String(describing: problem))")
    }
}
