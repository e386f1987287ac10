# perfgate's two entry points (see README.md):
#   make demo   install what is missing, build, run the gate on the bundled benchmarks
#   make test   install what is missing, build, run the whole test suite
# Both are idempotent. The build itself is CMake; this file only wires steps.
BUILD ?= build
ASAN_BUILD ?= build-asan
DEB_BUILD ?= build-deb
JOBS ?= $(shell nproc 2>/dev/null || echo 2)

.PHONY: all deps deps-test build demo test test-sanitize install deb clean

all: build

deps:
	@ci/install-deps.sh build

deps-test:
	@ci/install-deps.sh test

# perfgate itself needs only the build packages; the tests are configured
# (and their packages installed) by `make test` alone
build: deps
	@cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=RelWithDebInfo -DPERFGATE_TESTS=OFF >/dev/null
	@cmake --build $(BUILD) -j$(JOBS)

# the demo needs only the perfgate binary (it builds the benchmarks itself)
demo: deps
	@cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=RelWithDebInfo -DPERFGATE_TESTS=OFF >/dev/null
	@echo "building perfgate (log: $(BUILD)/build.log)"
	@cmake --build $(BUILD) -j$(JOBS) --target perfgate >$(BUILD)/build.log 2>&1 || { tail -40 $(BUILD)/build.log; exit 1; }
	@bench/demo.sh $(BUILD)

test: deps-test
	@cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=RelWithDebInfo -DPERFGATE_TESTS=ON >/dev/null
	@cmake --build $(BUILD) -j$(JOBS)
	@tests/node/install.sh
	@cd $(BUILD) && ctest --output-on-failure -j$(JOBS)

test-sanitize: deps-test
	@cmake -S . -B $(ASAN_BUILD) -DCMAKE_BUILD_TYPE=Debug -DPERFGATE_TESTS=ON -DPERFGATE_SANITIZE=address,undefined >/dev/null
	@cmake --build $(ASAN_BUILD) -j$(JOBS)
	@tests/node/install.sh
	@# --repeat until-pass:2: LeakSanitizer's own exit-time scan (ScanRangeForPointers)
	@# crashes now and then under load ("Tracer caught signal 11") in annotate's tests;
	@# a test that fails twice fails the target. make test itself never retries.
	@cd $(ASAN_BUILD) && ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 ctest --output-on-failure --repeat until-pass:2 -j$(JOBS)

install: build
	@cmake --install $(BUILD) $(if $(PREFIX),--prefix $(PREFIX),)

# perfgate_<version>_<distro>_<arch>.deb in this directory (packaging/packaging.cmake):
# a Release build for /usr without the tests, with Debian's hardening flags
# (dpkg-buildflags), packed by CPack; DEB_MAINTAINER="Name <address>" sets
# the Maintainer field
deb:
	@ci/install-deps.sh deb
	@export DEB_BUILD_MAINT_OPTIONS=hardening=+all && \
	 CFLAGS="$$(dpkg-buildflags --get CFLAGS) $$(dpkg-buildflags --get CPPFLAGS)" \
	 LDFLAGS="$$(dpkg-buildflags --get LDFLAGS)" \
	 cmake -S . -B $(DEB_BUILD) -DCMAKE_BUILD_TYPE=Release -DPERFGATE_TESTS=OFF -DPERFGATE_WERROR=OFF -DCMAKE_SKIP_INSTALL_ALL_DEPENDENCY=ON \
	       -DCMAKE_INSTALL_PREFIX=/usr $(if $(DEB_MAINTAINER),"-DPERFGATE_DEB_MAINTAINER=$(DEB_MAINTAINER)") >/dev/null
	@cmake --build $(DEB_BUILD) -j$(JOBS) --target perfgate pg_docs_generated -- --no-print-directory
	@cd $(DEB_BUILD) && rm -rf pkg && cpack -G DEB -B "$$PWD/pkg" >/dev/null
	@for f in $(DEB_BUILD)/pkg/perfgate_*.deb; do mv "$$f" . && echo "built $${f##*/}"; done

clean:
	rm -rf $(BUILD) $(ASAN_BUILD) $(DEB_BUILD)
