# The arm64 (Raspberry Pi OS trixie, Debian 13 arm64) cross-build, its package
# and its tests; included by the Makefile. docs/raspberry-pi.md explains them.
.PHONY: arm64 arm64-refresh arm64-user-test arm64-test arm64-background

# The static-stdlib release build for aarch64: .build-arm64/release/vitrine.
# Debian sid's swiftlang in a chroot (.build-arm64-toolchain, made once by
# mmdebstrap) cross-compiles against a trixie arm64 sysroot (.debs checked
# against the signed indexes, kept in .build-arm64-toolchain/debs). With
# nothing changed, a second run only asks SwiftPM, which has nothing to do.
arm64:
	deploy/arm64/build.sh

# The chroot anew from today's sid (a newer swiftlang), then the build.
arm64-refresh:
	deploy/arm64/toolchain.sh --refresh
	deploy/arm64/build.sh

# `make deb ARCH=arm64`: the Makefile's deb target runs build-deb.sh, which reads
# ARCH (make puts command-line variables in the recipe's environment) and makes
# .build-deb/arm64/vitrine_VERSION_arm64.deb from the cross-build. It needs the
# aarch64 binutils (strip, objcopy) and qemu-user-static, which runs the arm64
# binary here for the man page, the completions and the starter's check.
ifeq ($(ARCH),arm64)
DEB_PACKAGES += binutils-aarch64-linux-gnu qemu-user-static
endif

# Quick: the binary under qemu-aarch64-static: --version, check-config, and
# `vitrine render` compared with the amd64 build's, when .build-static has one.
arm64-user-test: arm64
	Tests/ARM64/user-mode-test.sh

# The arm64 boot-to-kiosk test: the package installed by apt in a trixie arm64
# image, booted in qemu-system-aarch64 -M virt on Debian's arm64 kernel, then on
# its 16K-page kernel (Tests/ARM64/run-arm64-image-test.sh). After
# arm64-background (make test), it waits for the package and the image made
# there; alone, it makes them itself.
arm64-test:
	@deploy/dev/ensure-packages.sh $(sort $(DEB_PACKAGES) binutils-aarch64-linux-gnu qemu-user-static)
	Tests/ARM64/run-arm64-image-test.sh

# make test's first step: the cross-build, the package and the image start in
# the background at nice 19, beside the amd64 tests (deploy/arm64/background.sh).
# $$PPID is make's own PID: the job stops if make stops.
arm64-background:
	deploy/arm64/background.sh start $$PPID
