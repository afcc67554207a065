// swift-tools-version:6.1
// Vitrine: a touchscreen image-carousel kiosk for embedded Linux, drawing through KMS/DRM.
//
// Layout (see docs/architecture.md):
//   C*            system-library targets, one per C library, found through pkg-config
//   Vitrine<Lib>  the one Swift module that wraps each C library; no C type leaves it
//   VitrineCore   the pure engine: carousel, scheduler, transitions, layout, indicator, compositor
//   VitrineConfig the configuration model, its YAML/JSON reader and validation
//   VitrineRuntime the kiosk: event loop, display backends, image pipeline
//   VitrineAPI, VitrineState, VitrineURLImages, VitrineChannelFollower, VitrinePlays, VitrineClient,
//   VitrineHTTP   the remote side, a module a concern: wire types, the state directory, URL slides,
//                 the channel follower, proof of play, the CLI's client, the HTTP server
//   VitrineAssembly the composition root: one kiosk's object graph
//   vitrine       the command-line tool
import PackageDescription

// swift-system's typed Errno, which every error carrying an errno uses (VitrineSystem).
let systemPackage: Target.Dependency = .product(name: "SystemPackage", package: "swift-system")

// What a module that makes outbound HTTP requests (URL slides, a channel, plays uploads) links.
let outboundHTTP: [Target.Dependency] = [
    .product(name: "AsyncHTTPClient", package: "async-http-client"),
    .product(name: "NIOCore", package: "swift-nio"), .product(name: "NIOPosix", package: "swift-nio"),
    .product(name: "NIOHTTP1", package: "swift-nio"), .product(name: "Logging", package: "swift-log"),
]

