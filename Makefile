# Vitrine developer entry points. `make run` and `make test` are the README's two commands.
SWIFT ?= swift
# Build: the C libraries Vitrine links (see Package.swift's system-library targets).
# fonts-dejavu-core is the font FreeType draws the address notice in (the unit tests draw with it too).
BUILD_PACKAGES := pkg-config libdrm-dev libturbojpeg0-dev libjpeg62-turbo-dev libevdev-dev libpng-dev libwebp-dev libgif-dev libheif-dev libyaml-dev libseccomp-dev \
	libavformat-dev libavcodec-dev libavutil-dev libswscale-dev libfreetype-dev fonts-dejavu-core
# Test: djpeg, dwebp (with webpmux), gif2rgb (giflib-tools) and heif-convert (libheif-examples) are the reference decoders the fixture tests compare against;
# ffmpeg makes the numbered video clips the video tests play.
TEST_PACKAGES := libjpeg-turbo-progs webp giflib-tools libheif-examples signify-openbsd ffmpeg
# Benchmarks: the reference tools measured side by side.
BENCH_PACKAGES := libjpeg-turbo-progs webp giflib-tools libheif-examples libvips-tools time
# Packages: dpkg-dev for dpkg-shlibdeps, chrpath and binutils for the binary, lintian to check them.
DEB_PACKAGES := dpkg-dev binutils chrpath lintian
DEMO_CONFIG := deploy/demo/vitrine.yaml

.PHONY: deps build release run test test-suites test-packages unit-test remote-test console-test fleet-test static vm-test image-test deb repo repo-key pi-image pi-image-test bench bench-api bench-fleet bench-upload bench-heif bench-outputs bench-video soak soak-ops openapi clean fuzz api-fuzz-test

deps:
	@deploy/dev/ensure-packages.sh $(BUILD_PACKAGES)

build: deps
	$(SWIFT) build

release: deps
	$(SWIFT) build -c release

# Runs the kiosk on the bundled demo playlist: on KMS/DRM when a card is there,
# otherwise headless with a live preview PNG (the log says where).
# The demo keeps its state (pushed configurations, uploads, the API token) in
# .build-demo-state; the web console is at http://localhost:8080/ with the token the log shows.
run: release
	@echo "The API and console are plain HTTP here: the token crosses the network in clear text. For HTTPS, add"
	@echo "  api: {tls: {certificate: /path/cert.pem, key: /path/key.pem}}  to $(DEMO_CONFIG) (docs/deployment.md, TLS)."
	.build/release/vitrine run --config $(DEMO_CONFIG) --state-dir .build-demo-state

# The whole suite: unit and integration tests, the remote API against the real
# binary (SIGKILL mid-push, the web console in headless Chromium, the API against
# its spec under Schemathesis), then the VM tests on a real kernel, then the
# boot-to-kiosk image (about 6 minutes after the static build that vm-test makes), then the
# Raspberry Pi build: the arm64 cross-build, its package, and its image booted on Debian's arm64
# kernels (mk/arm64.mk, docs/raspberry-pi.md).
# The arm64 build starts first, in the background at the lowest priority, and arm64-test waits for it.
# A suite that fails does not stop the ones after it (make -k): one run reports every suite that
# fails, each with make's "Error" line, and `make test` still exits non-zero.
test:
	@$(MAKE) --no-print-directory -k test-suites

test-suites: test-packages arm64-background unit-test remote-test console-test api-fuzz-test vm-test fleet-test image-test arm64-test

# Every Debian package `make test` uses, for its first step: the build's now, the rest in one
# apt-get in the background while the first build compiles (one download, one run of dpkg's
# triggers). Each step still asks for its own packages, and waits for that install if it needs
# one it has not finished (deploy/dev/ensure-packages.sh serialises them). On a fresh machine
# this keeps several minutes of package installs off the suite's critical path.
SUITE_PACKAGES := $(TEST_PACKAGES) nginx python3-venv chromium chromium-driver \
	qemu-system-x86 qemu-utils busybox-static kmod cpio python3 evemu-tools v4l-utils e2fsprogs zstd shellcheck \
	$(DEB_PACKAGES) mmdebstrap arch-test debian-archive-keyring gpgv xz-utils binutils-aarch64-linux-gnu \
	qemu-user-static qemu-system-arm linux-headers-amd64 linux-source-6.1 make gcc aptly sqv gnupg gpgv dosfstools mtools
test-packages: deps
	@deploy/dev/ensure-packages.sh --background .build/suite-packages.log $(sort $(SUITE_PACKAGES))

unit-test: deps
	$(SWIFT) build --build-tests
	@deploy/dev/ensure-packages.sh $(TEST_PACKAGES)
	$(SWIFT) test --skip-build
	Tests/PixelRows/run.sh

# Both use the debug binary that unit-test builds.
remote-test: unit-test
	python3 Tests/Remote/crash_test.py .build/debug/vitrine
	python3 Tests/Remote/descriptor_test.py .build/debug/vitrine
	python3 Tests/Remote/hostile_picture_test.py .build/debug/vitrine --hold 40
	python3 Tests/Remote/isolation_test.py .build/debug/vitrine

