# Vitrine developer entry points. `make run` and `make test` are the README's two commands.
SWIFT ?= swift
# Build: the C libraries Vitrine links (see Package.swift's system-library targets).
BUILD_PACKAGES := pkg-config libdrm-dev libturbojpeg0-dev libevdev-dev libpng-dev
# Test: djpeg is the reference decoder the fixture tests compare against.
TEST_PACKAGES := libjpeg-turbo-progs
# Benchmarks: the reference tools measured side by side.
BENCH_PACKAGES := libjpeg-turbo-progs libvips-tools time
DEMO_CONFIG := deploy/demo/vitrine.yaml

.PHONY: deps build release run test unit-test vm-test bench clean

deps:
	@deploy/dev/ensure-packages.sh $(BUILD_PACKAGES)

build: deps
	$(SWIFT) build

release: deps
	$(SWIFT) build -c release

# Runs the kiosk on the bundled demo playlist: on KMS/DRM when a card is there,
# otherwise headless with a live preview PNG (the log says where).
run: release
	.build/release/vitrine run --config $(DEMO_CONFIG)

# The whole suite: unit and integration tests, then the VM tests on a real kernel.
test: unit-test vm-test

unit-test: deps
	@deploy/dev/ensure-packages.sh $(TEST_PACKAGES)
	$(SWIFT) build --build-tests
	$(SWIFT) test --skip-build

# KMS/DRM end to end: Debian's kernel in QEMU (TCG) with bochs-drm and virtio-gpu.
vm-test: deps
	Tests/VM/run-vm-tests.sh

bench: release
	@deploy/dev/ensure-packages.sh $(BENCH_PACKAGES)
	.build/release/vitrine bench decode
	.build/release/vitrine bench compose
	.build/release/vitrine bench memory

clean:
	rm -rf .build
