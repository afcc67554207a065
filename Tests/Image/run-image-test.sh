#!/usr/bin/env bash
# shellcheck disable=SC2317  # the checks below are functions called through check()
# The boot-to-kiosk test (`make image-test`):
#   1. builds the Debian package (deploy/debian/build-deb.sh, `make deb`: the
#      static-stdlib release binary of .build-static, stripped);
#      $VITRINE_IMAGE_DEB names an already built one instead, as `make
#      image-test` does after `make deb`. The host's reference renders use the
#      binary in the package, or $VITRINE_IMAGE_BINARY;
#   2. shellchecks the installer, the package's scripts and these scripts;
#   3. builds a Debian bookworm image with the package installed by apt-get
#      (Tests/Image/build-image.sh; the mmdebstrapped tree is cached in .build-image);
#   4. checks the package on the image's tree, in a chroot (no systemd
#      running): what the postinst made, then dpkg -r, reinstall and --purge;
#   5. checks deploy/install.sh --root on a fresh copy of the same tree: a
#      second run changes nothing, --uninstall removes what it installed and
#      keeps the state, --purge removes that too; on a Raspberry Pi tree, the
#      kernel command line words go on once and come off at --uninstall;
#   6. builds a signed apt repository with `make repo`'s script
#      (deploy/repo/build-repo.sh, a throwaway key) holding the package and a
#      later version of it (Tests/Image/next-version-deb.sh), and checks it on
#      the host: both versions listed, sqv and gpgv accept it, a Release
#      changed after signing is refused, a second file under a published
#      version is refused, each Release is valid for 30 days and apt takes
#      it, and the same index signed 40 days ago is refused as expired;
#   7. boots the image in QEMU (TCG) and runs Tests/Image/imagetest.py, which
#      also installs, upgrades and rolls back from that repository over HTTP.
# Run as root (mmdebstrap, chroot, file ownership in the image).
set -euo pipefail
cd "$(dirname "$0")/../.."
started=$(date +%s)
phase() { echo "== $* ($(( $(date +%s) - started )) s)"; }
deploy/dev/ensure-packages.sh qemu-system-x86 qemu-utils mmdebstrap e2fsprogs zstd python3 shellcheck nginx aptly sqv gpgv gnupg

out=.build-image
mkdir -p "$out"
if [ -n "${VITRINE_IMAGE_DEB:-}" ]; then
    deb=$VITRINE_IMAGE_DEB
else
    phase "static build and package"
    deploy/debian/build-deb.sh
    deb=$(deploy/debian/build-deb.sh --print-deb)
fi
[ -f "$deb" ] || { echo "$0: no package at $deb" >&2; exit 1; }
if [ -n "${VITRINE_IMAGE_BINARY:-}" ]; then
    binary=$VITRINE_IMAGE_BINARY   # a binary built elsewhere (the same static-stdlib build)
else
    # The very binary the image runs, for the host's reference renders and install.sh's checks.
    binary=$out/vitrine
    dpkg-deb --fsys-tarfile "$deb" | tar -xO ./usr/bin/vitrine > "$binary"
    chmod 0755 "$binary"
fi

phase "shellcheck"
shellcheck deploy/install.sh deploy/debian/build-deb.sh deploy/debian/postinst deploy/debian/prerm deploy/debian/postrm \
    Tests/Image/build-image.sh Tests/Image/test-image-setup.sh Tests/Image/run-image-test.sh \
    Tests/Image/next-version-deb.sh Tests/Image/test-repository.sh deploy/repo/build-repo.sh deploy/repo/new-key.sh

# The image's configuration: the test's kiosk plus the API with a known token.
token=image-test-token-3f9c2a7d51
{
    cat Tests/Image/configs/kiosk.yaml
    printf 'api:\n  listen: "0.0.0.0:8080"\n  token: "%s"\n' "$token"
} > "$out/vitrine.yaml"

