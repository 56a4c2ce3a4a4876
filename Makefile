# archsh: `make run` starts the shell, `make test` runs every test. Both install what they need.
SHELL := /bin/bash
SUDO := $(shell [ "$$(id -u)" = "0" ] || echo sudo)
PACKAGES := libedit-dev libsqlite3-dev libcurl4-openssl-dev pkg-config python3 sqlite3 bc
RELEASE_FLAGS := -c release --static-swift-stdlib
ARCHSH_RELEASE := .build/release/archsh

.PHONY: run test lint format deps build release bench stress fuzz docs clean

# Installs the Debian packages that are missing (apt-get update only when something is).
deps:
	@missing=""; for p in $(PACKAGES); do dpkg -s $$p >/dev/null 2>&1 || missing="$$missing $$p"; done; \
	if [ -n "$$missing" ]; then \
	  echo "installing:$$missing"; \
	  $(SUDO) apt-get update -qq && $(SUDO) DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing >/dev/null; \
	fi

release: deps
	swift build $(RELEASE_FLAGS) --product archsh

run: release
	$(ARCHSH_RELEASE)

build: deps
	swift build

test: deps
	swift build --build-tests
	swift test --skip-build

lint:
	swift format lint --strict --recursive Sources Tests Benchmarks Fuzz

format:
	swift format --in-place --recursive Sources Tests Benchmarks Fuzz

# Regenerates the command reference that a test compares with the binary's own help.
docs: build
	.build/debug/archsh help --markdown > docs/commands.md

bench: release
	Benchmarks/run.sh $(ARCHSH_RELEASE)
	Benchmarks/store.sh $(ARCHSH_RELEASE)
	Benchmarks/products.sh $(ARCHSH_RELEASE)
	Benchmarks/datasource.sh $(ARCHSH_RELEASE)
	Benchmarks/coordinators.sh $(ARCHSH_RELEASE)

# The reliability trials at full strength: 100 kill -9 trials during an --atomic script.
stress: build
	Benchmarks/stress.sh .build/debug/archsh 100

fuzz: deps
	Fuzz/run.sh

clean:
	rm -rf .build .build-fuzz
