#!/usr/bin/env bash
# Builds Vitrine's SD-card image for the Raspberry Pi 3, 4 and 400 (`make pi-image`):
# Debian 13 (trixie) arm64 with Debian's own Raspberry Pi boot files
# (raspi-firmware: the GPU firmware, config.txt, cmdline.txt, the device trees)
# and kernel (linux-image-arm64), and Vitrine installed from its signed apt
# repository, which the image keeps as a source, beside Debian's security updates.
#
#   build-pi-image.sh [--repository DIR] [--url URL] [--version V] [--out DIR] [--hostname NAME] [--no-compress]
#
# --repository DIR  the public tree of `make repo` (deploy/repo/build-repo.sh),
#                   whose trixie suite holds the arm64 package; default .build-repo/public
# --url URL         where boards fetch that tree from (the image's apt source),
#                   default $VITRINE_REPO_URL; the key comes from DIR
# --version V       the vitrine version to install, default the suite's newest
# --out DIR         default .build-pi-image: DIR/vitrine-pi-VERSION.img, its .img.xz
#                   (unless --no-compress), DIR/os-list.json (Raspberry Pi Imager),
#                   and DIR/build.log
# --hostname NAME   default vitrine (announced over mDNS as NAME.local)
#
# The card (MBR, as a Pi 3's boot ROM needs; its size a power of two, as QEMU's
# SD card model needs too):
#   1  FAT32  /boot/firmware  256 MiB  the firmware, kernel, initramfs, config.txt,
#                                      cmdline.txt, and the setup files of docs/card-setup.md
#   2  ext4   /               read-only; what the system holds, with room for upgrades
#   3  ext4   /data           the rest: /etc's overlay, /var, /home (initramfs/local-bottom-vitrine-data)
#
# Needs root (mmdebstrap in root mode, chroot, file ownership in the image) and
# binfmt_misc for the arm64 maintainer scripts (deploy/arm64/binfmt.sh).
# docs/pi-image.md says what it holds and why.
set -euo pipefail
umask 022
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
die() { echo "build-pi-image.sh: $*" >&2; exit 1; }
say() { echo "build-pi-image.sh: $*"; }

repository=$repo/.build-repo/public
url=${VITRINE_REPO_URL:-}
out=$repo/.build-pi-image
hostname=vitrine
compress=yes
version=
while [ $# -gt 0 ]; do
    case "$1" in
        --repository) [ $# -ge 2 ] || die "--repository needs a directory"; repository=$2; shift 2 ;;
        --url) [ $# -ge 2 ] || die "--url needs a URL"; url=$2; shift 2 ;;
        --out) [ $# -ge 2 ] || die "--out needs a directory"; out=$2; shift 2 ;;
        --version) [ $# -ge 2 ] || die "--version needs a version"; version=$2; shift 2 ;;
        --hostname) [ $# -ge 2 ] || die "--hostname needs a name"; hostname=$2; shift 2 ;;
        --no-compress) compress=no; shift ;;
        -h|--help) sed -n '2,/^set -euo/{/^set -euo/d;s/^# \{0,1\}//;p}' "$0"; exit 0 ;;
        *) die "unknown argument $1 (see --help)" ;;
    esac
done
[ "$(id -u)" -eq 0 ] || die "mmdebstrap, chroot and the image's file ownership need root"
[ -f "$repository/trixie/dists/trixie/InRelease" ] \
    || die "no trixie suite at $repository/trixie (make deb ARCH=arm64, then make repo; or name the tree with --repository)"
[ -f "$repository/vitrine-archive-keyring.asc" ] || die "no vitrine-archive-keyring.asc in $repository"
[ -n "$url" ] || die "no URL for the image's Vitrine source: set VITRINE_REPO_URL (or --url) to where boards fetch $repository from"
case "$url" in http://*|https://*) ;; *) die "--url $url: an http:// or https:// URL" ;; esac
case "$hostname" in *[!a-z0-9-]*|-*|"") die "--hostname $hostname: letters a-z, digits and '-' only" ;; esac
repository=$(cd "$repository" && pwd)
mkdir -p "$out"
out=$(cd "$out" && pwd)
"$repo/deploy/dev/ensure-packages.sh" mmdebstrap arch-test e2fsprogs dosfstools mtools fdisk \
    debian-archive-keyring xz-utils zstd python3