phase "image"
Tests/Image/build-image.sh "$deb" "$out" "$out/vitrine.yaml"

failed=0
group=installer
check() {
    local name=$1; shift
    if "$@"; then echo "PASS [$group] $name"; else echo "FAIL [$group] $name"; failed=1; fi
}
in_groups() {
    local group
    for group in video input render; do
        grep -qE "^$group:[^:]*:[^:]*:(.*,)?vitrine(,|\$)" "$root/etc/group" || return 1
    done
}

# The package on the image's tree (disk.img is made already), in a chroot:
# the maintainer scripts' paths without a running systemd.
phase "package"
group=package
root=$out/rootfs
# Names from the image's passwd and group, not the host's.
owner_mode() { chroot "$root" stat -c '%U:%G %a' "$1"; }
package_installed() {
    # shellcheck disable=SC2016  # ${Status} is dpkg-query's field, not the shell's
    chroot "$root" dpkg-query -W -f='${Status}' vitrine 2> /dev/null | grep -q "install ok installed" \
        && test -x "$root/usr/bin/vitrine" && test -f "$root/lib/systemd/system/vitrine.service" \
        && test -f "$root/lib/systemd/system/vitrine-reboot.path" && test -f "$root/lib/systemd/system/vitrine-reboot.service" \
        && test -f "$root/lib/udev/rules.d/70-vitrine.rules"
}
libraries_found() {
    chroot "$root" ldd /usr/bin/vitrine > "$out/ldd.txt" 2>&1 && ! grep -q "not found" "$out/ldd.txt"
}
enabled() {
    test -L "$root/etc/systemd/system/multi-user.target.wants/vitrine.service" \
        && test -L "$root/etc/systemd/system/multi-user.target.wants/vitrine-reboot.path"
}
configuration_kept() {
    cmp -s "$out/vitrine.yaml" "$root/etc/vitrine/vitrine.yaml" && test -f "$root/etc/vitrine/images/01-welcome.jpg"
}
removed_keeping_state() {
    ! test -e "$root/usr/bin/vitrine" && ! test -e "$root/lib/systemd/system/vitrine.service" \
        && ! test -e "$root/lib/systemd/system/vitrine-reboot.path" \
        && grep -q "^vitrine:" "$root/etc/passwd" && test -d "$root/var/lib/vitrine" && test -d "$root/etc/vitrine/images"
}
reinstalled_with_starter() {
    # check-config runs on the host: in a chroot without /proc the Swift
    # runtime sees no arguments, and vitrine would print its help and exit 0.
    package_installed && enabled && test "$(owner_mode /etc/vitrine/vitrine.yaml)" = "root:vitrine 640" \
        && "$binary" check-config "$root/etc/vitrine/vitrine.yaml" > /dev/null
}
package_purged() {
    ! grep -q "^vitrine:" "$root/etc/passwd" && ! grep -q "^vitrine:" "$root/etc/group" \
        && ! test -e "$root/var/lib/vitrine" && ! test -e "$root/etc/vitrine" && ! enabled
}
check "apt-get install ./$(basename "$deb") installed it: the binary, the unit, the udev rule" package_installed
check "ldd in the image finds every library /usr/bin/vitrine links" libraries_found
check "the unit is enabled (multi-user.target.wants)" enabled
check "the system user vitrine is in video, input and render" in_groups
check "/var/lib/vitrine is the user's, mode 0700" test "$(owner_mode /var/lib/vitrine)" = "vitrine:vitrine 700"
check "the image's configuration is kept, and the demo pictures are copied" configuration_kept
# Removed, then installed again with no configuration: the starter is written.
rm "$root/etc/vitrine/vitrine.yaml"
chroot "$root" dpkg -r vitrine > "$out/dpkg-remove.log" 2>&1 || cat "$out/dpkg-remove.log" >&2
check "dpkg -r removes the binary and the unit, keeps the user, /var/lib/vitrine and /etc/vitrine" removed_keeping_state
chroot "$root" dpkg -i "/root/$(basename "$deb")" > "$out/dpkg-reinstall.log" 2>&1 || cat "$out/dpkg-reinstall.log" >&2
check "installing it again enables the unit and writes a valid starter configuration (root:vitrine 0640)" \
    reinstalled_with_starter
