#!/usr/bin/env bash
# The quick proof of the arm64 cross-build (`make arm64-user-test`): the
# aarch64 binary run on this amd64 machine through qemu-aarch64-static (user
# mode, no VM), with the trixie sysroot's glibc and libraries (-L):
#   - it starts and prints its version; its ELF header says AArch64 and its
#     newest glibc symbol version is at most trixie's;
#   - `vitrine check-config` accepts the demo configuration;
#   - `vitrine render` of the demo at several instants (slides, a transition
#     in the middle, EXIF rotation, cover, a square) gives the same pixels as
#     the amd64 build renders of the same configuration, when there is one
#     ($VITRINE_X86_BINARY, or .build-static/release/vitrine, read only);
#   - the same for a 48-megapixel tiled HEIF turned by irot, which trixie's
#     libheif (with its libde265 plugin, in the sysroot) decodes by the planar route.
#
#   Tests/ARM64/user-mode-test.sh [ARM64_BINARY]   (default .build-arm64/release/vitrine)
set -euo pipefail
cd "$(dirname "$0")/../.."
deploy/dev/ensure-packages.sh qemu-user-static python3
binary=$(readlink -f "${1:-.build-arm64/release/vitrine}")
sysroot=.build-arm64/swift-sdks/vitrine-aarch64.artifactbundle/sdk/sysroot
[ -f "$binary" ] || { echo "$0: no $binary (make arm64)" >&2; exit 1; }
[ -d "$sysroot" ] || { echo "$0: no $sysroot (make arm64)" >&2; exit 1; }
work=.build-arm64/user-mode-test
rm -rf "$work"
mkdir -p "$work"
# LIBHEIF_PLUGIN_PATH: the sysroot's own plugin folder, named in the guest's
# terms; without it libheif under qemu-aarch64 found no HEVC decoder plugin.
arm64() { qemu-aarch64-static -L "$sysroot" -E LIBHEIF_PLUGIN_PATH=/usr/lib/aarch64-linux-gnu/libheif/plugins "$binary" "$@"; }
x86=${VITRINE_X86_BINARY:-.build-static/release/vitrine}

passed=0
failed=0
check() {
    local name=$1; shift
    if "$@"; then echo "PASS [arm64-user] $name"; passed=$((passed + 1)); else echo "FAIL [arm64-user] $name"; failed=$((failed + 1)); fi
}

machine=$(readelf -h "$binary" | sed -n 's/^ *Machine: *//p')
glibc=$(readelf -W -V "$binary" | grep -o 'GLIBC_[0-9.]*' | sort -uV | tail -1)
sysroot_glibc=$(readelf -W -V "$sysroot/usr/lib/aarch64-linux-gnu/libc.so.6" | grep -o 'GLIBC_[0-9.]*' | sort -uV | tail -1)
echo "  $binary: $machine, $(du -m "$binary" | cut -f1) MB, needs $glibc (the sysroot's libc has up to $sysroot_glibc)"
newest_first() { [ "$(printf '%s\n%s\n' "$1" "$2" | sort -V | tail -1)" = "$2" ]; }
aarch64_for_trixie() { [ "$machine" = AArch64 ] && newest_first "$glibc" "$sysroot_glibc"; }
check "the binary is AArch64 and needs no glibc newer than trixie's" aarch64_for_trixie
# No Swift runtime libraries to find at run time: the standard library is linked in.
static_runtime() { ! readelf -d "$binary" | grep -q 'NEEDED.*\(libswift\|libFoundation\|libdispatch\)'; }
check "no Swift shared library among its NEEDED entries (static Swift runtime)" static_runtime
version=$(arm64 --version 2>&1) || true
echo "  vitrine --version under qemu-aarch64-static: $version"
check "vitrine --version runs under qemu-aarch64-static" grep -qE '^[0-9]' <<< "$version"

mkdir -p "$work/demo"
cp -r deploy/demo/images "$work/demo/"
cp deploy/demo/vitrine.yaml "$work/demo/"
# qemu-user cannot install a seccomp filter (QEMU refuses PR_SET_SECCOMP: it would
# apply to the emulator's own host calls), so the decoding sandbox cannot start
# here and check-config refuses every picture, saying why: it never decodes
# unconfined on its own. VITRINE_DECODE_SANDBOX=off asks for decoding in process,
# which is what these checks of the arm64 decoders need. The sandbox itself runs
# on arm64 in the image test's qemu-system-aarch64 boots, on a real kernel.
config_valid() { VITRINE_DECODE_SANDBOX=off arm64 check-config "$work/demo/vitrine.yaml" > "$work/check-config.log" 2>&1; }
check "vitrine check-config accepts the demo configuration (decoding in process)" config_valid
sandbox_fails_closed() {
    ! arm64 check-config "$work/demo/vitrine.yaml" > "$work/check-config-sandbox.log" 2>&1 \
        && grep -q 'decoding is not available' "$work/check-config-sandbox.log"
}
check "without a sandbox (qemu-user), check-config refuses the pictures and says why" sandbox_fails_closed

