#!/usr/bin/env bash
# Builds Vitrine's Debian packages (`make deb`) from a staged tree with
# dpkg-deb, without debhelper or a debian/ source directory:
#
#   .build-deb/vitrine_VERSION_ARCH.deb          the kiosk
#   .build-deb/vitrine-dbgsym_VERSION_ARCH.deb   its debug symbols
#
#   deploy/debian/build-deb.sh [--binary PATH] [--arch ARCH] [--no-lintian]
#   deploy/debian/build-deb.sh --print-deb        the path of the first, nothing built
#   ARCH=arm64 deploy/debian/build-deb.sh          .build-deb/arm64/…_arm64.deb (`make deb ARCH=arm64`)
#
# VERSION is VitrineVersion.current (Sources/VitrineCore/Version.swift),
# ARCH `dpkg --print-architecture` (or --arch, or $ARCH, for a binary built for
# another). For arm64 without --binary, the binary is the cross-build of `make
# arm64` (deploy/arm64/build.sh, .build-arm64, made here when missing), the
# Depends come from the trixie arm64 packages of its sysroot, and the man page
# and completions from the binary itself under qemu-aarch64 (docs/raspberry-pi.md).
# The binary is the static-stdlib release build the VM, image and soak tests
# use (.build-static), built here unless --binary names one. As dh_strip does,
# its debug information goes to /usr/lib/debug/.build-id/xx/yyyy.debug in the
# dbgsym package, and the shipped copy is stripped with a .gnu_debuglink to it.
#
# What goes in, and from where (docs/deployment.md has the table):
#   the unit and the udev rule: deploy/systemd/vitrine.service and the rule in
#     deploy/install.sh, with /usr/local made /usr (one source for both);
#   the starter configuration: install.sh's own starter_config function;
#   the demo pictures: deploy/demo/images;
#   the pictures `vitrine doctor` times the decoding of: deploy/doctor (made
#     once by its make-pictures.py and kept, so every package carries the same bytes);
#   the maintainer scripts, control template, copyright and lintian overrides:
#     this folder;
#   the man page: swift-argument-parser's generate-manual (the tool behind its
#     GenerateManual plugin) run on the binary; the shell completions: the
#     binary's --generate-completion-script.
# Then lintian checks both packages; errors and warnings fail the build.
#
# Environment: OBJCOPY, STRIP (default objcopy, strip: binutils for ARCH),
# VITRINE_DEB_HELP_BINARY (a binary this machine can run, for the man page and
# completions when --binary is for another architecture), SOURCE_DATE_EPOCH
# (default: the last commit's time; file times and the changelog date).
set -euo pipefail
umask 022

here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
out=$repo/.build-deb

die() { echo "build-deb.sh: $*" >&2; exit 1; }
say() { echo "build-deb.sh: $*"; }

binary=""
arch=""
lintian=yes
print_only=no
while [ $# -gt 0 ]; do
    case "$1" in
        --binary) [ $# -ge 2 ] || die "--binary needs a path"; binary=$(readlink -f "$2"); shift 2 ;;
        --arch) [ $# -ge 2 ] || die "--arch needs an architecture"; arch=$2; shift 2 ;;
        --no-lintian) lintian=no; shift ;;
        --print-deb) print_only=yes; shift ;;
        -h|--help) sed -n '2,/^set -euo/{/^set -euo/d;s/^# \{0,1\}//;p}' "$0"; exit 0 ;;
        *) die "unknown option $1 (see --help)" ;;
    esac
done

# The one place the version is written is the Swift source: read it from there.
version=$(sed -n 's/^[[:space:]]*public static let current = "\([^"]*\)".*$/\1/p' "$repo/Sources/VitrineCore/Version.swift")
# A native package's version (no Debian revision, so no hyphen): lintian and
# dpkg would take a hyphen for one.
[[ $version =~ ^[0-9][A-Za-z0-9.+~]*$ ]] || die "cannot use '$version' from Sources/VitrineCore/Version.swift as a Debian version"
# `make deb ARCH=arm64`: make exports a variable set on its command line to the
# recipe's environment, and the deb target itself is shared with amd64.
arch=${arch:-${ARCH:-$(dpkg --print-architecture)}}
# Another architecture's packages and staging go in a folder of their own, so
# that building one never removes or overwrites the other's.
[ "$arch" = "$(dpkg --print-architecture)" ] || out=$repo/.build-deb/$arch
deb=$out/vitrine_${version}_${arch}.deb
dbgsym_deb=$out/vitrine-dbgsym_${version}_${arch}.deb
if [ "$print_only" = yes ]; then echo "$deb"; exit 0; fi

