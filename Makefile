# Vitrine developer entry points. `make run` and `make test` are the README's two commands.
SWIFT ?= swift
# Build: the C libraries Vitrine links (see Package.swift's system-library targets).
BUILD_PACKAGES := pkg-config libdrm-dev libturbojpeg0-dev libjpeg62-turbo-dev libevdev-dev libpng-dev
# Test: djpeg is the reference decoder the fixture tests compare against.
TEST_PACKAGES := libjpeg-turbo-progs
# Benchmarks: the reference tools measured side by side.
BENCH_PACKAGES := libjpeg-turbo-progs libvips-tools time
DEMO_CONFIG := deploy/demo/vitrine.yaml

.PHONY: deps build release run test unit-test remote-test console-test vm-test image-test bench bench-api openapi clean

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
	.build/release/vitrine run --config $(DEMO_CONFIG) --state-dir .build-demo-state

# The whole suite: unit and integration tests, the remote API against the real
# binary (SIGKILL mid-push, the web console in headless Chromium), then the VM
# tests on a real kernel, then the boot-to-kiosk image (about 6 minutes after the
# static build that vm-test makes).
test: unit-test remote-test console-test vm-test image-test

unit-test: deps
	@deploy/dev/ensure-packages.sh $(TEST_PACKAGES)
	$(SWIFT) build --build-tests
	$(SWIFT) test --skip-build

# Both use the debug binary that unit-test builds.
remote-test: unit-test
	python3 Tests/Remote/crash_test.py .build/debug/vitrine

console-test: unit-test
	python3 Tests/Console/console_test.py .build/debug/vitrine

# Regenerates the OpenAPI document the server embeds, after docs/api/openapi.yaml changed.
openapi:
	python3 deploy/dev/embed-openapi.py

# KMS/DRM end to end: Debian's kernel in QEMU (TCG) with bochs-drm and virtio-gpu.
vm-test: deps
	Tests/VM/run-vm-tests.sh

# Boot to kiosk: a Debian bookworm image (debootstrap, cached in .build-image) with
# deploy/install.sh's unit, booted in QEMU (TCG): first slide with no login, a pushed
# configuration shown and kept over a reboot, restarts after kill -9 and a hung loop.
image-test: deps
	Tests/Image/run-image-test.sh

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

clean:
	rm -rf .build