let package = Package(
    name: "Vitrine",
    platforms: [.macOS(.v14)],
    products: [
        .executable(name: "vitrine", targets: ["vitrine"]),
        .executable(name: "vitrine-video", targets: ["vitrine-video"]),
        // For the fuzz targets in Fuzz/ (a package of their own, depending on this one by path).
        .library(name: "VitrineCore", targets: ["VitrineCore"]),
        .library(name: "VitrineConfig", targets: ["VitrineConfig"]),
        .library(name: "VitrineJPEG", targets: ["VitrineJPEG"]),
        .library(name: "VitrinePNG", targets: ["VitrinePNG"]),
        .library(name: "VitrineWebP", targets: ["VitrineWebP"]),
        .library(name: "VitrineGIF", targets: ["VitrineGIF"]),
        .library(name: "VitrineHEIF", targets: ["VitrineHEIF"]),
        .library(name: "VitrineEvdev", targets: ["VitrineEvdev"]),
        .library(name: "VitrineFFmpeg", targets: ["VitrineFFmpeg"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        // The remote API. No traits: swift-configuration support is left out (Vitrine has its own
        // configuration), and so is FullFoundation, which would link Foundation and its ICU data
        // (34 MB) for URL-encoded forms the API does not take.
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1", traits: []),
        .package(url: "https://github.com/swift-server/async-http-client", from: "1.37.0"),
        .package(url: "https://github.com/apple/swift-crypto", "3.12.3"..<"5.0.0"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-nio-ssl", from: "2.37.6"),
        // HTTPRequestPart, for the server's channel handlers (the body read timeout); Hummingbird depends on it too.
        .package(url: "https://github.com/apple/swift-nio-extras", from: "1.35.2"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        // Latency and frame-pacing statistics in fixed memory, however long the kiosk runs.
        .package(url: "https://github.com/HdrHistogram/hdrhistogram-swift", from: "0.2.0"),
        // Errno, typed: VitrineSystem's errors carry it (SwiftNIO already depends on swift-system).
        .package(url: "https://github.com/apple/swift-system", from: "1.4.0"),
    ],
    targets: [
        // MARK: C at the leaves
        .systemLibrary(
            name: "CLibDRM", path: "Sources/CLibDRM", pkgConfig: "libdrm",
            providers: [.apt(["libdrm-dev"])]),
        .systemLibrary(
            name: "CTurboJPEG", path: "Sources/CTurboJPEG", pkgConfig: "libturbojpeg",
            providers: [.apt(["libturbojpeg0-dev"])]),
        // libjpeg's own decompressor, for decoding: its shim runs each decode inside setjmp.
        .systemLibrary(
            name: "CLibJPEG", path: "Sources/CLibJPEG", pkgConfig: "libjpeg",
            providers: [.apt(["libjpeg62-turbo-dev"])]),
        .systemLibrary(
            name: "CLibEvdev", path: "Sources/CLibEvdev", pkgConfig: "libevdev",
            providers: [.apt(["libevdev-dev"])]),
        // Header-only: epoll, timerfd, eventfd and signalfd, which Glibc's module omits.
        .systemLibrary(name: "CLinuxEvents", path: "Sources/CLinuxEvents"),
        // Not a library wrapper: the compositor's row copies and blends with
        // non-temporal stores, which Swift cannot ask for (docs/architecture.md).
        .target(name: "CPixelRows", path: "Sources/CPixelRows"),
        // Header-only: the kernel's HDMI-CEC interface (linux/cec.h), the one cec-ctl uses.
        .systemLibrary(name: "CLinuxCEC", path: "Sources/CLinuxCEC"),
        .systemLibrary(
            name: "CLibPNG", path: "Sources/CLibPNG", pkgConfig: "libpng",
            providers: [.apt(["libpng-dev"])]),
        // libwebp's decoder, and libwebpdemux (same source package) for an animation's first frame and the EXIF chunk.
        .systemLibrary(
            name: "CLibWebP", path: "Sources/CLibWebP", pkgConfig: "libwebp",
            providers: [.apt(["libwebp-dev"])]),
        // giflib's decoder (DGifOpen with a memory reader, record by record). Debian's
        // libgif-dev has no pkg-config file: the module map links libgif itself.
        .systemLibrary(
            name: "CLibGIF", path: "Sources/CLibGIF",
            providers: [.apt(["libgif-dev"])]),
        // libheif's reader and decoder, for HEIF/HEIC stills (HEVC through libde265, AV1 through dav1d):
        // Debian 12's libheif1 links its codecs; Debian 13's loads them as plugins
        // (libheif-plugin-libde265, libheif-plugin-dav1d).
        .systemLibrary(
            name: "CLibHEIF", path: "Sources/CLibHEIF", pkgConfig: "libheif",
            providers: [.apt(["libheif-dev"])]),
        // Header-only: prctl, clone flags and posix_spawn's closefrom, which Glibc's module omits (VitrineSandbox).
        .systemLibrary(name: "CLinuxProcess", path: "Sources/CLinuxProcess"),
        // libseccomp, for the decoding helpers' system-call filter (VitrineSeccomp).
        .systemLibrary(
            name: "CLibSeccomp", path: "Sources/CLibSeccomp", pkgConfig: "libseccomp",
            providers: [.apt(["libseccomp-dev"])]),
        // FFmpeg's demuxers, decoders and scaler, for video slides (VitrineFFmpeg). Linked only by the
        // sandboxed video helper, `vitrine-video`, never by the kiosk itself.
        .systemLibrary(
            name: "CLibAV", path: "Sources/CLibAV", pkgConfig: "libavformat",
            providers: [.apt(["libavformat-dev", "libavcodec-dev", "libavutil-dev", "libswscale-dev"])]),
        // FreeType, for the notice text the kiosk draws over its slides (VitrineFreeType).
        .systemLibrary(
            name: "CLibFreeType", path: "Sources/CLibFreeType", pkgConfig: "freetype2",
            providers: [.apt(["libfreetype-dev"])]),
        // libyaml's event parser, for the configuration: the tree is composed in VitrineYAML.
        .systemLibrary(
            name: "CLibYAML", path: "Sources/CLibYAML", pkgConfig: "yaml-0.1",
            providers: [.apt(["libyaml-dev"])]),

        // MARK: One Swift wrapper per C library
        .target(name: "VitrineJPEG", dependencies: ["CTurboJPEG", "CLibJPEG", "VitrineCore", systemPackage]),
        .target(name: "VitrinePNG", dependencies: ["CLibPNG", "VitrineCore"]),
        .target(name: "VitrineWebP", dependencies: ["CLibWebP", "VitrineCore"]),
        .target(name: "VitrineGIF", dependencies: ["CLibGIF", "VitrineCore"]),
        .target(name: "VitrineHEIF", dependencies: ["CLibHEIF", "VitrineCore"]),
        .target(name: "VitrineFreeType", dependencies: ["CLibFreeType", "VitrineCore"]),
        .target(name: "VitrineDRM", dependencies: ["CLibDRM", "VitrineCore", "VitrineSystem", systemPackage]),
        .target(name: "VitrineEvdev", dependencies: ["CLibEvdev", "VitrineCore", "VitrineSystem", systemPackage]),
        .target(name: "VitrineCEC", dependencies: ["CLinuxCEC", "VitrineCore", "VitrineSystem", systemPackage]),
        .target(name: "VitrineYAML", dependencies: ["CLibYAML"]),
        .target(name: "VitrineSeccomp", dependencies: ["CLibSeccomp", systemPackage]),
        .target(name: "VitrineFFmpeg", dependencies: ["CLibAV", "VitrineCore"]),

        // MARK: Pure core and configuration
        .target(name: "VitrineCore", dependencies: ["CPixelRows"]),
        .target(
            name: "VitrineConfig",
            dependencies: ["VitrineCore", "VitrineYAML"]),

        // MARK: System calls: typed Errno, SystemError, FileIO and the seam tests inject faults through
        .target(
            name: "VitrineSystem",
            dependencies: ["VitrineCore", systemPackage]),

        // MARK: The fleet channel: signed manifests, signify keys, publishing (docs/fleet.md)
        .target(
            name: "VitrineChannel",
            dependencies: ["VitrineCore", "VitrineConfig", "VitrineSystem", .product(name: "Crypto", package: "swift-crypto")]),

        // MARK: The kiosk
        .target(
            name: "VitrineRuntime",
            dependencies: [
                "VitrineCore", "VitrineSystem", "VitrineConfig", "VitrineJPEG", "VitrinePNG", "VitrineWebP", "VitrineGIF", "VitrineHEIF", "VitrineDRM", "VitrineEvdev", "VitrineCEC", "CLinuxEvents",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "Histogram", package: "hdrhistogram-swift"),
                systemPackage,
            ]),
        // MARK: The remote side, one module a concern (docs/architecture.md, "The remote side")
        // The API's wire types: request and answer bodies, events, asset ids. No server in it:
        // the CLI client and the routes both speak it.
        .target(
            name: "VitrineAPI",
            dependencies: ["VitrineCore", "VitrineConfig", "VitrineRuntime", "VitrineSystem", "VitrineChannel", .product(name: "Crypto", package: "swift-crypto")]),
        // The state directory: pushed configurations, assets, overrides, the token.
        .target(
            name: "VitrineState",
            dependencies: ["VitrineAPI", "VitrineCore", "VitrineConfig", "VitrineRuntime", "VitrineSystem", "VitrineChannel",
                           .product(name: "Logging", package: "swift-log"), systemPackage,
                           .product(name: "NIOCore", package: "swift-nio"), .product(name: "NIOPosix", package: "swift-nio")]),
        // URL slides: downloads kept in the asset store, and the pictures a configuration names, checked.
        .target(
            name: "VitrineURLImages",
            dependencies: ["VitrineAPI", "VitrineState", "VitrineCore", "VitrineConfig", "VitrineRuntime", "VitrineSystem",
                           "VitrineJPEG", "VitrinePNG", "VitrineWebP", "VitrineGIF", "VitrineHEIF"] + outboundHTTP),
        // Following a fleet channel: polling, verifying, applying (the pure state is VitrineChannel's).
        .target(
            name: "VitrineChannelFollower",
            dependencies: ["VitrineAPI", "VitrineState", "VitrineChannel", "VitrineUpdate", "VitrineCore", "VitrineConfig", "VitrineRuntime", "VitrineSystem",
                           .product(name: "Crypto", package: "swift-crypto")] + outboundHTTP),
        // Updates over the air: the root helper that installs the version a channel names from the
        // signed apt repository, watches it and rolls back (pure core in Core/, the board in Helper/).
        .target(
            name: "VitrineUpdate",
            dependencies: ["VitrineChannel", "VitrineCore", "VitrineConfig", "VitrineSystem"]),
        // Setup from the SD card: the files on the boot partition taken at boot (pure core in Core/,
        // the root side in Helper/).
        .target(
            name: "VitrineCardSetup",
            dependencies: ["VitrineChannel", "VitrineConfig", "VitrineCore", "VitrineSystem", "VitrineYAML"]),
        // Proof of play: the signed log of slides shown, and its upload.
        .target(
            name: "VitrinePlays",
            dependencies: ["VitrineAPI", "VitrineChannel", "VitrineCore", "VitrineConfig", "VitrineRuntime", "VitrineSystem",
                           .product(name: "Crypto", package: "swift-crypto")] + outboundHTTP),
        // `vitrine push`, `override`, `outputs`: the API's client.
        .target(
            name: "VitrineClient",
            dependencies: ["VitrineAPI", "VitrineCore", "VitrineConfig", "VitrineRuntime", "VitrineSystem",
                           .product(name: "AsyncHTTPClient", package: "async-http-client"),
                           .product(name: "NIOCore", package: "swift-nio"), .product(name: "NIOHTTP1", package: "swift-nio"),
                           .product(name: "NIOSSL", package: "swift-nio-ssl")]),
        // The HTTP server: routes, authentication, connection bounds, the console, metrics.
        .target(
            name: "VitrineHTTP",
            dependencies: [
                "VitrineAPI", "VitrineState", "VitrineURLImages", "VitrineChannelFollower", "VitrinePlays",
                "VitrineRuntime", "VitrineSystem", "VitrineConfig", "VitrineCore", "VitrineChannel", "VitrinePNG", "VitrineDoctor", "VitrineUpdate",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "HummingbirdTLS", package: "hummingbird"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Logging", package: "swift-log"),
                systemPackage,
            ],
            // The web console's files, compiled into the binary as byte arrays (ConsoleFiles).
            resources: [
                .embedInCode("Console/Web/index.html"), .embedInCode("Console/Web/console.css"),
                .embedInCode("Console/Web/console.js"),
            ]),
        // The composition root: a kiosk's object graph, built in one place (`KioskAssembly`).
        .target(
            name: "VitrineAssembly",
            dependencies: [
                "VitrineHTTP", "VitrineAPI", "VitrineState", "VitrineURLImages", "VitrineChannelFollower", "VitrinePlays",
                "VitrineRuntime", "VitrineConfig", "VitrineCore", "VitrineChannel", "VitrineDRM", "VitrineDoctor", "VitrineSystem", "VitrineUpdate",
                "VitrineFreeType",
                .product(name: "Logging", package: "swift-log"),
            ]),
        // `vitrine doctor`: one report on a board (docs/architecture.md, "Doctor").
        .target(
            name: "VitrineDoctor",
            dependencies: ["VitrineDRM", "VitrineCEC", "VitrineEvdev", "VitrineRuntime", "VitrineConfig", "VitrineCore", "VitrineSystem",
                           "VitrineUpdate", "VitrineSandbox"]),
        // MARK: Decoding in sandboxed helper processes (docs/architecture.md, "Decoding sandbox")
        .target(
            name: "VitrineSandbox",
            dependencies: ["VitrineSandboxHelper", "VitrineRuntime", "VitrineCore", "VitrineSystem", "VitrineHEIF", "VitrinePNG", "VitrineSeccomp",
                           "CLinuxProcess", systemPackage]),
        // What runs inside a confined helper and nothing else: confinement, the wire and the video
        // helper's loop. `vitrine-video` links it without VitrineRuntime (HTTP, images, DRM).
        .target(
            name: "VitrineSandboxHelper",
            dependencies: ["VitrineCore", "VitrineSystem", "VitrineSeccomp", "CLinuxProcess", systemPackage]),
        .executableTarget(
            name: "vitrine",
            dependencies: [
                "VitrineAssembly", "VitrineHTTP", "VitrineAPI", "VitrineState", "VitrineURLImages", "VitrineClient",
                "VitrineRuntime", "VitrineSystem", "VitrineConfig", "VitrineCore", "VitrineJPEG", "VitrinePNG", "VitrineWebP", "VitrineGIF", "VitrineHEIF", "VitrineDRM",
                "VitrineEvdev", "VitrineChannel", "VitrineSandbox", "VitrineSandboxHelper", "VitrineDoctor", "VitrineUpdate", "VitrineCardSetup", "VitrineFreeType",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ]),
        // The sandboxed video decoder the kiosk starts for each video slide (docs/architecture.md,
        // "Video"): a program of its own so that FFmpeg is never mapped into the kiosk.
        .executableTarget(
            name: "vitrine-video",
            dependencies: ["VitrineSandboxHelper", "VitrineFFmpeg", "VitrineCore"]),

        // MARK: Tests
        .testTarget(name: "VitrineCoreTests", dependencies: ["VitrineCore"]),
        .testTarget(name: "VitrineYAMLTests", dependencies: ["VitrineYAML"]),
        .testTarget(
            name: "VitrineSystemTests",
            dependencies: ["VitrineSystem", systemPackage]),
        .testTarget(name: "VitrineConfigTests", dependencies: ["VitrineConfig", "VitrineCore"]),
        .testTarget(
            name: "VitrineChannelTests",
            dependencies: ["VitrineChannel", "VitrineConfig", "VitrineCore", "VitrineSystem", systemPackage,
                           .product(name: "Crypto", package: "swift-crypto")]),
        .testTarget(name: "VitrineJPEGTests", dependencies: ["VitrineJPEG", "VitrineCore"], exclude: ["Damaged"]),
        // Fixture folders, reference tools and pixel comparison for the picture-format tests.
        .target(name: "PictureTestSupport", dependencies: ["VitrineCore"], path: "Tests/PictureTestSupport"),
        .testTarget(name: "VitrineWebPTests", dependencies: ["VitrineWebP", "VitrineCore", "PictureTestSupport"], exclude: ["Fixtures"]),
        .testTarget(name: "VitrineGIFTests", dependencies: ["VitrineGIF", "VitrineCore", "PictureTestSupport"], exclude: ["Fixtures"]),
        // VitrinePNG and libpng read heif-convert's PNGs, the reference the fixtures are compared with.
        .testTarget(name: "VitrineHEIFTests", dependencies: ["VitrineHEIF", "VitrineCore", "VitrinePNG", "CLibPNG", "PictureTestSupport"], exclude: ["Fixtures"]),
        .testTarget(name: "VitrineFFmpegTests", dependencies: ["VitrineFFmpeg", "VitrineCore", "PictureTestSupport"]),
        .testTarget(name: "VitrineFreeTypeTests", dependencies: ["VitrineFreeType", "VitrineCore"]),
        .testTarget(name: "VitrineCECTests", dependencies: ["VitrineCEC", "VitrineCore", systemPackage]),
        .testTarget(name: "VitrineDRMTests", dependencies: ["VitrineDRM", "VitrineCore", "CLibDRM"]),
        .testTarget(
            name: "VitrineEvdevTests", dependencies: ["VitrineEvdev", "VitrineCore", "VitrineConfig", "VitrineRuntime"],
            exclude: ["Recordings"]),
        .testTarget(
            name: "VitrineRuntimeTests",
            dependencies: [
                "VitrineRuntime", "VitrineSystem", "VitrineConfig", "VitrineCore", "VitrinePNG", "VitrineJPEG", "VitrineWebP", "VitrineGIF", "VitrineHEIF",
                "PictureTestSupport", "ServerTestSupport", systemPackage,
            ],
            exclude: ["Golden", "PNGFixtures", "AnimationFixtures"]),
        .testTarget(
            name: "VitrineSandboxTests",
            dependencies: ["VitrineSandbox", "VitrineSandboxHelper", "VitrineRuntime", "VitrineCore", "VitrineConfig", "VitrineSystem", "VitrineSeccomp",
                           "PictureTestSupport", .product(name: "Logging", package: "swift-log"),
                           .product(name: "Crypto", package: "swift-crypto")]),
        // The remote side's modules, each tested alone where it can be (the routes through the assembly below).
        .target(name: "ServerTestSupport", dependencies: [.product(name: "Logging", package: "swift-log")], path: "Tests/ServerTestSupport"),
        .testTarget(
            name: "VitrineStateTests",
            dependencies: ["VitrineState", "VitrineAPI", "VitrineRuntime", "VitrineConfig", "VitrineCore", "VitrineSystem", "ServerTestSupport",
                           systemPackage, .product(name: "Logging", package: "swift-log")]),
        .testTarget(
            name: "VitrineChannelFollowerTests",
            dependencies: ["VitrineChannelFollower", "VitrineChannel", "VitrineRuntime", "VitrineConfig", "VitrineCore", "VitrineState",
                           "VitrineSystem", "ServerTestSupport", systemPackage, .product(name: "Logging", package: "swift-log")]),
        .testTarget(name: "VitrineDoctorTests", dependencies: ["VitrineDoctor", "VitrineCore", "VitrineConfig", "VitrineSystem", "VitrineUpdate",
                                                               "VitrineSandbox", "VitrineRuntime"]),
        .testTarget(
            name: "VitrineCardSetupTests",
            dependencies: ["VitrineCardSetup", "VitrineChannel", "VitrineConfig", "VitrineCore", "VitrineSystem"]),
        .testTarget(
            name: "VitrineUpdateTests",
            dependencies: ["VitrineUpdate", "VitrineChannel", "VitrineConfig", "VitrineCore", "VitrineSystem"]),
        .testTarget(
            name: "VitrineAssemblyTests",
            dependencies: ["VitrineAssembly", "VitrineRuntime", "VitrineDRM", "VitrineConfig", "VitrineCore", "ServerTestSupport",
                           .product(name: "Logging", package: "swift-log")]),
        .testTarget(
            name: "VitrineServerTests",
            dependencies: [
                "VitrineAssembly", "VitrineHTTP", "VitrineAPI", "VitrineState", "VitrineURLImages", "VitrineChannelFollower", "VitrinePlays", "VitrineClient",
                "VitrineSandbox", "VitrineSandboxHelper", "PictureTestSupport",
                "VitrineRuntime", "VitrineSystem", "VitrineConfig", "VitrineCore", "VitrinePNG", "VitrineJPEG", "VitrineWebP", "VitrineGIF", "VitrineHEIF",
                "VitrineChannel", "VitrineYAML", "VitrineDoctor", "ServerTestSupport", systemPackage,
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
            ],
            exclude: ["Fixtures"]),
    ],
    swiftLanguageModes: [.v6]
)