# The arm64 cross-build (make arm64): its binary, its SwiftPM checkouts, the
# trixie packages of its sysroot (for dpkg-shlibdeps), and a way to run it here.
scratch=$repo/.build-static
shlibs_packages=""
if [ "$arch" = arm64 ] && [ "$(dpkg --print-architecture)" != arm64 ]; then
    scratch=$repo/.build-arm64
    shlibs_packages=$scratch/sysroot-packages.txt
    OBJCOPY=${OBJCOPY:-aarch64-linux-gnu-objcopy}
    STRIP=${STRIP:-aarch64-linux-gnu-strip}
    if [ -z "$binary" ]; then
        say "deploy/arm64/build.sh (make arm64)"
        "$repo/deploy/arm64/build.sh"
        binary=$scratch/release/vitrine
    fi
    if [ -z "${VITRINE_DEB_HELP_BINARY:-}" ]; then
        # generate-manual runs the binary it is given by path: a script that
        # runs it under qemu-aarch64-static (qemu-user-static), with the sysroot's glibc and libraries.
        mkdir -p "$out"
        # shellcheck disable=SC2016  # "$@" is the wrapper's own
        printf '#!/bin/sh\nexec qemu-aarch64-static -L %s %s "$@"\n' \
            "$scratch/swift-sdks/vitrine-aarch64.artifactbundle/sdk/sysroot" "$binary" > "$out/vitrine-arm64-qemu"
        chmod 0755 "$out/vitrine-arm64-qemu"
        VITRINE_DEB_HELP_BINARY=$out/vitrine-arm64-qemu
    fi
fi
OBJCOPY=${OBJCOPY:-objcopy}
STRIP=${STRIP:-strip}
for tool in dpkg-deb dpkg-shlibdeps "$OBJCOPY" "$STRIP" readelf chrpath gzip; do
    command -v "$tool" > /dev/null || die "$tool is missing (make deb installs dpkg-dev binutils chrpath; for arm64 also binutils-aarch64-linux-gnu)"
done
if [ -z "${SOURCE_DATE_EPOCH:-}" ]; then
    SOURCE_DATE_EPOCH=$(git -C "$repo" log -1 --format=%ct 2> /dev/null || stat -c %Y "$repo/Sources/VitrineCore/Version.swift")
fi
export SOURCE_DATE_EPOCH
mkdir -p "$out"

# --- the binary ---------------------------------------------------------------

if [ -z "$binary" ]; then
    # Exactly the build vm-test, image-test and soak make, so .build-static is
    # shared and nothing is rebuilt with other flags.
    say "swift build -c release --static-swift-stdlib --scratch-path .build-static --product vitrine"
    (cd "$repo" && swift build -c release --static-swift-stdlib --scratch-path .build-static --product vitrine)
    binary=$repo/.build-static/release/vitrine
    # The video helper, which links FFmpeg so that the kiosk does not: the same
    # scratch and flags, so only its own two modules are compiled.
    say "swift build -c release --static-swift-stdlib --scratch-path .build-static --product vitrine-video"
    (cd "$repo" && swift build -c release --static-swift-stdlib --scratch-path .build-static --product vitrine-video)