console-test: unit-test
	python3 Tests/Console/console_test.py .build/debug/vitrine

# The fleet (docs/fleet.md, "Testing"): Debian's nginx, run as a foreground process with its own
# nginx.conf, serves a signed channel on loopback to 20 headless kiosks at 320x240, each a process
# with its own state directory and API port: publish, 304s, the five refusals, the origin down and
# back, SIGKILL in the middle of a download, the slide-change skew of a synced group, the channel's
# proof-of-play URL. About 60 s. The kiosks are the release build that is deployed (the static one
# vm-test, image-test and the package use), so that twenty of them changing slides at one instant
# on two cores measure the sync, not a debug build's CPU.
fleet-test: static
	@deploy/dev/ensure-packages.sh nginx libjpeg-turbo-progs signify-openbsd
	python3 Tests/Fleet/fleet_test.py .build-static/release/vitrine

# The static-stdlib release build (.build-static) that fleet-test, vm-test, image-test, the package
# and soak use; vm-test and build-deb.sh run the same command, which then has nothing to do.
static: deps
	swift build -c release --static-swift-stdlib --scratch-path .build-static --product vitrine

# Regenerates the OpenAPI document the server embeds, after docs/api/openapi.yaml changed.
openapi:
	python3 deploy/dev/embed-openapi.py

# KMS/DRM end to end: Debian's kernel in QEMU (TCG) with bochs-drm and virtio-gpu.
vm-test: deps
	Tests/VM/run-vm-tests.sh

# Boot to kiosk: a Debian bookworm image (mmdebstrap, cached in .build-image) with
# the package from `make deb` installed by apt-get, booted in QEMU (TCG): first slide
# with no login, HDMI-CEC through the unit (vivid), 100-megapixel picture bombs under
# MemoryMax, a pushed configuration shown and kept over a reboot with the root read-only,
# restarts after kill -9 and a hung loop. Also checks dpkg -r/--purge and deploy/install.sh --root,
# and the signed apt repository: built by make repo's script with a throwaway key, served by nginx
# on loopback, the image installs the package from it, upgrades it and rolls it back.
# dosfstools and mtools: the FAT boot partition the card-setup checks attach, made and read on the host.
image-test: deb
	@deploy/dev/ensure-packages.sh libjpeg-turbo-progs ffmpeg dosfstools mtools
	VITRINE_IMAGE_DEB=$$(deploy/debian/build-deb.sh --print-deb) Tests/Image/run-image-test.sh

# Debian packages from the static release build (.build-static, as vm-test, image-test
# and soak use): .build-deb/vitrine_VERSION_ARCH.deb and vitrine-dbgsym_VERSION_ARCH.deb,
# checked with lintian (deploy/debian/build-deb.sh; docs/deployment.md).
deb: deps
	@deploy/dev/ensure-packages.sh $(DEB_PACKAGES)
	deploy/debian/build-deb.sh

# The signed apt repository (docs/apt-repository.md): the packages of `make deb`, and of `make deb
# ARCH=arm64` when there is one, each added to the suite of the Debian release it was built for
# (bookworm, trixie), signed with the key whose GnuPG home $$VITRINE_REPO_KEY names (outside this
# tree: `make repo-key` makes one), in .build-repo/public for a static origin. Every version added
# stays, for rollback (deploy/repo/build-repo.sh).
repo: deb
	deploy/repo/build-repo.sh

repo-key:
	@test -n "$$VITRINE_REPO_KEY" || { echo "make repo-key: set VITRINE_REPO_KEY to a new directory outside this tree, for the key" >&2; exit 1; }
	deploy/repo/new-key.sh "$$VITRINE_REPO_KEY"

# The SD-card image for the Raspberry Pi 3, 4 and 400 (docs/pi-image.md): Debian trixie arm64 with
# Debian's raspi-firmware and kernel, a read-only root and a data partition, and Vitrine installed
# from the trixie suite of the repository in .build-repo/public (make deb ARCH=arm64, then make repo),
# whose URL boards fetch it from is $$VITRINE_REPO_URL. Writes .build-pi-image/vitrine-pi-VERSION.img,
# its .img.xz and Raspberry Pi Imager's os-list.json (deploy/pi-image/build-pi-image.sh).
pi-image:
	deploy/pi-image/build-pi-image.sh

# The image made from a throwaway repository and booted as a card in QEMU's virt machine and in its
# Raspberry Pi 3 model (Tests/PiImage/run-pi-image-test.sh). Not in `make test`: about 25 minutes.
pi-image-test:
	@deploy/dev/ensure-packages.sh $(sort $(DEB_PACKAGES) binutils-aarch64-linux-gnu qemu-user-static)
	Tests/PiImage/run-pi-image-test.sh

bench: release
	@deploy/dev/ensure-packages.sh $(BENCH_PACKAGES)
	.build/release/vitrine bench decode
	.build/release/vitrine bench compose
	.build/release/vitrine bench memory
	$(MAKE) bench-api

