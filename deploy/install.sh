#!/usr/bin/env bash
# Installs Vitrine as a boot-to-kiosk service on Debian 12 (bookworm) or
# Raspberry Pi OS bookworm. Run as root from a checkout of the sources.
#
#   deploy/install.sh [--binary PATH] [--video-helper PATH] [--root DIR] [--no-start]
#   deploy/install.sh --uninstall [--purge] [--root DIR]
#
# Installing:
#   - the runtime packages (libdrm2, libturbojpeg0, libjpeg62-turbo, libevdev2, libpng16-16, libwebp7, libwebpdemux2, libgif7, libheif1, libyaml-0-2 and
#     the rest of what the binary links), and checks the binary with ldd;
#   - the binary at /usr/local/bin/vitrine: the one given with --binary, or else
#     built here with `swift build -c release --static-swift-stdlib` (a Swift
#     toolchain must be on PATH);
#   - the video helper at /usr/local/libexec/vitrine/vitrine-video, with the
#     FFmpeg libraries it links: the one given with --video-helper, or else the
#     vitrine-video beside the binary (built beside it when the binary is built
#     here); without one, video slides say that video is not installed, pictures
#     play on, and a helper an earlier install left is removed;
#   - the system user `vitrine`, in the groups video, input and render;
#   - a starter /etc/vitrine/vitrine.yaml and the demo pictures in
#     /etc/vitrine/images, only where there are none (yours are never touched);
#   - the pictures `vitrine doctor` times the decoding of, in
#     /usr/local/share/vitrine/doctor;
#   - the unit /usr/local/lib/systemd/system/vitrine.service, enabled, and a
#     udev rule that makes DRM cards visible to systemd (the unit waits for
#     dev-dri-card0.device);
#   - vitrine-reboot.path and vitrine-reboot.service beside it, the path
#     enabled: the board rebooted when the API asks (POST /api/v1/reboot);
#   - console blanking and the cursor off: on a Raspberry Pi, consoleblank=0
#     and vt.global_cursor_default=0 on the kernel command line
#     (/boot/firmware/cmdline.txt, from the next boot); everywhere, the unit
#     runs `setterm --blank 0 --cursor off` on tty1 before each start.
#   Then the service is (re)started, unless --no-start, --root, or this runs
#   on tty1 itself (starting the kiosk stops the getty there).
#   Running it again changes nothing and restarts nothing when nothing changed.
#
# --root DIR installs into the system tree at DIR (a chroot or an image being
#   built): the same files, users and links, nothing started. Packages missing
#   from DIR are installed with `chroot DIR apt-get`.
# --uninstall stops and removes the service, the udev rule, the binary and the
#   user, and the kernel command line words it added. The configuration
#   (/etc/vitrine) and the state (/var/lib/vitrine: pushed configuration,
#   assets, API token) are kept, unless --purge.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/.." && pwd)

root=""
binary=""
video_helper=""
action=install
purge=no
start=yes

die() { echo "install.sh: $*" >&2; exit 1; }
say() { echo "install.sh: $*"; }
usage() { sed -n '2,/^set -euo/{/^set -euo/d;s/^# \{0,1\}//;p}' "$0"; }

while [ $# -gt 0 ]; do
    case "$1" in
        --binary) [ $# -ge 2 ] || die "--binary needs a path"; binary=$2; shift 2 ;;
        --video-helper) [ $# -ge 2 ] || die "--video-helper needs a path"; video_helper=$2; shift 2 ;;
        --root) [ $# -ge 2 ] || die "--root needs a directory"; root=${2%/}; shift 2 ;;
        --uninstall) action=uninstall; shift ;;
        --purge) purge=yes; shift ;;
        --no-start) start=no; shift ;;
        -h|--help) usage; exit 0 ;;
        *) die "unknown option $1 (see --help)" ;;
    esac
done
[ "$(id -u)" -eq 0 ] || die "run as root (sudo $0 $*)"
if [ -n "$root" ]; then
    [ -d "$root/etc" ] || die "--root $root: not a system tree (no etc/)"
    root=$(cd "$root" && pwd)
fi
[ "$purge" = no ] || [ "$action" = uninstall ] || die "--purge goes with --uninstall"

