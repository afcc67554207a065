#!/usr/bin/env bash
# Builds and runs Tests/PixelRows/pixel_rows_test.c: every SIMD path of the
# pixel-row kernels against the portable C, bit for bit.
#
#   Tests/PixelRows/run.sh          natively (x86-64: AVX2, SSE2; make unit-test)
#   Tests/PixelRows/run.sh arm64    for aarch64 (Advanced SIMD), compiled by the
#                                   toolchain chroot's clang against the arm64
#                                   sysroot of `make arm64`, run under qemu-aarch64
set -euo pipefail
cd "$(dirname "$0")/../.."
flags=(-O2 -std=c11 -Wall -Wextra -Werror -I Sources/CPixelRows/include)
case "${1:-native}" in
    native)
        mkdir -p .build/pixel-rows
        # The clang of the Swift toolchain, which compiles CPixelRows in the build.
        "${CC:-clang}" "${flags[@]}" -o .build/pixel-rows/pixel_rows_test Tests/PixelRows/pixel_rows_test.c
        .build/pixel-rows/pixel_rows_test
        ;;
    arm64)
        sysroot=$PWD/.build-arm64/swift-sdks/vitrine-aarch64.artifactbundle/sdk/sysroot
        [ -d "$sysroot" ] || { echo "$0: no arm64 sysroot at $sysroot (make arm64)" >&2; exit 1; }
        mkdir -p .build-arm64/pixel-rows
        # The clang that comes with sid's swiftlang, the one that compiles CPixelRows in the cross-build.
        deploy/arm64/in-toolchain.sh /usr/libexec/swift/bin/clang --target=aarch64-linux-gnu --sysroot="$sysroot" -fuse-ld=lld \
            "${flags[@]}" -o .build-arm64/pixel-rows/pixel_rows_test Tests/PixelRows/pixel_rows_test.c
        qemu-aarch64-static -L "$sysroot" .build-arm64/pixel-rows/pixel_rows_test
        ;;
    *) echo "usage: $0 [native|arm64]" >&2; exit 64 ;;
esac
