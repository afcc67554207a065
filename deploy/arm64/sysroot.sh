#!/usr/bin/env bash
# The arm64 Swift SDK for `make arm64`: a sysroot of Debian 13 (trixie) arm64
# packages plus Swift's arm64 runtime from sid, as a Swift SDK artifact bundle
# in .build-arm64/swift-sdks/vitrine-aarch64.artifactbundle.
#
#   deploy/arm64/sysroot.sh
#
# Why trixie: the binary needs the glibc it was linked against or newer, and
# trixie's (2.41) is what Raspberry Pi OS trixie has; sid's would tie it to sid.
# Why sid for the Swift runtime: it must be the compiler's own version (the
# chroot's swiftlang, deploy/arm64/toolchain.sh), and only sid has it.
#
# Nothing is installed: each .deb is downloaded by fetch-debs.py, checked
# against the SHA256 of the signed index (InRelease -> Packages.xz -> .deb),
# kept in .build-arm64-toolchain/debs (but swiftlang:arm64's, below), and unpacked with dpkg-deb. A second run
# with the same package list and Swift version does nothing.
set -euo pipefail
# shellcheck source=deploy/arm64/common.sh
. "$(dirname "$0")/common.sh"

root=$ARM64_TOOLCHAIN_DIR/root
chroot "$root" test -x /usr/bin/swift 2> /dev/null || arm64_die "no toolchain chroot: run deploy/arm64/toolchain.sh first"
# shellcheck disable=SC2016  # ${Version} is dpkg-query's field
swift_version=$(chroot "$root" dpkg-query -W -f='${Version}' swiftlang)

# What the link and the C importer need, for Package.swift's system libraries
# (libdrm, libturbojpeg, libjpeg, libevdev, libpng, libwebp with libwebpdemux, giflib,
# libheif, libyaml, libseccomp; trixie's libwebp 1.5 links libsharpyuv, and libwebp.pc requires
# libsharpyuv.pc, so both of its packages too; trixie's libheif 1.19 may link
# libsharpyuv, zlib and brotli (its uncompressed codec), whose packages are
# here for the link, while its HEVC and AV1 decoders are plugins loaded at run
# time, named in the package's Depends, not needed here) and for Swift's
# static runtime (static-stdlib-args.lnk: libstdc++, libm, libdl, libpthread,
# with crt files and libgcc from gcc's -dev package). gcc 14 is trixie's gcc.
trixie_packages=(
    libc6 libc6-dev linux-libc-dev libgcc-s1 libgcc-14-dev libstdc++6 libstdc++-14-dev
    libdrm2 libdrm-dev libturbojpeg0 libturbojpeg0-dev libjpeg62-turbo libjpeg62-turbo-dev
    libevdev2 libevdev-dev libpng16-16t64 libpng-dev zlib1g zlib1g-dev libyaml-0-2 libyaml-dev
    libwebp7 libwebpdemux2 libwebp-dev libsharpyuv0 libsharpyuv-dev
    libgif7 libgif-dev
    libheif1 libheif-dev libbrotli1 libbrotli-dev
    # FreeType, for the notice text (VitrineFreeType); its png, zlib and brotli are above, and
    # trixie's freetype2.pc also requires bzip2.pc (without it pkg-config gives no flags at all).
    libfreetype6 libfreetype-dev libbz2-1.0 libbz2-dev
    # The decoding helpers' system-call filter (VitrineSeccomp).
    libseccomp2 libseccomp-dev
    # The video helper (vitrine-video, CLibAV): FFmpeg 7.1's headers and the
    # libraries it links. libavformat.pc names libavcodec, libswresample and
    # libavutil in Requires.private, which pkg-config reads for the flags too.
    # What those libraries link in turn (codecs, TLS, XML) is not here: the
    # helper links without them (the linker does not follow a shared
    # library's own NEEDED entries here), and the package's Depends, through
    # these packages' shlibs, bring them on the board.
    libavformat61 libavformat-dev libavcodec61 libavcodec-dev libavutil59 libavutil-dev
    libswscale8 libswscale-dev libswresample5 libswresample-dev
    # Not for the link: libheif's HEVC decoder plugin, for Tests/ARM64/user-mode-test.sh,
    # which decodes a HEIF under qemu-aarch64 with this sysroot's libheif.
    libheif-plugin-libde265 libde265-0
)
sid_packages=(swiftlang libswiftlang)

bundle=$ARM64_BUILD_DIR/swift-sdks/vitrine-aarch64.artifactbundle
sdk=$bundle/sdk
sysroot=$sdk/sysroot
stamp="6 trixie ${trixie_packages[*]} sid ${sid_packages[*]} $swift_version"
if [ "$(cat "$bundle.stamp" 2> /dev/null)" = "$stamp" ] && [ -f "$sdk/swift-sdk.json" ]; then
    exit 0
fi