# Where things go, inside the target.
BIN=/usr/local/bin/vitrine
VIDEO_HELPER=/usr/local/libexec/vitrine/vitrine-video
UNIT=/usr/local/lib/systemd/system/vitrine.service
REBOOT_UNITS=(vitrine-reboot.path vitrine-reboot.service)
UDEV_RULE=/etc/udev/rules.d/70-vitrine.rules
# The console announced over mDNS, where avahi-daemon is installed (it reads this directory only).
AVAHI_SERVICE=/etc/avahi/services/vitrine.service
DOC=/usr/local/share/doc/vitrine
# The pictures `vitrine doctor` times the decoding of (DoctorPicture looks here after the package's /usr/share/vitrine/doctor).
DOCTOR_PICTURES=/usr/local/share/vitrine/doctor
CONFIG_DIR=/etc/vitrine
STATE_DIR=/var/lib/vitrine
CMDLINE_WORDS=(consoleblank=0 vt.global_cursor_default=0)
RUNTIME_PACKAGES=(libdrm2 libturbojpeg0 libjpeg62-turbo libevdev2 libpng16-16 libwebp7 libwebpdemux2 libgif7 libheif1 libyaml-0-2 libseccomp2 libfreetype6 fonts-dejavu-core tzdata zlib1g libstdc++6 libgcc-s1 util-linux)
BUILD_PACKAGES=(pkg-config libdrm-dev libturbojpeg0-dev libjpeg62-turbo-dev libevdev-dev libpng-dev libwebp-dev libgif-dev libheif-dev libyaml-dev libseccomp-dev
                libavformat-dev libavcodec-dev libavutil-dev libswscale-dev libfreetype-dev)
# What the video helper links, by release: FFmpeg 5.1 in Debian 12, 7.1 in Debian 13.
VIDEO_PACKAGES_BOOKWORM=(libavformat59 libavcodec59 libavutil57 libswscale6)
VIDEO_PACKAGES_TRIXIE=(libavformat61 libavcodec61 libavutil59 libswscale8)

changed=no
shadow_root=()
systemctl_root=()
if [ -n "$root" ]; then
    shadow_root=(--root "$root")
    systemctl_root=(--root="$root")
fi
# A running systemd to talk to (not in a chroot, a container without it, or --root).
live=no
[ -z "$root" ] && [ -d /run/systemd/system ] && live=yes

# --- helpers ------------------------------------------------------------------

missing_packages() {
    local package
    for package in "$@"; do
        dpkg-query --admindir="$root/var/lib/dpkg" -W -f='${Status}' "$package" 2>/dev/null \
            | grep -q "install ok installed" || echo "$package"
    done
}

