#!/usr/bin/env bash
# shellcheck disable=SC2317  # the checks below are functions called through check()
# The boot-to-kiosk test (`make image-test`):
#   1. builds the release binary with the Swift standard library linked in
#      (the same build as the VM tests, in .build-static; $VITRINE_IMAGE_BINARY
#      names an already built one instead);
#   2. shellchecks the installer and these scripts;
#   3. builds a Debian bookworm image with deploy/install.sh --root
#      (Tests/Image/build-image.sh; the debootstrap is cached in .build-image);
#   4. checks the installer on the image's tree: a second run changes nothing,
#      --uninstall removes what it installed and keeps the state, --purge
#      removes that too; on a Raspberry Pi tree, the kernel command line words
#      go on once and come off at --uninstall;
#   5. boots the image in QEMU (TCG) and runs Tests/Image/imagetest.py.
# Run as root (debootstrap, chroot, file ownership in the image).
set -euo pipefail
cd "$(dirname "$0")/../.."
started=$(date +%s)
phase() { echo "== $* ($(( $(date +%s) - started )) s)"; }
deploy/dev/ensure-packages.sh qemu-system-x86 debootstrap e2fsprogs python3 shellcheck

if [ -n "${VITRINE_IMAGE_BINARY:-}" ]; then
    binary=$VITRINE_IMAGE_BINARY   # a binary built elsewhere (the same static-stdlib build)
else
    phase "static build"
    swift build -c release --static-swift-stdlib --scratch-path .build-static --product vitrine
    binary=.build-static/release/vitrine
fi

phase "shellcheck"
shellcheck deploy/install.sh Tests/Image/build-image.sh Tests/Image/run-image-test.sh

out=.build-image
mkdir -p "$out"
# The image's configuration: the test's kiosk plus the API with a known token.
token=image-test-token-3f9c2a7d51
{
    cat Tests/Image/configs/kiosk.yaml
    printf 'api:\n  listen: "0.0.0.0:8080"\n  token: "%s"\n' "$token"
} > "$out/vitrine.yaml"

phase "image"
Tests/Image/build-image.sh "$binary" "$out" "$out/vitrine.yaml"

phase "installer"
root=$out/rootfs
failed=0
check() {
    local name=$1; shift
    if "$@"; then echo "PASS [installer] $name"; else echo "FAIL [installer] $name"; failed=1; fi
}
manifest() {
    (cd "$root" && find etc usr/local var/lib -xdev -printf '%p %m %U %G %s %T@\n' | sort)
}
manifest > "$out/manifest-1"
second=$(deploy/install.sh --root "$root" --binary "$binary" 2>&1)
manifest > "$out/manifest-2"
check "a second run says nothing changed" grep -q "nothing changed" <<< "$second"
check "a second run changes no file, mode, owner or time" cmp -s "$out/manifest-1" "$out/manifest-2"
check "the unit is enabled" test -L "$root/etc/systemd/system/multi-user.target.wants/vitrine.service"
in_groups() {
    local group
    for group in video input render; do
        grep -qE "^$group:[^:]*:[^:]*:(.*,)?vitrine(,|\$)" "$root/etc/group" || return 1
    done
}
uninstalled() {
    ! test -e "$root/usr/local/lib/systemd/system/vitrine.service" && ! test -e "$root/usr/local/bin/vitrine" \
        && ! test -e "$root/etc/udev/rules.d/70-vitrine.rules" \
        && ! test -L "$root/etc/systemd/system/multi-user.target.wants/vitrine.service" \
        && ! grep -q '^vitrine:' "$root/etc/passwd"
}
kept() { test -f "$root/var/lib/vitrine/kept" && test -f "$root/etc/vitrine/vitrine.yaml"; }
purged() { ! test -e "$root/var/lib/vitrine" && ! test -e "$root/etc/vitrine"; }
check "the user vitrine is in video, input and render" in_groups
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

phase "boot test"
status=0
python3 Tests/Image/imagetest.py --image "$out" --vitrine "$binary" --config Tests/Image/configs/kiosk.yaml \
    --pushed Tests/Image/configs/pushed.json --token "$token" --work "$out/work" || status=1
phase "done"
[ $failed -eq 0 ] && exit $status
exit 1