# API requests per second (wrk) against the frame pacing of a transition, in one run.
bench-api: release
	@deploy/dev/ensure-packages.sh wrk
	python3 Tests/Bench/api_bench.py .build/release/vitrine

# Memory of 40 MB uploads (noise PNG and JPEG): the debug kiosk, and beside it in the same run
# the binary given as BEFORE=path when there is one (docs/benchmarks.md, "Uploads staged on disk").
bench-upload: build
	@deploy/dev/ensure-packages.sh libjpeg-turbo-progs
	python3 Tests/Bench/upload_memory_bench.py $(if $(BEFORE),before=$(BEFORE)) this=.build/debug/vitrine

# A phone's 48-megapixel tiled HEIF (an iPhone's HEIF Max): the release kiosk's render and
# check-config against heif-convert, in one run, and beside them the binary given as BEFORE=path
# when there is one (docs/benchmarks.md, "A 48-megapixel tiled HEIF").
bench-heif: release
	@deploy/dev/ensure-packages.sh libheif-examples time
	python3 Tests/Bench/heif_tiled_bench.py $(if $(BEFORE),before=$(BEFORE)) this=.build/release/vitrine

# A second 1080p output beside one: resident memory, peak, CPU time and each loop's frame
# pacing, headless, one output and two alternating in one run (docs/benchmarks.md, "Two outputs").
bench-outputs: release
	python3 Tests/Bench/outputs_memory_bench.py .build/release/vitrine

# 60 s of 1080p30 H.264 played by the release kiosk and its video helper, and decoded by ffmpeg
# in the same run: CPU time, memory and the pacing summary (docs/benchmarks.md, "Video").
bench-video: release
	@deploy/dev/ensure-packages.sh ffmpeg time
	python3 Tests/Bench/video_bench.py .build/release/vitrine

# 50 release kiosks following a channel from nginx, in one run: publish to every screen (p50/p99),
# the origin's requests and bytes per kiosk-hour while nothing changes, a synced group's skew,
# and `vitrine push` of the same change to the same kiosks one by one (docs/benchmarks.md).
bench-fleet: release
	@deploy/dev/ensure-packages.sh nginx libjpeg-turbo-progs
	python3 Tests/Fleet/fleet_bench.py .build/release/vitrine

# A long run of the release kiosk headless at 1920x1080 with 1 s rotations and a
# bounded API load; fails when RSS or open descriptors trend upward after warm-up and keep
# rising to the end (a rise whose last half is within the limit is a cache that filled: soak.py).
# SOAK_MINUTES=60 by default. Uses the static release build that vm-test makes.
SOAK_MINUTES ?= 60
soak: deps
	swift build -c release --static-swift-stdlib --scratch-path .build-static --product vitrine
	python3 Tests/Soak/soak.py --self-test
	python3 Tests/Soak/soak.py .build-static/release/vitrine --minutes $(SOAK_MINUTES)
	python3 Tests/Remote/hostile_picture_test.py .build-static/release/vitrine --hold 600

# Memory growth per operation (Tests/Soak/per_op.py): pushes, screenshots, SSE reconnects,
# transitions, channel versions and status requests, thousands of each at many times the
# normal rate, against the static release kiosk; prints heap and RSS KiB per 1,000 of each
# (glibc's bytes in use from /metrics, and VmRSS). SOAK_OPS_SCALE multiplies the batch sizes.
SOAK_OPS_SCALE ?= 1
soak-ops: static
	python3 Tests/Soak/per_op.py .build-static/release/vitrine --scale $(SOAK_OPS_SCALE)

clean:
	rm -rf .build

# libFuzzer targets (Fuzz/, docs/fuzzing.md): the configuration loader, the JPEG,
# PNG, WebP, GIF and HEIF entries, and the evemu parser with the touch pipeline. Builds them with
# the fuzzer and address sanitizers into .build-fuzz, runs each for FUZZ_SECONDS
# on a scratch copy of Fuzz/Corpus/<target>, prints CPU time, executions and
# crashes per target and a summary line; fails on a crash. FUZZ_MERGE=1 merges
# new coverage into the committed corpus. Not part of `make test` (see the doc).
FUZZ_SECONDS ?= 60
fuzz: deps
	@deploy/dev/ensure-packages.sh time
	FUZZ_SECONDS=$(FUZZ_SECONDS) SWIFT=$(SWIFT) Fuzz/run-fuzz.sh

# The HTTP API against docs/api/openapi.yaml: Schemathesis (pinned in Tests/API/requirements.txt,
# installed into .build-api/venv) with every check, against the debug kiosk headless on loopback.
# API_FUZZ_EXAMPLES=N sets the examples per operation (default 25); API_FUZZ_FULL=1 makes it 1000.
api-fuzz-test: unit-test
	@deploy/dev/ensure-packages.sh python3-venv
	Tests/API/schemathesis_test.sh .build/debug/vitrine

# The arm64 (Raspberry Pi) cross-build, its package and its VM test: mk/arm64.mk.
include mk/arm64.mk
