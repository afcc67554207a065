#!/usr/bin/env bash
# Builds what the VM tests boot: Debian's stock amd64 kernel (from Debian's
# packages) and an initramfs holding busybox, the static-stdlib release binary,
# the shared libraries ldd lists for it, the DRM/input kernel modules (and
# VKMS, built out of tree by build-vkms.sh), and the test content.
#
#   build-initramfs.sh BINARY OUTDIR
#
# OUTDIR receives vmlinuz and initrd.img; the kernel package is cached in
# OUTDIR/kernel so that later runs do not download it again.
set -euo pipefail
binary=$(readlink -f "$1")
out=$(mkdir -p "$2" && cd "$2" && pwd)
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)

# The kernel: whatever linux-image-amd64 depends on today, downloaded once.
if [ ! -f "$out/kernel/vmlinuz" ]; then
    rm -rf "$out/kernel" && mkdir -p "$out/kernel"
    package=$(apt-cache depends linux-image-amd64 2>/dev/null | awk '/Depends: linux-image-[0-9]/ {print $2; exit}')
    if [ -z "$package" ]; then apt-get update -qq; package=$(apt-cache depends linux-image-amd64 | awk '/Depends: linux-image-[0-9]/ {print $2; exit}'); fi
    (cd "$out/kernel" && apt-get download -q "$package" >/dev/null 2>&1 && dpkg-deb -x ./*.deb root && rm -f ./*.deb)
    cp "$out"/kernel/root/boot/vmlinuz-* "$out/kernel/vmlinuz"
    basename "$(ls -d "$out"/kernel/root/lib/modules/*)" > "$out/kernel/version"
fi
kver=$(cat "$out/kernel/version")
modules_src="$out/kernel/root/lib/modules/$kver"
[ -f "$modules_src/modules.dep" ] || depmod -b "$out/kernel/root" "$kver"

root="$out/rootfs"
rm -rf "$root"
mkdir -p "$root"/{bin,sbin,etc,proc,sys,dev,tmp,run,vm,usr/bin,usr/sbin,lib/modules/"$kver"}

# busybox, with every applet as a link.
# (Relative links: `busybox --install -s` would point them at this host's path.)
cp /bin/busybox "$root/bin/busybox"
for applet in $(/bin/busybox --list); do
    [ -e "$root/bin/$applet" ] || ln -s busybox "$root/bin/$applet"
done

# Users for the permission test: the kiosk's device group is video, as on Debian.
printf 'root:x:0:0:root:/tmp:/bin/sh\nnobody:x:65534:65534:nobody:/tmp:/bin/sh\n' > "$root/etc/passwd"
printf 'root:x:0:\nvideo:x:44:\nnogroup:x:65534:\n' > "$root/etc/group"

# Kernel modules: the DRM drivers under test and input, with their dependencies;
# and vivid, whose HDMI input and output come with real kernel CEC adapters
# (CONFIG_VIDEO_VIVID_CEC) for the HDMI-CEC checks.
wanted="bochs virtio-gpu virtio_pci virtio_input evdev uinput vivid drm_shmem_helper"
for module in $wanted; do
    line=$(grep -E "/$module\.ko(\.[a-z]+)?:" "$modules_src/modules.dep")
    for path in ${line%%:*} ${line#*:}; do
        mkdir -p "$root/lib/modules/$kver/$(dirname "$path")"
        cp "$modules_src/$path" "$root/lib/modules/$kver/$path"
    done
done
cp "$modules_src"/modules.order "$modules_src"/modules.builtin* "$root/lib/modules/$kver/" 2>/dev/null || true
# VKMS, which Debian does not build, built out of tree for this kernel (the planes checks).
"$here/build-vkms.sh" "$kver" "$out/vkms"
mkdir -p "$root/lib/modules/$kver/extra"
cp "$out/vkms/vkms.ko" "$root/lib/modules/$kver/extra/vkms.ko"
depmod -b "$root" "$kver"

# The binary and the libraries it links.
# The zones the VM's schedule configurations name (tzdata, as on a Debian system).
mkdir -p "$root/usr/share/zoneinfo/Europe"
cp /usr/share/zoneinfo/UTC "$root/usr/share/zoneinfo/UTC"
cp /usr/share/zoneinfo/Europe/Berlin "$root/usr/share/zoneinfo/Europe/Berlin"

cp "$binary" "$root/usr/bin/vitrine"
ldd "$binary" | grep -oE '/[^ ]+' | while read -r library; do
    mkdir -p "$root$(dirname "$library")"
    cp -L "$library" "$root$library"
done

# evemu, to create a uinput touchscreen in the guest and play recorded events into it;
# cec-ctl and cec-follower (v4l-utils), to play the TV on vivid's CEC bus.
for tool in evemu-device evemu-play cec-ctl cec-follower; do
    cp "$(command -v $tool)" "$root/usr/bin/"
    ldd "$(command -v $tool)" | grep -oE '/[^ ]+' | while read -r library; do
        mkdir -p "$root$(dirname "$library")"
        cp -L "$library" "$root$library"
    done
done

# Test content: the demo playlist and the VM configurations.
cp -r "$repo/deploy/demo" "$root/vm/demo"
cp -r "$here/content" "$root/vm/content"
cp -r "$here/touch" "$root/vm/touch"
cp "$here"/configs/*.yaml "$root/vm/"

install -m 0755 "$here/init" "$root/init"
(cd "$root" && find . | cpio -o -H newc --quiet) | gzip -1 > "$out/initrd.img"
cp "$out/kernel/vmlinuz" "$out/vmlinuz"
echo "kernel $kver, initramfs $(du -h "$out/initrd.img" | cut -f1)"