"$repo/deploy/arm64/binfmt.sh"

# The arm64 versions the suite holds; the newest is the one the image gets, unless --version names another.
versions=$(gzip -dc "$repository"/trixie/dists/trixie/main/binary-arm64/Packages.gz 2> /dev/null \
    | awk '/^Package: vitrine$/ { p = 1; next } /^Package:/ { p = 0 } p && /^Version:/ { print $2 }' | sort -V) || true
[ -n "$versions" ] || die "the trixie suite in $repository has no arm64 vitrine (make deb ARCH=arm64, then make repo)"
if [ -z "$version" ]; then
    version=$(echo "$versions" | tail -1)
elif ! echo "$versions" | grep -qxF "$version"; then
    die "the trixie suite in $repository has no arm64 vitrine $version (it has: $(echo "$versions" | tr '\n' ' '))"
fi
name=vitrine-pi-$version
log=$out/build.log
: > "$log"
say "$name: Debian trixie arm64 with vitrine $version from $repository (the image's source: $url); log in $log"

work=$(mktemp -d "$out/work.XXXXXX")
trap 'rm -rf "$work"' EXIT
root=$work/root
# One disk identifier per build: the partitions are PARTUUID=ID-01, -02, -03.
disk_id=$(od -An -N4 -tx4 /dev/urandom | tr -d ' ')
case "$disk_id" in 00000000) disk_id=5669c0de ;; esac

# Before any package is configured (an essential hook): the files that the
# kernel's and raspi-firmware's maintainer scripts read when they make the
# initramfs, config.txt and cmdline.txt. /etc/default/raspi-firmware is the
# package's conffile; dpkg keeps this one (force-confold).
mkdir -p "$work/etc/default" "$work/etc/initramfs-tools/scripts/local-bottom" "$work/etc/initramfs-tools/hooks"
cat > "$work/etc/default/raspi-firmware" << CONF
# Vitrine's Raspberry Pi image (deploy/pi-image/build-pi-image.sh). Read by
# raspi-firmware's kernel hook, which writes config.txt and cmdline.txt anew
# at each kernel update.
ROOTPART=PARTUUID=$disk_id-02
# tty3 keeps the kernel's messages off the kiosk's screen (tty1); the serial
# console is the GPIO header's UART (enable_uart=1): ttyS1 on a Pi 3 and 4.
CONSOLES="tty3 ttyS1,115200"
# The contiguous memory vc4 scans frames out of: two 4K frames take 63 MiB,
# and vitrine doctor warns below 128 MiB. On the command line, as Debian's
# kernel reads it (raspi-firmware's default is 64M).
CMA=256M
CONF
printf '%s\n' "ro vitrine.data=PARTUUID=$disk_id-03 consoleblank=0 vt.global_cursor_default=0 quiet loglevel=3" \
    > "$work/etc/default/raspi-extra-cmdline"
# No black border on televisions that do not overscan (the firmware's default assumes they do).
printf 'disable_overscan=1\n' > "$work/etc/default/raspi-firmware-custom"
install -m 0755 "$here/initramfs/local-bottom-vitrine-data" "$work/etc/initramfs-tools/scripts/local-bottom/vitrine-data"
install -m 0755 "$here/initramfs/hook-vitrine-data" "$work/etc/initramfs-tools/hooks/vitrine-data"