"$arm64_repo/deploy/dev/ensure-packages.sh" python3 gpgv debian-archive-keyring dpkg xz-utils
started=$(date +%s)
debs=$ARM64_TOOLCHAIN_DIR/debs
mkdir -p "$debs" "$ARM64_BUILD_DIR"
fetched=$ARM64_BUILD_DIR/sysroot-packages.txt
fetch() { python3 "$arm64_repo/deploy/arm64/fetch-debs.py" --mirror "$DEBIAN_MIRROR" --keyring "$DEBIAN_KEYRING" --cache "$debs" --arch arm64 "$@"; }
arm64_say "fetching and checking ${#trixie_packages[@]} trixie arm64 packages and swiftlang:arm64 $swift_version from sid"
{
    fetch --suite trixie "${trixie_packages[@]}"
    # The runtime at exactly the compiler's version: a newer sid swiftlang:arm64
    # than the chroot's swiftlang (or the other way round) would not link.
    fetch --suite sid --version "swiftlang=$swift_version" --version "libswiftlang=$swift_version" "${sid_packages[@]}"
} > "$fetched.new"
mv "$fetched.new" "$fetched"

rm -rf "$bundle" "$bundle.stamp"
mkdir -p "$sysroot"
while read -r name _ path; do
    case "$name" in
        swiftlang|libswiftlang)
            # Only the target's libraries and modules: swiftlang:arm64 is 500 MB,
            # almost all of it the arm64 compiler, which is never run here.
            # lib/swift* is lib/swift and lib/swift_static (libswiftlang has only
            # the first); their clang links point to lib/clang/N, the headers of
            # the compiler's clang, which the C importer needs for the target.
            wanted=('./usr/libexec/swift/lib/swift*')
            [ "$name" = swiftlang ] && wanted+=('./usr/libexec/swift/lib/clang/*')
            dpkg-deb --fsys-tarfile "$path" | tar -x -C "$sysroot" --wildcards "${wanted[@]}" \
                --exclude='./usr/libexec/swift/lib/swift/host/*' --exclude='./usr/libexec/swift/lib/swift/embedded/*'
            # Nor is the 485 MB .deb kept: what was wanted of it is in the
            # sysroot, which is made again only when the stamp changes, and
            # then fetch-debs.py downloads it again.
            if [ "$name" = swiftlang ]; then rm -f "$path"; fi
            ;;
        *) dpkg-deb -x "$path" "$sysroot" ;;
    esac
done < "$fetched"
# glibc's linker scripts (libc.so, libm.so) name /lib/...: with the merged /usr
# of trixie, /lib is a link to usr/lib, which the linker resolves in the sysroot.
for dir in lib bin sbin; do [ -e "$sysroot/$dir" ] || ln -s "usr/$dir" "$sysroot/$dir"; done
# Debian keeps Swift's resources in /usr/libexec/swift/lib; the driver, linking
# with --static-swift-stdlib, looks for swiftrt.o and the static libraries
# under the SDK's usr/lib/swift_static whatever swift-sdk.json says, so the
# resources are linked where a toolchain from swift.org has them.
ln -s ../libexec/swift/lib/swift "$sysroot/usr/lib/swift"
ln -s ../libexec/swift/lib/swift_static "$sysroot/usr/lib/swift_static"
# Absolute symlinks would point into the build machine's own /usr: make them relative.
find "$sysroot" -type l -lname '/*' -print0 | while IFS= read -r -d '' link; do
    target=$(readlink "$link")
    ln -sfn "$(realpath -m --relative-to="$(dirname "$link")" "$sysroot$target")" "$link"
done

# The Swift SDK bundle (SE-0387). The toolset links with lld, the linker that
# cross-links for any target (the chroot's gold and bfd are for amd64 only), and
# asks it for a GNU build id, which the package's debug symbols are named after
# (lld, unlike gold, writes none by default).
cat > "$bundle/info.json" <<JSON
{
  "schemaVersion": "1.0",
  "artifacts": {
    "vitrine-aarch64": {
      "type": "swiftSDK",
      "version": "$swift_version",
      "variants": [{ "path": "sdk" }]
    }
  }
}
JSON
cat > "$sdk/swift-sdk.json" <<'JSON'
{
  "schemaVersion": "4.0",
  "targetTriples": {
    "aarch64-unknown-linux-gnu": {
      "sdkRootPath": "sysroot",
      "swiftResourcesPath": "sysroot/usr/lib/swift",
      "swiftStaticResourcesPath": "sysroot/usr/lib/swift_static",
      "toolsetPaths": ["toolset.json"]
    }
  }
}
JSON
cat > "$sdk/toolset.json" <<'JSON'
{
  "schemaVersion": "1.0",
  "swiftCompiler": { "extraCLIOptions": ["-use-ld=lld", "-Xlinker", "--build-id=sha1"] }
}
JSON
echo "$stamp" > "$bundle.stamp"
arm64_say "Swift SDK ready in $(( $(date +%s) - started )) s: $sdk ($(du -sm "$sysroot" | cut -f1) MB)"