ensure_packages() {
    local missing
    mapfile -t missing < <(missing_packages "$@")
    [ ${#missing[@]} -eq 0 ] && return 0
    say "installing packages: ${missing[*]}"
    if [ -n "$root" ]; then
        chroot "$root" env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "${missing[@]}"
    else
        apt-get update -q
        DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "${missing[@]}"
    fi
    changed=yes
}

# install_file SOURCE TARGET MODE: copies when the content or mode differ.
install_file() {
    local source=$1 target=$root$2 mode=$3
    if [ -f "$target" ] && cmp -s "$source" "$target" && [ "$(stat -c %a "$target")" = "${mode#0}" ]; then
        return 0
    fi
    install -D -m "$mode" -o 0 -g 0 "$source" "$target"
    say "installed $2"
    changed=yes
}

remove_path() {
    if [ -e "$root$1" ] || [ -L "$root$1" ]; then
        rm -rf -- "$root$1"
        say "removed $1"
    fi
}

has_group() { grep -q "^$1:" "$root/etc/group"; }
has_user() { grep -q "^$1:" "$root/etc/passwd"; }
in_group() { grep -qE "^$2:[^:]*:[^:]*:(.*,)?$1(,|\$)" "$root/etc/group"; }
gid_of() { awk -F: -v name="$1" '$1 == name { print $3 }' "$root/etc/group"; }

# The Raspberry Pi's kernel command line (one line), if this is a Pi image.
cmdline_file() {
    local file
    for file in /boot/firmware/cmdline.txt /boot/cmdline.txt; do
        if [ -f "$root$file" ]; then echo "$root$file"; return 0; fi
    done
    return 1
}

# --- uninstall ----------------------------------------------------------------

uninstall() {
    if [ "$live" = yes ]; then
        systemctl disable --now vitrine.service vitrine-reboot.path 2>/dev/null || true
    elif [ -e "$root$UNIT" ]; then
        systemctl "${systemctl_root[@]}" disable vitrine.service vitrine-reboot.path 2>/dev/null || true
    fi
    remove_path "$UNIT"
    local unit
    for unit in "${REBOOT_UNITS[@]}"; do remove_path "$(dirname "$UNIT")/$unit"; done
    remove_path "$UDEV_RULE"
    remove_path "$AVAHI_SERVICE"
    remove_path "$BIN"
    remove_path "$VIDEO_HELPER"
    remove_path "$DOC"
    remove_path "$(dirname "$DOCTOR_PICTURES")"
    if [ "$live" = yes ]; then
        systemctl daemon-reload
        udevadm control --reload 2>/dev/null || true
        # Give tty1 back to its getty, as at boot.
        if systemctl is-enabled --quiet getty@tty1.service 2>/dev/null || systemctl is-enabled --quiet getty@.service 2>/dev/null; then
            systemctl start getty@tty1.service 2>/dev/null || true
        fi
    fi
    if has_user vitrine; then
        userdel "${shadow_root[@]}" vitrine
        say "removed the user vitrine"
    fi
    if has_group vitrine; then
        groupdel "${shadow_root[@]}" vitrine
    fi
    local file
    if file=$(cmdline_file) && [ -f "$file.vitrine-backup" ]; then
        # Only the words the installer added: those the line did not have before.
        local line before word removed=()
        line=$(head -n 1 "$file")
        before=$(head -n 1 "$file.vitrine-backup")
        for word in "${CMDLINE_WORDS[@]}"; do
            case " $before " in *" $word "*) continue ;; esac
            case " $line " in
                *" $word "*)
                    line=$(printf ' %s ' "$line" | sed "s| $word | |; s|^ *||; s| *\$||")
                    removed+=("$word") ;;
            esac
        done
        if [ ${#removed[@]} -gt 0 ]; then
            printf '%s\n' "$line" > "$file"
            say "removed ${removed[*]} from ${file#"$root"}"
        fi
        rm -f "$file.vitrine-backup"
    fi
    if [ "$purge" = yes ]; then
        remove_path "$STATE_DIR"
        remove_path "$CONFIG_DIR"
    else
        local kept
        for kept in "$CONFIG_DIR" "$STATE_DIR"; do
            [ -e "$root$kept" ] && say "kept $kept (--purge removes it)"
        done
    fi
    say "uninstalled"
}

# --- install ------------------------------------------------------------------

build_binary() {
    command -v swift > /dev/null || die "no Swift toolchain on PATH: build the binary elsewhere (docs/deployment.md) and pass --binary PATH"
    ensure_packages_host "${BUILD_PACKAGES[@]}"
    say "building: swift build -c release --static-swift-stdlib --product vitrine"
    (cd "$repo" && swift build -c release --static-swift-stdlib --product vitrine >&2)
    binary="$(cd "$repo" && swift build -c release --static-swift-stdlib --show-bin-path)/vitrine"
    say "building: swift build -c release --static-swift-stdlib --product vitrine-video"
    (cd "$repo" && swift build -c release --static-swift-stdlib --product vitrine-video >&2)
    [ -n "$video_helper" ] || video_helper="$(dirname "$binary")/vitrine-video"
}

# Build dependencies go on the machine that builds, not into --root.
ensure_packages_host() {
    local saved=$root
    root=""
    ensure_packages "$@"
    root=$saved
}

check_libraries() {
    local output program=$1
    if [ -n "$root" ]; then
        output=$(chroot "$root" /usr/bin/ldd "$program" 2>&1) || {
            say "cannot run ldd inside $root (another architecture?): not checking the libraries"
            return 0
        }
    else
        output=$(ldd "$program" 2>&1) || die "ldd $program failed: $output"
    fi
    if grep -q "not found" <<< "$output"; then
        die "$program needs libraries that are not installed: $(grep "not found" <<< "$output" | awk '{print $1}' | tr '\n' ' ')"
    fi
}

ensure_user() {
    local group
    for group in video input render; do
        if ! has_group "$group"; then
            groupadd "${shadow_root[@]}" --system "$group"
            say "created the group $group"
            changed=yes
        fi
    done
    if ! has_user vitrine; then
        useradd "${shadow_root[@]}" --system --user-group --home-dir "$STATE_DIR" --no-create-home \
            --shell /usr/sbin/nologin --comment "Vitrine kiosk" --groups video,input,render vitrine
        say "created the system user vitrine (groups video, input, render)"
        changed=yes
    fi
    for group in video input render; do
        if ! in_group vitrine "$group"; then
            usermod "${shadow_root[@]}" --append --groups "$group" vitrine
            say "added vitrine to the group $group"
            changed=yes
        fi
    done
}

starter_config() {
    cat <<'EOF'
# Vitrine's configuration: every key is described in
# /usr/local/share/doc/vitrine/configuration.md. Written by deploy/install.sh as
# a starter (the demo playlist); the installer never overwrites it.
# After a change: systemctl restart vitrine
# (a configuration pushed through the API is kept in /var/lib/vitrine and wins
# over this file until this file's content changes.)
EOF
    sed '1,2d' "$repo/deploy/demo/vitrine.yaml"
    cat <<'EOF'
# This kiosk's address, shown over the slides until it has a configuration of
# its own: a configuration pushed, taken from the SD card or written here
# without this line shows none.
showAddress: true
api:
  listen: "0.0.0.0:8080"          # "127.0.0.1:8080" for local only, "off" for no API
  # token: "at least 16 characters"
  #   Without a token here, one is generated on first start into
  #   /var/lib/vitrine/api-token (mode 0600); the log names the file, never the token.
EOF
}

ensure_config() {
    local gid
    gid=$(gid_of vitrine)
    if [ ! -d "$root$CONFIG_DIR" ]; then
        install -d -m 0755 -o 0 -g 0 "$root$CONFIG_DIR"
        changed=yes
    fi
    if [ ! -e "$root$CONFIG_DIR/vitrine.yaml" ]; then
        starter_config > "$root$CONFIG_DIR/vitrine.yaml"
        # It may hold the API token: readable by root and the kiosk only.
        chown "0:$gid" "$root$CONFIG_DIR/vitrine.yaml"
        chmod 0640 "$root$CONFIG_DIR/vitrine.yaml"
        say "wrote a starter $CONFIG_DIR/vitrine.yaml (the demo playlist)"
        changed=yes
    fi
    if [ ! -e "$root$CONFIG_DIR/images" ]; then
        install -d -m 0755 -o 0 -g 0 "$root$CONFIG_DIR/images"
        install -m 0644 -o 0 -g 0 "$repo"/deploy/demo/images/*.jpg "$root$CONFIG_DIR/images/"
        say "copied the demo pictures to $CONFIG_DIR/images"
        changed=yes
    fi
}

ensure_cmdline() {
    local file line word added=()
    file=$(cmdline_file) || return 0
    line=$(head -n 1 "$file")
    for word in "${CMDLINE_WORDS[@]}"; do
        case " $line " in
            *" ${word%%=*}="*) ;;   # already set, to this or another value: left alone
            *) line="$line $word"; added+=("$word") ;;
        esac
    done
    if [ ${#added[@]} -gt 0 ]; then
        [ -e "$file.vitrine-backup" ] || cp -p "$file" "$file.vitrine-backup"
        printf '%s\n' "$line" > "$file"
        say "added ${added[*]} to ${file#"$root"} (from the next boot)"
        changed=yes
    fi
    local config
    config="$(dirname "$file")/config.txt"
    if [ -f "$config" ] && ! grep -qE '^[[:space:]]*dtoverlay=vc4-(f)?kms-v3d' "$config"; then
        say "warning: ${config#"$root"} has no dtoverlay=vc4-kms-v3d: without it there is no KMS driver (docs/deployment.md)"
    fi
}

install_all() {
    if [ -r "$root/etc/os-release" ]; then
        # shellcheck disable=SC1091
        codename=$(. "$root/etc/os-release" && echo "${VERSION_CODENAME:-}")
        [ "$codename" = bookworm ] || say "warning: written for bookworm, this is ${codename:-unknown}"
        # Debian 12's libheif1 links its HEVC and AV1 decoders; from Debian 13
        # (libheif 1.17 and later) they are plugins, loaded at run time, which
        # neither Depends nor ldd names, and apt here installs no Recommends.
        [ "$codename" = bookworm ] || RUNTIME_PACKAGES+=(libheif-plugin-libde265 libheif-plugin-dav1d)
    fi
    if [ -z "$binary" ]; then
        build_binary
    fi
    # A helper built beside the binary goes with it, as build-deb.sh takes it.
    if [ -z "$video_helper" ] && [ -x "$(dirname "$binary")/vitrine-video" ]; then
        video_helper="$(dirname "$binary")/vitrine-video"
    fi
    if [ -n "$video_helper" ]; then
        [ -f "$video_helper" ] || die "no video helper at $video_helper"
        if [ "${codename:-bookworm}" = bookworm ]; then
            RUNTIME_PACKAGES+=("${VIDEO_PACKAGES_BOOKWORM[@]}")
        else
            RUNTIME_PACKAGES+=("${VIDEO_PACKAGES_TRIXIE[@]}")
        fi
    fi
    ensure_packages "${RUNTIME_PACKAGES[@]}"
    [ -f "$binary" ] || die "no binary at $binary"
    install_file "$binary" "$BIN" 0755
    check_libraries "$BIN"
    if [ -n "$video_helper" ]; then
        install_file "$video_helper" "$VIDEO_HELPER" 0755
        check_libraries "$VIDEO_HELPER"
    elif [ -e "$root$VIDEO_HELPER" ]; then
        # A helper left by an earlier install is of another version, which the
        # kiosk refuses to talk to: gone, every video slide says that video is
        # not installed, rather than that the helper is of the wrong version.
        remove_path "$VIDEO_HELPER"
        say "no --video-helper given: video slides need one of this version (deploy/install.sh --video-helper PATH)"
        changed=yes
    fi
    ensure_user
    ensure_config
    install_file "$repo/deploy/systemd/vitrine.service" "$UNIT" 0644
    local unit
    for unit in "${REBOOT_UNITS[@]}"; do
        install_file "$repo/deploy/systemd/$unit" "$(dirname "$UNIT")/$unit" 0644
    done
    local rule
    rule=$(mktemp)
    printf '%s\n' \
        "# Installed by Vitrine's deploy/install.sh: DRM cards become systemd device" \
        "# units (dev-dri-card0.device), which vitrine.service waits for." \
        'SUBSYSTEM=="drm", KERNEL=="card[0-9]*", TAG+="systemd"' > "$rule"
    # Tracked on its own: a new rule is applied to the cards there are now.
    local before=$changed
    changed=no
    install_file "$rule" "$UDEV_RULE" 0644
    rm -f "$rule"
    if [ "$changed" = yes ] && [ "$live" = yes ]; then
        udevadm control --reload
        udevadm trigger --subsystem-match=drm --action=change
    fi
    [ "$before" = no ] || changed=yes
    if [ -d "$root/etc/avahi" ]; then
        install_file "$repo/deploy/avahi/vitrine.service" "$AVAHI_SERVICE" 0644
    fi
    install_file "$repo/docs/deployment.md" "$DOC/deployment.md" 0644
    install_file "$repo/docs/configuration.md" "$DOC/configuration.md" 0644
    local picture
    for picture in photo-12mp.jpg photo-48mp.heic; do
        install_file "$repo/deploy/doctor/$picture" "$DOCTOR_PICTURES/$picture" 0644
    done
    ensure_cmdline

    if ! systemctl "${systemctl_root[@]}" is-enabled --quiet vitrine.service 2>/dev/null; then
        [ "$live" = yes ] && systemctl daemon-reload
        systemctl "${systemctl_root[@]}" enable vitrine.service 2>&1 | sed 's/^/install.sh: /'
        changed=yes
    fi
    if ! systemctl "${systemctl_root[@]}" is-enabled --quiet vitrine-reboot.path 2>/dev/null; then
        [ "$live" = yes ] && systemctl daemon-reload
        systemctl "${systemctl_root[@]}" enable vitrine-reboot.path 2>&1 | sed 's/^/install.sh: /'
        [ "$live" = yes ] && systemctl start vitrine-reboot.path
        changed=yes
    fi

    if [ "$live" = yes ] && [ "$start" = yes ]; then
        if [ "$(tty 2>/dev/null)" = /dev/tty1 ]; then
            say "not starting the kiosk from tty1 (it takes tty1 over): reboot, or run systemctl start vitrine from elsewhere"
        elif [ "$changed" = yes ]; then
            systemctl daemon-reload
            systemctl restart vitrine.service
            say "started vitrine.service (journalctl -u vitrine)"
        else
            systemctl start vitrine.service
        fi
    fi
    if [ "$changed" = yes ]; then say "installed"; else say "already installed: nothing changed"; fi
}

case "$action" in
    install) install_all ;;
    uninstall) uninstall ;;
esac