chroot "$root" dpkg --purge vitrine > "$out/dpkg-purge.log" 2>&1 || cat "$out/dpkg-purge.log" >&2
check "dpkg --purge removes the user and group, /var/lib/vitrine, /etc/vitrine and the unit's links" package_purged
# The tree is in disk.img already: its 0.7 GB go, unless a check failed and it is worth a look.
[ $failed -eq 0 ] && rm -rf "$root"

# deploy/install.sh, for machines without dpkg, on a fresh copy of the same
# mmdebstrapped tree (its runtime packages come from the cached downloads).
phase "installer"
group=installer
root=$out/installer-root
rm -rf "$root"
mkdir -p "$root"
tar -C "$root" --numeric-owner --zstd -xpf "$out/rootfs-base.tar.zst"
install -d -m 0755 "$root/etc/vitrine"
install -m 0644 "$out/vitrine.yaml" "$root/etc/vitrine/vitrine.yaml"
deploy/install.sh --root "$root" --binary "$binary" > "$out/install.log" 2>&1 || { cat "$out/install.log" >&2; exit 1; }
manifest() {
    (cd "$root" && find etc usr/local var/lib -xdev -printf '%p %m %U %G %s %T@\n' | sort)
}
manifest > "$out/manifest-1"
second=$(deploy/install.sh --root "$root" --binary "$binary" 2>&1)
manifest > "$out/manifest-2"
check "a second run says nothing changed" grep -q "nothing changed" <<< "$second"
check "a second run changes no file, mode, owner or time" cmp -s "$out/manifest-1" "$out/manifest-2"
check "the unit is enabled" test -L "$root/etc/systemd/system/multi-user.target.wants/vitrine.service"
check "the reboot path is installed and enabled" test -L "$root/etc/systemd/system/multi-user.target.wants/vitrine-reboot.path" \
    -a -f "$root/usr/local/lib/systemd/system/vitrine-reboot.service"
uninstalled() {
    ! test -e "$root/usr/local/lib/systemd/system/vitrine.service" && ! test -e "$root/usr/local/bin/vitrine" \
        && ! test -e "$root/usr/local/lib/systemd/system/vitrine-reboot.path" \
        && ! test -e "$root/usr/local/lib/systemd/system/vitrine-reboot.service" \
        && ! test -L "$root/etc/systemd/system/multi-user.target.wants/vitrine-reboot.path" \
        && ! test -e "$root/etc/udev/rules.d/70-vitrine.rules" \
        && ! test -L "$root/etc/systemd/system/multi-user.target.wants/vitrine.service" \
        && ! grep -q '^vitrine:' "$root/etc/passwd"
}
kept() { test -f "$root/var/lib/vitrine/kept" && test -f "$root/etc/vitrine/vitrine.yaml"; }
purged() { ! test -e "$root/var/lib/vitrine" && ! test -e "$root/etc/vitrine"; }
check "the user vitrine is in video, input and render" in_groups
# An upgrade with --binary alone: a helper of the version before is taken away, never left to refuse the new kiosk.
install -D -m 0755 /bin/true "$root/usr/local/libexec/vitrine/vitrine-video"
deploy/install.sh --root "$root" --binary "$binary" > "$out/upgrade.log" 2>&1
stale_helper_removed() {
    ! test -e "$root/usr/local/libexec/vitrine/vitrine-video" && grep -q "removed /usr/local/libexec/vitrine/vitrine-video" "$out/upgrade.log"
}
check "an upgrade with --binary alone removes the earlier install's video helper" stale_helper_removed
# A Raspberry Pi's kernel command line: the blanking and cursor words go on once, and come off at --uninstall.
pi_cmdline=$root/boot/firmware/cmdline.txt
install -d "$root/boot/firmware"
echo "console=serial0,115200 console=tty1 root=PARTUUID=0-02 rootfstype=ext4 rootwait" > "$pi_cmdline"
cp "$pi_cmdline" "$out/cmdline.orig"
deploy/install.sh --root "$root" --binary "$binary" > "$out/pi-install.log" 2>&1
cp "$pi_cmdline" "$out/cmdline.installed"
deploy/install.sh --root "$root" --binary "$binary" > "$out/pi-install-2.log" 2>&1
check "on a Raspberry Pi tree, consoleblank=0 vt.global_cursor_default=0 are added to cmdline.txt once" \
    grep -qx "console=serial0,115200 console=tty1 root=PARTUUID=0-02 rootfstype=ext4 rootwait consoleblank=0 vt.global_cursor_default=0" "$pi_cmdline"
