# The two README commands. Both install missing Debian packages first
# (scripts/install-deps.sh, idempotent), then configure and build with the
# CMake presets in CMakePresets.json.
JOBS ?= 2
BIN := build/release/app

.PHONY: demo test deps build sanitizers clean

deps:
	@./scripts/install-deps.sh

build: deps
	@cmake --preset release >/dev/null
	@cmake --build --preset release -j $(JOBS)

# The 3-rank ring lesson: in the window when a display exists, else in the terminal.
demo: build
	@./scripts/demo.sh

# Every CTest suite of the release build, then the threads suites under
# ThreadSanitizer and the core and kernel suites under ASan + UBSan.
test: build
	@cd build/release && ctest --output-on-failure -j $(JOBS)
	@$(MAKE) --no-print-directory sanitizers

sanitizers: deps
	@cmake --preset tsan >/dev/null
	@cmake --build --preset tsan -j $(JOBS) --target test_threads
	@cd build/tsan && TSAN_OPTIONS="halt_on_error=1 second_deadlock_stack=1" \
	  ctest --output-on-failure -j $(JOBS) -L tsan
	@cmake --preset asan >/dev/null
	@cmake --build --preset asan -j $(JOBS) --target test_core test_kernels
	@cd build/asan && ASAN_OPTIONS="detect_leaks=1" UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1" \
	  ctest --output-on-failure -j $(JOBS) -L "core|kernels"

clean:
	rm -rf build
