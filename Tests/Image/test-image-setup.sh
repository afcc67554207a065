# Shared by Tests/Image/build-image.sh and Tests/ARM64/build-arm64-image.sh
# (sourced): the cached root tree, what makes it the test image once
# unpacked, and the package installed in it. In test_image_setup, everything but the host name,
# hosts and fstab is test only.
# shellcheck shell=bash

# test_image_mmdebstrap CACHE LOG SUITE MIRROR PACKAGES PREFETCH [OPTION...]:
# the root tree of a test image, as a zstd-compressed tar at CACHE (through
# CACHE.partial, so that a run cut short leaves no cache; compressed, it takes
# a third of the disk, 0.3 GB where the tar took 0.85), mmdebstrap's output in LOG. minbase
# with PACKAGES (comma-separated) and no recommends; dpkg without an fsync per
# file (force-unsafe-io: the tree is a throwaway tar until mkfs copies it);
# PREFETCH's packages (space-separated) downloaded into the tree's apt cache,
# not installed, and apt's lists kept, so that installing the package later
# resolves its Depends with no network. OPTIONs go to mmdebstrap before the
# prefetch hook (their hooks run first).
test_image_mmdebstrap() {
    local cache=$1 log=$2 suite=$3 mirror=$4 packages=$5 prefetch=$6 started
    shift 6
    started=$(date +%s)
    # --format=tar: mmdebstrap takes the format from the name otherwise, and .partial is none.
    mmdebstrap --mode=root --format=tar --variant=minbase --include="$packages" \
        --aptopt='APT::Install-Recommends "false"' --dpkgopt=force-unsafe-io "$@" \
        --customize-hook="chroot \"\$1\" env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --download-only --no-install-recommends $prefetch" \
        --skip=cleanup/apt/lists --skip=cleanup/apt/cache \
        "$suite" "$cache.partial" "$mirror" > "$log" 2>&1 \
        || { tail -30 "$log" >&2; return 1; }
    zstd -q -T0 --rm "$cache.partial" -o "$cache.partial.zst"
    mv "$cache.partial.zst" "$cache"
    echo "rootfs cached in $(( $(date +%s) - started )) s"
}

# test_image_setup ROOT SERIAL_TTY: the system files, a root shell on the
# serial console SERIAL_TTY (ttyS0 on a PC, ttyAMA0 on QEMU's arm virt machine)
# for the harness, DHCP from QEMU's user-mode network for the API's port
# forward, and a TV on HDMI-CEC (test-tv.service: vivid and cec-follower).
test_image_setup() {
    local root=$1 tty=$2
    echo vitrine-image > "$root/etc/hostname"
    printf '127.0.0.1\tlocalhost\n127.0.1.1\tvitrine-image\n' > "$root/etc/hosts"
    printf '/dev/vda\t/\text4\trw,errors=remount-ro\t0\t1\n' > "$root/etc/fstab"

    mkdir -p "$root/etc/systemd/system/serial-getty@$tty.service.d"
    cat > "$root/etc/systemd/system/serial-getty@$tty.service.d/autologin.conf" <<'UNIT'
[Service]
ExecStart=
ExecStart=-/sbin/agetty --autologin root --noclear --keep-baud 115200,57600,38400,9600 %I linux
UNIT
    cat > "$root/etc/systemd/network/20-wired.network" <<'UNIT'
[Match]
Name=en* eth*

[Network]
DHCP=ipv4
UNIT
    systemctl --root="$root" enable systemd-networkd.service > /dev/null 2>&1

    install -m 0644 "$(dirname "${BASH_SOURCE[0]}")/test-tv.service" "$root/etc/systemd/system/test-tv.service"
    systemctl --root="$root" enable test-tv.service > /dev/null 2>&1
}

# test_image_install ROOT DEB LOG [CONFIG [REPOSITORY SUITE]]: CONFIG, when
# given, at /etc/vitrine/vitrine.yaml first (the package keeps it), then the
# package installed as a user would: `apt-get install ./FILE.deb` resolves its
# Depends (from the cache stage's downloads) and runs its maintainer scripts
# (arm64 ones through qemu-user-static). In a chroot there is no running
# systemd: the postinst enables the unit (deb-systemd-helper makes the links
# itself) and starts nothing. The .deb stays in /root for the checks on the
# live system (test only); the downloaded packages go.
#
# With REPOSITORY (the public tree of deploy/repo/build-repo.sh) and SUITE, DEB's
# version is installed from that suite instead, as docs/apt-repository.md has
# a board do it: its key in /etc/apt/keyrings, a deb822 source, apt-get update
# (which checks the suite's signature with the image's own apt: sqv on trixie),
# apt-get install vitrine=VERSION. The source is a file: URI on a copy in the
# tree, taken away afterwards with the source entry; the key stays. Only that
# source is updated, and the Debian lists are kept (List-Cleanup off), so the
# Depends still come from the cache stage's downloads, with no network.
test_image_install() {
    local root=$1 deb=$2 log=$3 config=${4:-} repository=${5:-} suite=${6:-} version install
    if [ -n "$config" ]; then
        install -d -m 0755 "$root/etc/vitrine"
        install -m 0644 "$config" "$root/etc/vitrine/vitrine.yaml"
    fi
    cp "$deb" "$root/root/"
    install="cd /root && DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends ./$(basename "$deb")"
    if [ -n "$repository" ]; then
        version=$(dpkg-deb --field "$deb" Version)
        install -d -m 0755 "$root/etc/apt/keyrings"
        install -m 0644 "$repository/vitrine-archive-keyring.asc" "$root/etc/apt/keyrings/vitrine.asc"
        rm -rf "$root/srv/vitrine-repository"
        mkdir -p "$root/srv/vitrine-repository"
        cp -r "$repository/$suite" "$root/srv/vitrine-repository/"
        mkdir -p "$root/srv/vitrine-repository/sources.d"
        printf 'Types: deb\nURIs: file:/srv/vitrine-repository/%s\nSuites: %s\nComponents: main\nSigned-By: /etc/apt/keyrings/vitrine.asc\n' \
            "$suite" "$suite" | tee "$root/srv/vitrine-repository/sources.d/vitrine.sources" > "$root/etc/apt/sources.list.d/vitrine.sources"
        # The update sees that source alone (sources.d); the install sees every source.
        install="apt-get update -q -o Dir::Etc::SourceList=/dev/null -o Dir::Etc::SourceParts=/srv/vitrine-repository/sources.d \
            -o APT::Get::List-Cleanup=false && DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends vitrine=$version"
    fi
    if ! chroot "$root" sh -c "$install" > "$log" 2>&1; then
        tail -30 "$log" >&2
        return 1
    fi
    if [ -n "$repository" ]; then
        rm -rf "$root/srv/vitrine-repository" "$root/etc/apt/sources.list.d/vitrine.sources"
        # shellcheck disable=SC2016  # ${Version} is dpkg-query's
        [ "$(chroot "$root" dpkg-query -W -f='${Version}' vitrine)" = "$version" ] \
            || { echo "test_image_install: vitrine $version is not what apt installed from $suite" >&2; return 1; }
        grep -E '^(Get:|Hit:).*vitrine-repository' "$log" | sed 's/^/  /'
    fi
    grep -E '^(Setting up|Unpacking|vitrine:)' "$log" | sed 's/^/  /'
    chroot "$root" apt-get clean
}