check "a second run leaves cmdline.txt alone" cmp -s "$pi_cmdline" "$out/cmdline.installed"
install -d "$root/var/lib/vitrine" && echo state > "$root/var/lib/vitrine/kept"
deploy/install.sh --root "$root" --uninstall > "$out/uninstall.log" 2>&1
check "--uninstall removes the unit, the binary, the udev rule and the user" uninstalled
check "--uninstall keeps /var/lib/vitrine and /etc/vitrine" kept
check "--uninstall takes the words it added off cmdline.txt" cmp -s "$pi_cmdline" "$out/cmdline.orig"
rm -rf "$root/boot/firmware"
deploy/install.sh --root "$root" --binary "$binary" > "$out/reinstall.log" 2>&1
check "installing again after --uninstall keeps the configuration there was" cmp -s "$out/vitrine.yaml" "$root/etc/vitrine/vitrine.yaml"
deploy/install.sh --root "$root" --uninstall --purge > "$out/purge.log" 2>&1
check "--uninstall --purge removes /var/lib/vitrine and /etc/vitrine too" purged
[ $failed -eq 0 ] && rm -rf "$root"

# The signed apt repository (docs/apt-repository.md) that the booted image
# installs from: this package and a later version, signed by a throwaway key
# that is kept beside the repository's directory, never in it.
phase "repository"
group=repository
repository=$out/repository
first_version=$(dpkg-deb --field "$deb" Version)
next_deb=$(Tests/Image/next-version-deb.sh "$deb" repotest1 "$out/next-version")
second_version=$(dpkg-deb --field "$next_deb" Version)
# A version between the two that crashes at start: what the over-the-air update rolls
# back. Between the two, so that the boot test's plain `apt-get upgrade` still takes the second.
broken_deb=$(Tests/Image/next-version-deb.sh --broken "$deb" repotest0 "$out/next-version")
broken_version=$(dpkg-deb --field "$broken_deb" Version)
published=$repository/aptly/public/bookworm
built_repository() {
    Tests/Image/test-repository.sh "$repository" "$deb" "$next_deb" "$broken_deb" \
        && grep -q "bookworm amd64: vitrine $first_version $broken_version $second_version\$" "$repository/build.log"
}
check "make repo publishes $first_version, $broken_version and $second_version in the bookworm suite, and sqv and gpgv accept its signature" built_repository
changed_release_refused() {
    cp "$published/dists/bookworm/Release" "$repository/Release.changed"
    echo "Valid-Until: Fri, 01 Jan 2100 00:00:00 UTC" >> "$repository/Release.changed"
    ! sqv --keyring "$repository/aptly/public/vitrine-archive-keyring.gpg" "$published/dists/bookworm/Release.gpg" \
        "$repository/Release.changed" > /dev/null 2>&1
}
check "a Release changed after signing is refused by sqv (trixie's apt)" changed_release_refused
# apt-get update of one suite of TREE with state of its own, as stock apt does: APT_CONFIG
# leaves out this machine's apt.conf.d, which may turn the date checks off (a snapshot mirror's).
apt_update() {
    local tree state keyring
    # Absolute paths: $out may be relative, and apt takes a relative Dir:: option, and a file:
    # URI, as relative to its own directories.
    state=$(cd "$repository" && pwd)/apt-$2
    rm -rf "$state" && mkdir -p "$state/lists/partial" "$state/cache/archives/partial" || return 1
    tree=$(cd "$1" && pwd) && keyring=$(cd "$repository/aptly/public" && pwd)/vitrine-archive-keyring.gpg || return 1
    echo 'Dir::Etc::Parts "/dev/null";' > "$state/apt.conf"
    echo "deb [signed-by=$keyring] file:$tree/bookworm bookworm main" > "$state/sources.list"
    APT_CONFIG=$state/apt.conf apt-get update -o Dir::Etc::SourceList="$state/sources.list" -o Dir::Etc::SourceParts=/dev/null \
        -o Dir::State::Lists="$state/lists" -o Dir::Cache="$state/cache" -o Debug::NoLocking=1 > "$state/update.log" 2>&1
    cat "$state/update.log"
}
valid_for_30_days() {
    local release=$published/dists/bookworm/Release dated until
    dated=$(date -u -d "$(sed -n 's/^Date: //p' "$release")" +%s) && until=$(date -u -d "$(sed -n 's/^Valid-Until: //p' "$release")" +%s) \
        && [ $((until - dated)) -eq $((30 * 86400)) ] || return 1
    # Taken: no error or warning, and the suite's package list is in apt's lists.
    ! apt_update "$repository/aptly/public" fresh | grep -q "^[EW]:" \
        && compgen -G "$repository/apt-fresh/lists/*bookworm_main_binary-amd64_Packages" > /dev/null
}
check "each suite's Release is valid for 30 days (Valid-Until), and apt takes it" valid_for_30_days
expired_refused() {
    # The same tree signed as of 40 days ago: what a replayed old index looks like to a board.
    rm -rf "$repository/expired" && cp -a "$repository/aptly/public/." "$repository/expired" \
        && deploy/repo/sign-release.sh --key "$repository/key" --now $(($(date +%s) - 40 * 86400)) \
            "$repository/expired/bookworm/dists/bookworm/Release" > /dev/null \
        && apt_update "$repository/expired" expired | grep -q "^E: Release file for .* is expired"
}
check "an index signed 40 days ago is refused by apt as expired (a replayed old index cannot freeze a board)" expired_refused
second_file_refused() {
    # The later version again, with one more file in it.
    local tree=$repository/other other=$repository/vitrine_${second_version}_other.deb
    rm -rf "$tree" && dpkg-deb -R "$next_deb" "$tree" && echo rebuilt > "$tree/usr/share/doc/vitrine/rebuilt" \
        && dpkg-deb --root-owner-group -b "$tree" "$other" > /dev/null || return 1
    ! VITRINE_REPO_KEY=$repository/key deploy/repo/build-repo.sh --out "$repository/aptly" "$other" > "$repository/conflict.log" 2>&1 \
        && grep -q "already in bookworm with different contents" "$repository/conflict.log"
}
check "a different file under a version already published is refused" second_file_refused
no_secret_published() {
    ! grep -rlq "PRIVATE KEY" "$repository/aptly/public/" && test -f "$repository/aptly/public/vitrine-archive-keyring.asc"
}
check "the published tree holds the public key and no secret key" no_secret_published

phase "boot test"
status=0
python3 Tests/Image/imagetest.py --image "$out" --vitrine "$binary" --config Tests/Image/configs/kiosk.yaml \
    --pushed Tests/Image/configs/pushed.json --token "$token" --work "$out/work" \
    --repo "$repository/aptly/public" --repo-versions "$first_version" "$second_version" --broken-version "$broken_version" || status=1
phase "done"
[ $failed -eq 0 ] && exit $status
exit 1