fi
# The video helper goes beside the binary it was built with (the arm64
# cross-build makes both). A binary given with --binary and no helper beside
# it makes a package that plays pictures, where a video slide says the helper
# is not installed.
video_helper=$(dirname "$binary")/vitrine-video
[ -x "$video_helper" ] || video_helper=""
video_build_id=""
[ -f "$binary" ] || die "no binary at $binary"
# The linker the Swift driver uses (gold here) writes a GNU build id by default;
# the debug file is named after it, as Debian's dbgsym packages are.
build_id=$(readelf -n "$binary" | sed -n 's/^[[:space:]]*Build ID: \([0-9a-f]*\)$/\1/p')
[ ${#build_id} -ge 8 ] || die "$binary has no GNU build id: add -Xlinker --build-id to every build of .build-static"
# Full Foundation drags in ICU, whose data alone is 34 MB: the binary would no
# longer fit the size budget (docs/architecture.md, "FoundationEssentials, never
# Foundation"). A new dependency or trait that imports Foundation shows here.
# shellcheck disable=SC2016  # "$s" is Swift's mangling prefix ($s10Foundation…), not a variable.
if readelf -W --syms "$binary" | grep -q -E ' (icudt[0-9]+_dat|\$s10Foundation[0-9])'; then
    die "$binary links full Foundation or ICU; find the import Foundation (ours or a package's) that brought it in"
fi

stage=$out/stage/vitrine
dbgstage=$out/stage/vitrine-dbgsym
rm -rf "$out/stage"
mkdir -p "$stage/DEBIAN" "$dbgstage/DEBIAN"
# Directories 0755 whatever the umask of whoever cloned: dpkg-deb keeps modes.
install -d -m 0755 "$stage/usr/bin"

# ship PROGRAM BUILD_ID PATH: as dh_strip, the debug sections (compressed)
# into the dbgsym tree's .build-id file first, then the stripped copy at PATH
# in the package, then the link from the copy to the .debug file (its name
# and CRC), which gdb follows; gdb also finds it by build id alone.
ship() {
    local program=$1 id=$2 target=$stage$3
    local debug_file=$dbgstage/usr/lib/debug/.build-id/${id:0:2}/${id:2}.debug
    install -d -m 0755 "$(dirname "$debug_file")" "$(dirname "$target")"
    "$OBJCOPY" --only-keep-debug --compress-debug-sections "$program" "$debug_file"
    chmod 0644 "$debug_file"
    install -m 0755 "$program" "$target"
    "$STRIP" --remove-section=.comment --remove-section=.note "$target"
    # SwiftPM links with RUNPATH=$ORIGIN to find Swift's shared libraries beside
    # the binary. With the standard library linked in there are none, and in
    # /usr/bin it would only make the loader search /usr/bin for libraries.
    chrpath -d "$target" > /dev/null
    "$OBJCOPY" --add-gnu-debuglink="$debug_file" "$target"
}
ship "$binary" "$build_id" /usr/bin/vitrine
debug_file=$dbgstage/usr/lib/debug/.build-id/${build_id:0:2}/${build_id:2}.debug
help_binary=${VITRINE_DEB_HELP_BINARY:-$stage/usr/bin/vitrine}
"$help_binary" --version > /dev/null || die "cannot run $help_binary (another architecture? set VITRINE_DEB_HELP_BINARY)"
if [ -n "$video_helper" ]; then
    # /usr/libexec/vitrine: a program for vitrine to start, not for people
    # (SandboxedVideoOpener.installedHelper).
    video_build_id=$(readelf -n "$video_helper" | sed -n 's/^[[:space:]]*Build ID: \([0-9a-f]*\)$/\1/p')
    [ ${#video_build_id} -ge 8 ] || die "$video_helper has no GNU build id"
    ship "$video_helper" "$video_build_id" /usr/libexec/vitrine/vitrine-video
else
    say "no vitrine-video beside $binary: the package plays pictures only"
fi

# --- the unit, the udev rule, the starter configuration -------------------------

install -d -m 0755 "$stage/lib/systemd/system" "$stage/lib/udev/rules.d" "$stage/usr/share/vitrine/images"
# The unit install.sh installs, for /usr instead of /usr/local. Units and udev
# rules from packages go under /lib on Debian 12 (dh_installsystemd and
# dh_installudev do the same); /etc is the administrator's.
sed -e 's|/usr/local/bin/vitrine|/usr/bin/vitrine|g' \
    -e 's|/usr/local/share/doc/vitrine|/usr/share/doc/vitrine|g' \
    -e 's|^\(Documentation=.*\)$|\1 man:vitrine(1)|' \
    -e 's|Installed by deploy/install.sh;|Installed by the vitrine package;|' \
    -e 's|deploy/install.sh adds (/etc/udev/rules.d/70-vitrine.rules)|the package installs (/lib/udev/rules.d/70-vitrine.rules)|' \
    "$repo/deploy/systemd/vitrine.service" > "$stage/lib/systemd/system/vitrine.service"
if grep -n '/usr/local\|install\.sh' "$stage/lib/systemd/system/vitrine.service"; then
    die "deploy/systemd/vitrine.service changed: the lines above still name /usr/local or install.sh; update the sed above"
fi
# The reboot path and the service it starts (POST /api/v1/reboot), likewise, and
# the update path and its root helper (docs/updates.md) and the card's setup
# (docs/card-setup.md), which only the package has.
for unit in vitrine-reboot.path vitrine-reboot.service vitrine-update.path vitrine-update.service vitrine-setup.service; do
    sed -e 's|/usr/local/share/doc/vitrine|/usr/share/doc/vitrine|g' \
        -e 's|Installed by deploy/install.sh;|Installed by the vitrine package;|' \
        "$repo/deploy/systemd/$unit" > "$stage/lib/systemd/system/$unit"
    if grep -n '/usr/local\|install\.sh' "$stage/lib/systemd/system/$unit"; then
        die "deploy/systemd/$unit changed: the lines above still name /usr/local or install.sh; update the sed above"
    fi
done
# The rule is written by install.sh; take it from there rather than keep a copy.
mapfile -t rule < <(grep -o "SUBSYSTEM==[^']*" "$repo/deploy/install.sh")
[ ${#rule[@]} -eq 1 ] || die "expected exactly one udev rule (SUBSYSTEM==...) in deploy/install.sh, found ${#rule[@]}"
printf '%s\n' \
    "# Installed by the vitrine package: DRM cards become systemd device units" \
    "# (dev-dri-card0.device), which vitrine.service waits for." \
    "${rule[0]}" > "$stage/lib/udev/rules.d/70-vitrine.rules"
# The console announced over mDNS (docs/deployment.md, "Finding a kiosk on the
# network"): avahi-daemon reads /etc/avahi/services only, so it is a conffile.
install -D -m 0644 "$repo/deploy/avahi/vitrine.service" "$stage/etc/avahi/services/vitrine.service"
echo /etc/avahi/services/vitrine.service > "$stage/DEBIAN/conffiles"
# The starter configuration is install.sh's starter_config function, run here
# (install.sh cannot be sourced: it acts at once). The postinst copies it to
# /etc/vitrine/vitrine.yaml where there is none, as install.sh does.
starter=$(sed -n '/^starter_config() {$/,/^}$/p' "$repo/deploy/install.sh")
[ -n "$starter" ] || die "no starter_config function in deploy/install.sh"
(
    eval "$starter"   # defines starter_config, which reads $repo
    starter_config
) | sed -e 's|/usr/local/share/doc/vitrine|/usr/share/doc/vitrine|g' \
        -e 's|Written by deploy/install.sh as|Written by the vitrine package as|' \
        -e 's|the installer never overwrites it|the package never overwrites it|' \
    > "$stage/usr/share/vitrine/vitrine.yaml"
install -m 0644 "$repo"/deploy/demo/images/*.jpg "$stage/usr/share/vitrine/images/"
# A 12-megapixel JPEG and a 48-megapixel HEIC (about 1.8 MB together): a board
# has no encoder to make them, and its doctor looks for them here (DoctorPicture).
install -d -m 0755 "$stage/usr/share/vitrine/doctor"
install -m 0644 "$repo/deploy/doctor/photo-12mp.jpg" "$repo/deploy/doctor/photo-48mp.heic" "$stage/usr/share/vitrine/doctor/"
# Next to its pictures as in /etc/vitrine, so the check covers the paths too.
# Under qemu-user (another architecture's help binary) the decoding helpers
# cannot install their seccomp filter and would refuse every picture: the
# package's own demo pictures are decoded in process there (docs/threat-model.md).
sandbox=on
[ "$help_binary" = "$stage/usr/bin/vitrine" ] || sandbox=off
VITRINE_DECODE_SANDBOX=$sandbox "$help_binary" check-config "$stage/usr/share/vitrine/vitrine.yaml" > "$out/stage/check-config.log" 2>&1 \
    || { cat "$out/stage/check-config.log" >&2; die "the starter configuration is not valid"; }

# --- documentation, man page, completions ---------------------------------------

doc=$stage/usr/share/doc/vitrine
install -d -m 0755 "$doc/api"
install -m 0644 "$repo/README.md" "$repo"/docs/*.md "$doc/"
install -m 0644 "$repo/docs/api/openapi.yaml" "$doc/api/"
install -m 0644 "$here/copyright" "$doc/copyright"
# Every Swift package linked in needs its paragraph in the copyright file.
if [ -f "$repo/Package.resolved" ]; then
    missing=$(sed -n 's/^ *"identity" : "\([^"]*\)".*/\1/p' "$repo/Package.resolved" | while read -r identity; do
        grep -qi "^Files: .build-static/checkouts/$identity/\*$" "$here/copyright" || echo "$identity"
    done)
    [ -z "$missing" ] || die "deploy/debian/copyright has no paragraph for: $missing"
fi
# The package is native (the version has no Debian revision): its one
# changelog is changelog.gz, not changelog.Debian.gz (Debian policy 12.7).
commit=$(git -C "$repo" rev-parse --short=12 HEAD 2> /dev/null || echo unknown)
maintainer=$(sed -n 's/^Maintainer: //p' "$here/control.in")
{
    echo "vitrine ($version) $([ "$arch" = arm64 ] && echo trixie || echo bookworm); urgency=medium"
    echo
    echo "  * Built from the Vitrine sources at commit $commit with make deb."
    echo "    The project's history is its git log."
    echo
    echo " -- $maintainer  $(date -u -R -d "@$SOURCE_DATE_EPOCH")"
} | gzip -9n > "$doc/changelog.gz"

# The man page, from the binary's --experimental-dump-help, by the same tool
# swift-argument-parser's GenerateManual plugin runs. The plugin itself is not
# used: `swift package plugin generate-manual` first builds every product in
# its own configuration (not --static-swift-stdlib), a second full release
# build, then runs this tool. The tool is built once from the pinned checkout,
# in debug (20 s), and kept in .build-deb/tools.
parser_src=$scratch/checkouts/swift-argument-parser
[ -f "$parser_src/Package.swift" ] || die "no $parser_src: build ${scratch#"$repo"/} first"
parser_revision=$(git -C "$parser_src" rev-parse HEAD 2> /dev/null || sed -n '/swift-argument-parser/,/}/s/.*"revision" : "\([0-9a-f]*\)".*/\1/p' "$repo/Package.resolved")
tools=$out/tools
if [ "$(cat "$tools/argument-parser.revision" 2> /dev/null)" != "$parser_revision" ] || [ ! -x "$tools/build/debug/generate-manual" ]; then
    # A copy, so that nothing is written into SwiftPM's checkout.
    rm -rf "$tools"
    mkdir -p "$tools"
    cp -r "$parser_src" "$tools/swift-argument-parser"
    rm -rf "$tools/swift-argument-parser/.git"
    say "building generate-manual (swift-argument-parser $parser_revision)"
    swift build --package-path "$tools/swift-argument-parser" --scratch-path "$tools/build" --product generate-manual > "$tools/build.log" 2>&1 \
        || { tail -20 "$tools/build.log" >&2; die "could not build generate-manual"; }
    echo "$parser_revision" > "$tools/argument-parser.revision"
fi
rm -rf "$out/stage/man"
mkdir -p "$out/stage/man"
"$tools/build/debug/generate-manual" "$help_binary" --date "$(date -u -d "@$SOURCE_DATE_EPOCH" +%F)" \
    --authors "Vitrine maintainers" --output-directory "$out/stage/man" > /dev/null
[ -f "$out/stage/man/vitrine.1" ] || die "generate-manual wrote no vitrine.1"
install -d -m 0755 "$stage/usr/share/man/man1"
gzip -9n < "$out/stage/man/vitrine.1" > "$stage/usr/share/man/man1/vitrine.1.gz"
chmod 0644 "$stage/usr/share/man/man1/vitrine.1.gz"

install -d -m 0755 "$stage/usr/share/bash-completion/completions" "$stage/usr/share/zsh/vendor-completions" \
    "$stage/usr/share/fish/vendor_completions.d"
# bash-completion sources its files: the generated #!/bin/bash line is dropped (lintian).
"$help_binary" --generate-completion-script bash | sed '1{/^#!/d}' > "$stage/usr/share/bash-completion/completions/vitrine"
"$help_binary" --generate-completion-script zsh > "$stage/usr/share/zsh/vendor-completions/_vitrine"
"$help_binary" --generate-completion-script fish > "$stage/usr/share/fish/vendor_completions.d/vitrine.fish"

install -d -m 0755 "$stage/usr/share/lintian/overrides"
if [ -n "$video_helper" ]; then
    install -m 0644 "$here/vitrine.lintian-overrides" "$stage/usr/share/lintian/overrides/vitrine"
else
    # A package without the video helper (arm64) must not carry its overrides: lintian warns of an override that matches nothing.
    grep -v 'usr/libexec/vitrine/vitrine-video' "$here/vitrine.lintian-overrides" > "$stage/usr/share/lintian/overrides/vitrine"
    chmod 0644 "$stage/usr/share/lintian/overrides/vitrine"
fi

# --- control files --------------------------------------------------------------

for script in postinst prerm postrm; do
    install -m 0755 "$here/$script" "$stage/DEBIAN/$script"
done

# Depends: what dpkg-shlibdeps reads off the binary's NEEDED libraries, plus
# adduser (the postinst's), fonts-dejavu-core (the notice's font) and tzdata (a schedule's time zone is read from its
# TZif files; it is priority required but not Essential, and a minbase
# debootstrap leaves it out). init-system-helpers (deb-systemd-helper) and
# util-linux (the unit's setterm) are Essential. dpkg-shlibdeps wants to run
# in a source tree: give it a minimal one. dpkg-architecture sets the host
# architecture, so that for another ARCH it looks at that architecture's
# libraries (installed with dpkg --add-architecture; docs/deployment.md).
shlib=$out/stage/shlibdeps
mkdir -p "$shlib/debian"
printf 'Source: vitrine\n\nPackage: vitrine\nArchitecture: any\n' > "$shlib/debian/control"
# For the arm64 cross-build the libraries are not installed here: each of the
# sysroot's trixie packages is unpacked with its control files (shlibs,
# symbols) and named with -S, which dpkg-shlibdeps searches first, so the
# versions are trixie's (libc6 (>= 2.38), libpng16-16t64, ...).
search=()
if [ -n "$shlibs_packages" ]; then
    [ -f "$shlibs_packages" ] || die "no $shlibs_packages: run make arm64 first"
    while read -r name _ path; do
        case "$name" in swiftlang|libswiftlang) continue ;; esac  # the static runtime is linked in
        mkdir -p "$shlib/packages/$name"
        dpkg-deb -x "$path" "$shlib/packages/$name"
        dpkg-deb -e "$path" "$shlib/packages/$name/DEBIAN"
        search+=("-S$shlib/packages/$name")
    done < "$shlibs_packages"
fi
executables=(-e"$stage/usr/bin/vitrine")
# The video helper's FFmpeg libraries (libavcodec, libavformat, libswscale) join the package's Depends.
[ -z "$video_helper" ] || executables+=(-e"$stage/usr/libexec/vitrine/vitrine-video")
depends=$(cd "$shlib" && dpkg-architecture -a"$arch" -c dpkg-shlibdeps -O "${search[@]}" "${executables[@]}" 2> "$out/stage/shlibdeps.log" \
    | sed -n 's/^shlibs:Depends=//p')
[ -n "$depends" ] || { cat "$out/stage/shlibdeps.log" >&2; die "dpkg-shlibdeps found no dependencies"; }
# fonts-dejavu-core: the font the kiosk draws its address in (showAddress; FontFace.standardPath).
depends="adduser, tzdata, fonts-dejavu-core, $depends"
# libheif 1.17 and later (Debian 13: the arm64 package's sysroot) decodes HEVC
# and AV1 through plugins it loads at run time, which dpkg-shlibdeps cannot
# see: they are named here. Debian 12's libheif1 (1.15) links its decoders.
if [ -n "$shlibs_packages" ]; then
    heif_version=$(awk '$1 == "libheif1" { print $2 }' "$shlibs_packages")
else
    # shellcheck disable=SC2016  # ${Version} is dpkg-query's field
    heif_version=$(dpkg-query -W -f='${Version}' libheif1 2> /dev/null || true)
fi
if [ -n "$heif_version" ] && dpkg --compare-versions "$heif_version" ge 1.17; then
    depends="$depends, libheif-plugin-libde265, libheif-plugin-dav1d"
fi

# Installed-Size as dpkg-gencontrol computes it: KiB per file, rounded up,
# and 1 for each directory or symlink.
installed_size() {
    find "$1" -path "$1/DEBIAN" -prune -o -mindepth 1 \( -type f -printf '%s\n' -o -printf '1024\n' \) \
        | awk '{ total += int(($1 + 1023) / 1024) } END { print total }'
}

# The symlink dh gives dbgsym packages: their copyright is the package's own.
install -d -m 0755 "$dbgstage/usr/share/doc"
ln -s vitrine "$dbgstage/usr/share/doc/vitrine-dbgsym"

# Reproducible: every file dated SOURCE_DATE_EPOCH (dpkg-deb also clamps to it).
find "$stage" "$dbgstage" -exec touch --no-dereference -d "@$SOURCE_DATE_EPOCH" {} +

sed -e '/^#/d' -e "s|@VERSION@|$version|" -e "s|@ARCH@|$arch|" -e "s|@DEPENDS@|$depends|" \
    -e "s|@INSTALLED_SIZE@|$(installed_size "$stage")|" "$here/control.in" > "$stage/DEBIAN/control"
# What Debian's automatic -dbgsym packages carry (dh_gencontrol writes the same fields).
cat > "$dbgstage/DEBIAN/control" <<EOF
Package: vitrine-dbgsym
Source: vitrine
Version: $version
Auto-Built-Package: debug-symbols
Architecture: $arch
Maintainer: $maintainer
Installed-Size: $(installed_size "$dbgstage")
Depends: vitrine (= $version)
Section: debug
Priority: optional
Description: debug symbols for vitrine
Build-Ids: $build_id${video_build_id:+ $video_build_id}
EOF

for tree in "$stage" "$dbgstage"; do
    (cd "$tree" && find . -path ./DEBIAN -prune -o -type f -printf '%P\0' | sort -z | xargs -0 md5sum) > "$tree/DEBIAN/md5sums"
    chmod 0644 "$tree/DEBIAN/md5sums" "$tree/DEBIAN/control"
    [ ! -f "$tree/DEBIAN/conffiles" ] || chmod 0644 "$tree/DEBIAN/conffiles"
    touch -d "@$SOURCE_DATE_EPOCH" "$tree/DEBIAN"/*
done

rm -f "$out"/vitrine_*.deb "$out"/vitrine-dbgsym_*.deb
# --root-owner-group: every file root:root in the package, whoever builds.
# xz takes most of the time here (about 45 s and 20 s on one core of a 2-core
# VM) and dpkg-deb compresses with one thread: the two run side by side.
dpkg-deb --root-owner-group --build "$dbgstage" "$dbgsym_deb" > /dev/null &
dbgsym_build=$!
dpkg-deb --root-owner-group --build "$stage" "$deb" > /dev/null
wait "$dbgsym_build" || die "dpkg-deb failed on $dbgstage"

# --- checks and figures ---------------------------------------------------------

if [ "$lintian" = yes ]; then
    command -v lintian > /dev/null || die "lintian is missing (make deb installs it)"
    say "lintian $(basename "$deb") $(basename "$dbgsym_deb")"
    # -I shows the informational tags too; only errors and warnings fail.
    lintian -I --fail-on error,warning "$deb" "$dbgsym_deb"
fi

kib() { echo "$(( ($1 + 1023) / 1024 )) KiB"; }
say "built $deb"
say "built $dbgsym_deb"
echo "  Depends: $(sed -n 's/^Depends: //p' "$stage/DEBIAN/control")"
echo "  installed size of vitrine:        $(sed -n 's/^Installed-Size: //p' "$stage/DEBIAN/control") KiB"
echo "  installed size of vitrine-dbgsym: $(sed -n 's/^Installed-Size: //p' "$dbgstage/DEBIAN/control") KiB"
echo "  unstripped binary:  $(kib "$(stat -c %s "$binary")") ($binary)"
echo "  /usr/bin/vitrine:   $(kib "$(stat -c %s "$stage/usr/bin/vitrine")") (stripped)"
echo "  ${debug_file#"$dbgstage"}: $(kib "$(stat -c %s "$debug_file")") (compressed debug sections)"
echo "  $(basename "$deb"): $(kib "$(stat -c %s "$deb")")"
echo "  $(basename "$dbgsym_deb"): $(kib "$(stat -c %s "$dbgsym_deb")")"
