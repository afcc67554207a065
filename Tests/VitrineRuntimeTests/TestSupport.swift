import Testing
import Foundation
import VitrineConfig
import VitrineCore
import VitrineJPEG

let repositoryRoot: String = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().path

let demoConfigPath = repositoryRoot + "/deploy/demo/vitrine.yaml"

/// A fresh directory under /tmp, removed by the caller with `removeTemporaryDirectory`.
func makeTemporaryDirectory() -> String {
    let path = NSTemporaryDirectory() + "vitrine-test-" + UUID().uuidString
    try! FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    return path
}

func removeTemporaryDirectory(_ path: String) {
    try? FileManager.default.removeItem(atPath: path)
}

/// Writes a solid-colour JPEG of `size` and returns its path.
@discardableResult
func writeJPEG(_ path: String, size: PixelSize, color: RGBAColor, orientation: ExifOrientation = .up) throws -> String {
    let image = PixelImage(size: size, fill: color)
    let bytes = try JPEGEncoder().encode(image, quality: 95, orientation: orientation)
    #expect(FileManager.default.createFile(atPath: path, contents: Data(bytes)))
    return path
}

/// Writes a JPEG of `size` whose pixel at (x, y) is `color(x, y)` and returns its path.
@discardableResult
func writeJPEG(_ path: String, size: PixelSize, _ color: (Int, Int) -> RGBAColor) throws -> String {
    let image = PixelImage(size: size)
    for y in 0..<size.height {
        for x in 0..<size.width { image[x, y] = color(x, y).xrgb }
    }
    #expect(FileManager.default.createFile(atPath: path, contents: Data(try JPEGEncoder().encode(image, quality: 95))))
    return path
}

/// Red on the left half, blue on the right.
func splitRedBlue(width: Int) -> (Int, Int) -> RGBAColor {
    { x, _ in x < width / 2 ? RGBAColor(red: 220, green: 20, blue: 20) : RGBAColor(red: 20, green: 20, blue: 220) }
}

func channels(_ pixel: UInt32) -> (r: Int, g: Int, b: Int) {
    (Int((pixel >> 16) & 0xFF), Int((pixel >> 8) & 0xFF), Int(pixel & 0xFF))
}

func isClose(_ pixel: UInt32, to color: RGBAColor, tolerance: Int = 3) -> Bool {
    let (r, g, b) = channels(pixel)
    return abs(r - Int(color.red)) <= tolerance && abs(g - Int(color.green)) <= tolerance && abs(b - Int(color.blue)) <= tolerance
}

/// (largest channel difference, mean absolute channel difference)
func difference(_ a: PixelImage, _ b: PixelImage) -> (max: Int, mean: Double) {
    precondition(a.size == b.size)
    var worst = 0, total = 0
    for i in 0..<a.size.pixelCount {
        let x = channels(a.pixels[i]), y = channels(b.pixels[i])
        let d = [abs(x.r - y.r), abs(x.g - y.g), abs(x.b - y.b)]
        worst = max(worst, d.max()!)
        total += d.reduce(0, +)
    }
    return (worst, Double(total) / Double(a.size.pixelCount * 3))
}
