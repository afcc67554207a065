// swift-tools-version:5.4
// libFuzzer targets for Vitrine's parsers (docs/fuzzing.md). Run them with `make fuzz`.
//
// Tools version 5.4 on purpose: from 5.5 on, SwiftPM links every executable with
// `--defsym main=<Module>_main` (so tests can link executables), and a fuzz
// target, built with -parse-as-library, has no such symbol: libFuzzer's own
// main must win (swiftlang/swift-package-manager#8731). The language mode is
// therefore Swift 5 here; the modules under test keep their own (Swift 6).
//
// A package of its own, so that the root package's normal builds never see the
// sanitizer flags and `swift build` at the root never builds these. It depends on
// the root package by path and uses only the library products it exports; only
// the modules a target imports (and libyaml, through VitrineYAML) are built, never SwiftNIO or Hummingbird.
//
// Built with: swift build --package-path Fuzz --scratch-path .build-fuzz -c release \
//   -Xswiftc -sanitize=fuzzer,address -Xswiftc -parse-as-library
// Every target defines LLVMFuzzerTestOneInput; libFuzzer supplies main.
import PackageDescription

let package = Package(
    name: "VitrineFuzz",
    dependencies: [
        .package(name: "Vitrine", path: ".."),
    ],
    targets: [
        // ConfigLoader.parse: YAML and JSON text through libyaml (VitrineYAML) and validation.
        .executableTarget(
            name: "FuzzConfig",
            dependencies: [.product(name: "VitrineConfig", package: "Vitrine")]),
        // JPEGMarkerScanner.scan, then JPEGDecoder.decode with a small pixel limit and target.
        .executableTarget(
            name: "FuzzJPEG",
            dependencies: [
                .product(name: "VitrineJPEG", package: "Vitrine"),
                .product(name: "VitrineCore", package: "Vitrine"),
            ]),
        // PNGCodec.size and PNGCodec.decode with a small pixel limit.
        .executableTarget(
            name: "FuzzPNG",
            dependencies: [
                .product(name: "VitrinePNG", package: "Vitrine"),
                .product(name: "VitrineCore", package: "Vitrine"),
            ]),
        // WebPDecoder.info, then WebPDecoder.decode scaled and whole with small pixel limits (libwebp, libwebpdemux).
        .executableTarget(
            name: "FuzzWebP",
            dependencies: [
                .product(name: "VitrineWebP", package: "Vitrine"),
                .product(name: "VitrineCore", package: "Vitrine"),
            ]),
        // GIFDecoder.info, then GIFDecoder.decodeRows and decode with small pixel and byte limits (giflib).
        .executableTarget(
            name: "FuzzGIF",
            dependencies: [
                .product(name: "VitrineGIF", package: "Vitrine"),
                .product(name: "VitrineCore", package: "Vitrine"),
            ]),
        // HEIFDecoder.info, then HEIFDecoder.decodeRows and decode with small pixel and byte limits (libheif).
        .executableTarget(
            name: "FuzzHEIF",
            dependencies: [
                .product(name: "VitrineHEIF", package: "Vitrine"),
                .product(name: "VitrineCore", package: "Vitrine"),
            ]),
        // libheif's read and decode (heif_context_read_from_memory, heif_decode_image), every
        // allocation watched through AddressSanitizer's allocator hooks: FuzzHEIFDifferential's other side.
        .target(
            name: "CHEIFDifferential",
            linkerSettings: [.linkedLibrary("heif")]),
        // HEIFDecoder.info (Vitrine's box reader), then libheif on the same bytes: traps when libheif
        // allocates a block larger than the canvas Vitrine's declared-canvas check saw.
        .executableTarget(
            name: "FuzzHEIFDifferential",
            dependencies: [
                "CHEIFDifferential",
                .product(name: "VitrineHEIF", package: "Vitrine"),
                .product(name: "VitrineCore", package: "Vitrine"),
            ]),
        // VideoFileReader (FFmpeg's demuxers and decoders, as the sandboxed video helper runs them):
        // open, decode frames into a small canvas, rewind, decode again.
        .executableTarget(
            name: "FuzzVideo",
            dependencies: [
                .product(name: "VitrineFFmpeg", package: "Vitrine"),
                .product(name: "VitrineCore", package: "Vitrine"),
            ]),
        // EvemuRecording.parse, then the touch pipeline of TouchReplay.
        .executableTarget(
            name: "FuzzEvemu",
            dependencies: [
                .product(name: "VitrineEvdev", package: "Vitrine"),
                .product(name: "VitrineCore", package: "Vitrine"),
            ]),
    ]
)
