# archsh: `make run` starts the shell, `make test` runs every test. Both install what they need.
SHELL := /bin/bash
# The C++ library's headers of the machine's GCC (12 on Debian 12, 14 on Debian 13), which the
# Swift toolchain links against.
GCC_MAJOR := $(or $(shell gcc -dumpversion 2>/dev/null | cut -d. -f1),12)
PACKAGES := libedit2 libedit-dev libsqlite3-dev libstdc++-$(GCC_MAJOR)-dev pkg-config python3 sqlite3 bc openssl man-db
# The release build has a build folder of its own: sharing .build with the debug build made each
# switch between them (make test, then make run) recompile every module, 2 min 45 s here.
# The Swift runtime is linked statically by the executable's own link options (Package.swift), not
# by --static-swift-stdlib, which would compile every module against a folder without Swift
# Testing: so the unit tests are compiled here too, on the same modules (see `test`).
# --disable-local-rpath: no RUNPATH $ORIGIN, so that no library copied next to the binary is
# loaded instead of the system's.
# Function sections let the link's --gc-sections drop each function nothing calls: 1.1 MB less
# code (docs/performance.md, "The function order file").
# -debug-info-format none: no DWARF in the shipped binary (97 MB, not 156), and a first build
# about 30 s shorter; a crash's backtrace names functions from the symbol table, without lines
# (docs/performance.md, "The release build without debug information").
RELEASE_FLAGS := -c release --scratch-path .build-release --disable-local-rpath -debug-info-format none -Xswiftc -Xfrontend -Xswiftc -function-sections -Xcc -ffunction-sections
ARCHSH_RELEASE := .build-release/release/archsh

.PHONY: run test lint format deps build release bench stress fuzz docs install uninstall dist clean

# Where `make install` puts archsh: PREFIX/bin/archsh and PREFIX/share/... (scripts/install).
PREFIX ?= $(HOME)/.local

# Installs the Debian packages that are missing (apt-get update only when something is), as root
# or through sudo.
deps:
	@scripts/apt-install $(PACKAGES)

release: deps
	scripts/build-info
	swift build $(RELEASE_FLAGS) --product archsh

run: release
	$(ARCHSH_RELEASE)

build: deps
	scripts/build-info
	swift build

# Every test runs on the release build that `make run` makes: the unit tests are compiled in
# .build-release on the very modules the binary is linked from (which the release build compiles
# for testing, Package.swift), and the tests that drive the archsh binary (pseudo-terminal,
# end-to-end, transcripts, and the board in headless Chromium) run the binary itself. What ships is
# what is tested, and no debug build of every dependency is needed.
test: release
	scripts/build-info
	swift build $(RELEASE_FLAGS) --build-tests
	swift test $(RELEASE_FLAGS) --skip-build --skip ArchShellTests
	ARCHSH_BINARY=$(CURDIR)/$(ARCHSH_RELEASE) swift test $(RELEASE_FLAGS) --skip-build --filter ArchShellTests
	scripts/browser-deps
	scripts/browser-test $(ARCHSH_RELEASE)

lint:
	swift format lint --strict --recursive Sources Tests Benchmarks Fuzz

format:
	swift format --in-place --recursive Sources Tests Benchmarks Fuzz

# Regenerates the command reference, the README's list of groups, every walkthrough's pictures
# (docs/pictures/, docs/walkthroughs.md) and the options scanner's table from ArgumentParser's
# declarations (Sources/ArchShell/OptionTable.swift); tests compare each with what the binary says.
docs: release
	$(ARCHSH_RELEASE) help --markdown > docs/commands.md
	NO_COLOR=1 $(ARCHSH_RELEASE) --db :memory: -c 'factory graph' > docs/factory-graph.txt
	scripts/readme-groups $(ARCHSH_RELEASE) README.md
	scripts/walkthrough-pictures $(ARCHSH_RELEASE)
	scripts/option-table $(ARCHSH_RELEASE) > Sources/ArchShell/OptionTable.swift.new
	cmp -s Sources/ArchShell/OptionTable.swift.new Sources/ArchShell/OptionTable.swift \
	  && rm Sources/ArchShell/OptionTable.swift.new \
	  || mv Sources/ArchShell/OptionTable.swift.new Sources/ArchShell/OptionTable.swift

# `make bench BENCH_QUICK=1` runs every benchmark with tiny sizes, to check that each still runs to
# its end (CI runs it, so that a change to a schema or an output cannot break `make bench` unseen);
# its figures mean nothing.
QUICK := $(filter 1,$(BENCH_QUICK))
export BENCH_QUICK

bench: release
	Benchmarks/run.sh $(ARCHSH_RELEASE)
	Benchmarks/store.sh $(ARCHSH_RELEASE) $(if $(QUICK),500)
	Benchmarks/products.sh $(ARCHSH_RELEASE) $(if $(QUICK),50)
	Benchmarks/datasource.sh $(ARCHSH_RELEASE) $(if $(QUICK),5000)
	Benchmarks/coordinators.sh $(ARCHSH_RELEASE) $(if $(QUICK),20)
	Benchmarks/auth.sh $(ARCHSH_RELEASE) $(if $(QUICK),50)
	Benchmarks/https.sh $(ARCHSH_RELEASE) $(if $(QUICK),20)
	Benchmarks/repository.sh $(ARCHSH_RELEASE) $(if $(QUICK),2000)
	Benchmarks/board.sh $(ARCHSH_RELEASE) $(if $(QUICK),500)
	@echo "make bench$(if $(QUICK), BENCH_QUICK=1): every benchmark ran to its end"

# The reliability trials at full strength: 100 kill -9 trials during an --atomic script.
stress: release
	Benchmarks/stress.sh $(ARCHSH_RELEASE) 100

fuzz: deps
	Fuzz/run.sh

# The release binary with its walkthroughs, exercises, man page and completions, under PREFIX;
# `make uninstall PREFIX=…` removes exactly what it put there, and `make dist` makes the archive
# of the same layout (.build-release/dist/archsh-VERSION-OS-ARCH.tar.gz).
install: release
	scripts/install $(ARCHSH_RELEASE) "$(PREFIX)"

uninstall:
	scripts/uninstall "$(PREFIX)"

dist: release
	scripts/dist $(ARCHSH_RELEASE)

clean:
	rm -rf .build .build-release .build-fuzz