instants=(1 5.2 11 16 21)
started=$(date +%s%N)
for at in "${instants[@]}"; do
    arm64 render --config "$work/demo/vitrine.yaml" --at "$at" --size 1280x720 --out "$work/arm64-$at.ppm" 2> /dev/null
done
echo "  ${#instants[@]} renders at 1280x720 under qemu-aarch64-static: $(( ($(date +%s%N) - started) / 1000000 )) ms"
arm64 render --config "$work/demo/vitrine.yaml" --at 1 --out "$work/arm64-demo.png" 2> /dev/null
png_written() { head -c 8 "$work/arm64-demo.png" | od -An -tx1 | grep -q "89 50 4e 47"; }
check "vitrine render writes a PNG" png_written
if [ -x "$x86" ]; then
    for at in "${instants[@]}"; do
        "$x86" render --config "$work/demo/vitrine.yaml" --at "$at" --size 1280x720 --out "$work/x86-$at.ppm" 2> /dev/null
    done
    # Identical files, or else the largest per-channel difference (the image
    # tests' tolerance is 8 on a channel, 0.5 on average), for each NAME of
    # arm64-NAME.ppm and x86-NAME.ppm.
    compare() {
        python3 - "$work" "$@" <<'PY'
import sys
work, names, worst = sys.argv[1], sys.argv[2:], 0
for at in names:
    label = f"at {at} s" if at[0].isdigit() else at
    a, b = (open(f"{work}/{kind}-{at}.ppm", "rb").read() for kind in ("arm64", "x86"))
    if a == b:
        print(f"  {label}: identical ({len(a)} bytes)")
        continue
    if len(a) != len(b):
        print(f"  {label}: different sizes")
        sys.exit(1)
    # The same header: compare the pixels.
    diffs = [abs(x - y) for x, y in zip(a, b)]
    worst = max(worst, max(diffs))
    print(f"  {label}: max channel difference {max(diffs)}, mean {sum(diffs) / len(diffs):.4f}")
sys.exit(0 if worst <= 8 else 1)
PY
    }
    compare_demo() { compare "${instants[@]}"; }
    compare_heif() { [ -f "$work/arm64-heif.ppm" ] && compare heif; }
    check "vitrine render on arm64 equals the amd64 build's render at ${#instants[@]} instants ($x86)" compare_demo
    # A phone's 48-megapixel HEIF (tiles, irot): trixie's libheif here, Debian 12's on amd64.
    mkdir -p "$work/heif"
    cp Tests/VitrineHEIFTests/Fixtures/tiled-48mp-irot.heic "$work/heif/"
    printf 'slides:\n  - path: tiled-48mp-irot.heic\n' > "$work/heif/vitrine.yaml"
    started=$(date +%s%N)
    arm64 render --config "$work/heif/vitrine.yaml" --at 1 --size 810x1080 --out "$work/arm64-heif.ppm" 2> "$work/heif.log" || cat "$work/heif.log"
    echo "  the 48-megapixel HEIF rendered under qemu-aarch64-static in $(( ($(date +%s%N) - started) / 1000000 )) ms"
    "$x86" render --config "$work/heif/vitrine.yaml" --at 1 --size 810x1080 --out "$work/x86-heif.ppm" 2> /dev/null
    check "a 48-megapixel tiled HEIF turned by irot renders on arm64 (trixie's libheif) as on amd64" compare_heif
else
    echo "  (no amd64 vitrine at $x86: the comparison with the amd64 render is skipped)"
fi
# The Advanced SIMD kernels against the portable C, bit for bit (every length,
# alignment and alpha; the filter at 2 and 3 taps), built by the chroot's clang.
check "the NEON pixel-row kernels equal the portable ones (Tests/PixelRows)" Tests/PixelRows/run.sh arm64
# The shipped binary's own paths: bench compose checks that the NEON path's
# frames and resampled slide equal the portable path's before it times them
# (--frames 0: only that; qemu-user's times say nothing about a Pi).
bench_paths() {
    arm64 bench compose --frames 0 > "$work/bench-compose.txt" 2>&1 || { cat "$work/bench-compose.txt"; return 1; }
    grep -q '^Paths on this CPU: neon, portable (neon is the one the kiosk uses)' "$work/bench-compose.txt"
}
check "vitrine bench compose runs both arm64 paths (neon, portable) with equal pixels" bench_paths
echo "arm64-user: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