mirror=${DEBIAN_MIRROR:-http://deb.debian.org/debian}
security=${DEBIAN_SECURITY_MIRROR:-http://security.debian.org/debian-security}
components="main non-free-firmware"
# The system a kiosk needs and nothing for a desk: no desktop, no compiler,
# no login over the network (the kiosk is run through its API; docs/pi-image.md).
packages=(
    systemd-sysv udev kmod dbus initramfs-tools busybox zstd
    linux-image-arm64 raspi-firmware firmware-brcm80211 wireless-regdb
    network-manager wpasupplicant iw avahi-daemon systemd-timesyncd
    ca-certificates apt-utils unattended-upgrades
    e2fsprogs dosfstools fdisk cloud-guest-utils util-linux procps iproute2 less
)
started=$(date +%s)
say "mmdebstrap (about 10 to 20 minutes here: the arm64 maintainer scripts run under qemu-user)"
# shellcheck disable=SC2016  # $1 is mmdebstrap's, in its hooks
VITRINE_IMAGE_WORK=$work VITRINE_IMAGE_REPOSITORY=$repository VITRINE_IMAGE_VERSION=$version \
mmdebstrap --mode=root --variant=minbase --arch=arm64 --components="${components// /,}" \
    --include="$(IFS=,; echo "${packages[*]}")" \
    --aptopt='APT::Install-Recommends "false"' --dpkgopt=force-confold --dpkgopt=force-unsafe-io \
    --essential-hook='cp -a "$VITRINE_IMAGE_WORK/etc/." "$1/etc/"' \
    --customize-hook='"'"$here"'/install-vitrine.sh" "$1" "$VITRINE_IMAGE_REPOSITORY" "$VITRINE_IMAGE_VERSION"' \
    trixie "$root" \
    "deb $mirror trixie $components" \
    "deb $mirror trixie-updates $components" \
    "deb $security trixie-security $components" >> "$log" 2>&1 \
    || { tail -40 "$log" >&2; die "mmdebstrap failed (the whole log: $log)"; }
say "mmdebstrap took $(( $(date +%s) - started )) s"

# The system's own files.
echo "$hostname" > "$root/etc/hostname"
printf '127.0.0.1\tlocalhost\n127.0.1.1\t%s\n::1\t\tlocalhost ip6-localhost ip6-loopback\n' "$hostname" > "$root/etc/hosts"
cat > "$root/etc/fstab" << FSTAB
# Vitrine's Raspberry Pi image: the root is read-only (and dpkg makes it
# writable while it runs: /etc/apt/apt.conf.d/80vitrine-read-only-root).
# The data partition (PARTUUID=$disk_id-03) is mounted at /data by the
# initramfs, before systemd starts, with /etc, /var and /home on it.
PARTUUID=$disk_id-02  /               ext4  ro,noatime,errors=remount-ro  0  1
PARTUUID=$disk_id-01  /boot/firmware  vfat  rw,noatime,umask=0022,flush   0  2
FSTAB
# An empty machine-id: systemd makes the board's own at its first boot, and
# writes it to /etc's overlay, where it stays.
: > "$root/etc/machine-id"
rm -f "$root/var/lib/dbus/machine-id"
# Debian's security updates, and Vitrine's (the fleet channel's pin, when a
# channel names a version, keeps Vitrine where the channel says: docs/updates.md).
cat > "$root/etc/apt/apt.conf.d/51vitrine-unattended-upgrades" << 'CONF'
// Vitrine's Raspberry Pi image: unattended-upgrades installs Debian's
// security updates (its default origins) and Vitrine's own releases.
Unattended-Upgrade::Origins-Pattern {
        "origin=Vitrine,label=Vitrine,codename=${distro_codename}";
};
CONF
printf 'APT::Periodic::Update-Package-Lists "1";\nAPT::Periodic::Unattended-Upgrade "1";\n' > "$root/etc/apt/apt.conf.d/20auto-upgrades"
install -m 0644 "$here/80vitrine-read-only-root" "$root/etc/apt/apt.conf.d/80vitrine-read-only-root"
install -d "$root/etc/apt/keyrings"
install -m 0644 "$repository/vitrine-archive-keyring.asc" "$root/etc/apt/keyrings/vitrine.asc"
printf 'Types: deb\nURIs: %s\nSuites: trixie\nComponents: main\nSigned-By: /etc/apt/keyrings/vitrine.asc\n' "$url" \
    > "$root/etc/apt/sources.list.d/vitrine.sources"
# The data partition grows to the card at the first boot.
install -m 0644 "$here/vitrine-grow-data.service" "$root/etc/systemd/system/vitrine-grow-data.service"
install -D -m 0755 "$here/grow-data" "$root/usr/lib/vitrine-image/grow-data"
systemctl --root="$root" enable vitrine-grow-data.service >> "$log" 2>&1
mkdir -p "$root/data"
echo "$name" > "$root/etc/vitrine-image"

# The boot partition's files, as raspi-firmware's hooks wrote them.
boot=$work/boot
mkdir -p "$boot"
if [ ! -f "$root/boot/firmware/config.txt" ] || [ ! -f "$root/boot/firmware/cmdline.txt" ]; then
    die "raspi-firmware wrote no config.txt or cmdline.txt (see $log)"
fi
grep -q "root=PARTUUID=$disk_id-02" "$root/boot/firmware/cmdline.txt" || die "cmdline.txt does not name the root partition: $(cat "$root/boot/firmware/cmdline.txt")"
mv "$root/boot/firmware/"* "$boot/"
say "cmdline.txt: $(cat "$boot/cmdline.txt")"

# /var moves to the data partition's tree; the root keeps a copy for the
# initramfs to start a data partition made anew from.
data=$work/data
mkdir -p "$data/etc.upper" "$data/etc.work" "$data/home"
cp -a "$root/var" "$data/var"

mib=$((1024 * 1024))
boot_mib=256
root_mib=$(( $(du -sm "$root" | cut -f1) * 5 / 4 + 384 ))
data_min_mib=256
total_mib=1024
while [ $total_mib -lt $(( 1 + boot_mib + root_mib + data_min_mib )) ]; do total_mib=$(( total_mib * 2 )); done
data_mib=$(( total_mib - 1 - boot_mib - root_mib ))
say "card: $total_mib MiB (boot $boot_mib, root $root_mib, data $data_mib)"

mkfs.vfat -C -F 32 -n VITRINEBOOT -i "$disk_id" "$work/boot.img" $(( boot_mib * 1024 )) >> "$log"
(cd "$boot" && mcopy -s -p -m -i "$work/boot.img" ./* ::/)
mkfs.ext4 -q -F -L vitrine-root -d "$root" "$work/root.img" "${root_mib}M"
mkfs.ext4 -q -F -L vitrine-data -d "$data" "$work/data.img" "${data_mib}M"

image=$out/$name.img
rm -f "$image" "$image.xz"
truncate -s "${total_mib}M" "$image"
sfdisk --quiet "$image" << TABLE
label: dos
label-id: 0x$disk_id
unit: sectors
start=$(( 1 * mib / 512 )), size=$(( boot_mib * mib / 512 )), type=c, bootable
start=$(( (1 + boot_mib) * mib / 512 )), size=$(( root_mib * mib / 512 )), type=83
start=$(( (1 + boot_mib + root_mib) * mib / 512 )), size=$(( data_mib * mib / 512 )), type=83
TABLE
dd if="$work/boot.img" of="$image" bs=1M seek=1 conv=notrunc,sparse status=none
dd if="$work/root.img" of="$image" bs=1M seek=$(( 1 + boot_mib )) conv=notrunc,sparse status=none
dd if="$work/data.img" of="$image" bs=1M seek=$(( 1 + boot_mib + root_mib )) conv=notrunc,sparse status=none
say "image: $image"
if [ "$compress" = yes ]; then
    xz -T0 -6 -k "$image"
    say "compressed: $image.xz ($(du -m "$image.xz" | cut -f1) MiB)"
    python3 "$here/imager-os-list.py" --image "$image" --compressed "$image.xz" --version "$version" \
        --url "${VITRINE_IMAGE_URL:-${url%/}/images/$name.img.xz}" > "$out/os-list.json"
    say "Raspberry Pi Imager entry: $out/os-list.json"
fi
say "done in $(( $(date +%s) - started )) s"
