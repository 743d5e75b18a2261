# haltstat - KVM halt-polling analysis
VERSION   := 0.1.0
PREFIX    ?= /usr/local
BINDIR    ?= $(PREFIX)/bin
MANDIR    ?= $(PREFIX)/share/man
DATADIR   ?= $(PREFIX)/share
DESTDIR   ?=

CC        ?= cc
PKGS      := libtracefs libtraceevent libtracecmd jansson libzstd zlib
# pkg-config runs when the first compile or link needs the flags (then once),
# not when this file is read: `make deps all` installs the packages first.
PKG_CFLAGS = $(eval PKG_CFLAGS := $(call pkg_flags,--cflags))$(PKG_CFLAGS)
PKG_LIBS   = $(eval PKG_LIBS := $(call pkg_flags,--libs))$(PKG_LIBS)
pkg_flags  = $(if $(shell pkg-config --exists $(PKGS) 2>/dev/null && echo y),$(shell pkg-config $1 $(PKGS)),$(error pkg-config does not find all of $(PKGS): install them as root with ./setup.sh (or make deps)))

CFLAGS    ?= -O2 -g
CFLAGS    += -std=c11 -D_GNU_SOURCE -Wall -Wextra -Werror -MMD -MP \
             -DHS_VERSION='"$(VERSION)"' $(PKG_CFLAGS)
LDLIBS    += $(PKG_LIBS) -lpthread -lm

# make check SANITIZE=1: the whole suite under ASan + UBSan, in its own tree.
ifeq ($(SANITIZE),1)
BUILD     ?= build/san
CFLAGS    += -O1 -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
LDFLAGS   += -fsanitize=address,undefined
else
BUILD     ?= build/rel
endif

LIB_SRCS  := $(sort $(wildcard lib/*.c lib/sys/*.c formats/trace/*.c formats/render/*.c))
CMD_SRCS  := $(sort $(wildcard cmd/*.c))
LIB_OBJS  := $(LIB_SRCS:%.c=$(BUILD)/%.o)
CMD_OBJS  := $(CMD_SRCS:%.c=$(BUILD)/%.o)
UNIT_SRCS := $(sort $(wildcard tests/unit/*.c))
UNIT_BINS := $(UNIT_SRCS:tests/unit/%.c=$(BUILD)/tests/unit/%)
TOOL_SRCS := $(sort $(wildcard tests/tools/*.c))
TOOL_BINS := $(TOOL_SRCS:tests/tools/%.c=$(BUILD)/tests/tools/%)
# Man pages made from doc/*.1.in: the kernel-era names come from the binary.
MAN_INS   := $(sort $(wildcard doc/*.1.in))
MAN_GEN   := $(MAN_INS:doc/%.1.in=$(BUILD)/doc/%.1)

# `make deps all`, also with -j: nothing compiles before deps has installed
DEPS_FIRST := $(filter deps,$(MAKECMDGOALS))

.PHONY: all deps check check-fresh bench clean install uninstall tools man fuzz fuzz-smoke fuzz-build haltstat
all: haltstat tools man

# ./haltstat is always the release build: a SANITIZE=1 build is only
# build/san/haltstat. The link is made again on every make, because a link
# left pointing elsewhere has that file's time and would look up to date.
ifeq ($(SANITIZE),1)
haltstat: $(BUILD)/haltstat
else
haltstat: $(BUILD)/haltstat
	@ln -sfn $< $@
endif

$(BUILD)/haltstat: $(CMD_OBJS) $(BUILD)/libhaltstat.a
	@$(if $(Q),echo "  LINK    $@")
	$(Q)$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

$(BUILD)/libhaltstat.a: $(LIB_OBJS)
	$(Q)rm -f $@ && ar rcs $@ $^

# make V=1 shows the full command lines
Q := $(if $(V),,@)

$(BUILD)/%.o: %.c | $(DEPS_FIRST)
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  CC      $<")
	$(Q)$(CC) $(CFLAGS) -c -o $@ $<

$(BUILD)/tests/unit/%: tests/unit/%.c $(BUILD)/libhaltstat.a | $(DEPS_FIRST)
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  CCLD    $@")
	$(Q)$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $(filter %.c %.a,$^) $(LDLIBS)

$(BUILD)/tests/tools/%: tests/tools/%.c $(BUILD)/libhaltstat.a | $(DEPS_FIRST)
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  CCLD    $@")
	$(Q)$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $(filter %.c %.a,$^) $(LDLIBS)

tools: $(TOOL_BINS) $(UNIT_BINS)

# The @KERNEL_ERAS@ line becomes ".BR 4.4 ", " 5.x ", " 6.1 " or " 6.11"; the
# template's first line (a comment about it) is left out.
$(BUILD)/doc/%.1: doc/%.1.in $(BUILD)/haltstat
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  MAN     $@")
	$(Q)$(BUILD)/haltstat help kernel-eras >$@.eras
	$(Q)awk -F '\t' 'NR == FNR { era[++n] = $$1; next } FNR == 1 { next } \
		$$0 == "@KERNEL_ERAS@" { s = ".BR"; for (i = 1; i <= n; i++) \
			s = s " " era[i] (i < n - 1 ? " \", \"" : i == n - 1 ? " \" or \"" : ""); \
			$$0 = s } { print }' $@.eras $< >$@.tmp
	$(Q)rm -f $@.eras && mv $@.tmp $@

man: $(MAN_GEN)

# the packages of debian-packages.txt, as ./setup.sh installs them (as root)
deps:
	./setup.sh --no-build

check: haltstat tools man
	@BUILD=$(BUILD) SANITIZE=$(SANITIZE) tests/run.sh

# the README's quick start in a fresh Debian 12 chroot (as root; tests/fresh/)
check-fresh:
	tests/fresh/run.sh

bench: haltstat tools
	@BUILD=$(BUILD) tests/bench/run.sh

# libFuzzer harnesses (tests/fuzz/*.c), with the lib/ and formats/ objects
# built again by clang with coverage, ASan and UBSan in their own tree.
# make fuzz: FUZZ_RUNS executions per harness over tests/fuzz/corpus/NAME
# (new inputs go to $(FUZZ_DIR)/corpus/NAME), after the regression inputs.
# Long runs go 2.4x faster without ASan: make fuzz FUZZ_DIR=build/fuzzfast
# FUZZ_SAN=-fsanitize=undefined; then replay the corpus under the default
# build (build/libfuzzer/fuzz_NAME -runs=0 DIR).
FUZZ_CC    ?= clang
FUZZ_DIR   ?= build/libfuzzer
FUZZ_RUNS  ?= 2000000
FUZZ_SMOKE_RUNS ?= 20000
FUZZ_SMOKE_SECONDS ?= 8
FUZZ_SAN   := -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
FUZZ_CFLAGS = -O1 -g -std=c11 -D_GNU_SOURCE -Wall -Wextra -Werror -MMD -MP \
               -DHS_VERSION='"$(VERSION)"' $(PKG_CFLAGS) $(FUZZ_SAN)
FUZZ_OBJS  := $(LIB_SRCS:%.c=$(FUZZ_DIR)/%.o)
FUZZ_SRCS  := $(sort $(wildcard tests/fuzz/*.c))
FUZZ_BINS  := $(FUZZ_SRCS:tests/fuzz/%.c=$(FUZZ_DIR)/%)

$(FUZZ_DIR)/%.o: %.c | $(DEPS_FIRST)
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  FUZZCC  $<")
	$(Q)$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer-no-link -c -o $@ $<

$(FUZZ_DIR)/libhaltstat.a: $(FUZZ_OBJS)
	$(Q)rm -f $@ && ar rcs $@ $^

$(FUZZ_DIR)/fuzz_%: tests/fuzz/fuzz_%.c $(FUZZ_DIR)/libhaltstat.a | $(DEPS_FIRST)
	@$(if $(Q),echo "  FUZZLD  $@")
	$(Q)$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer -o $@ $(filter %.c %.a,$^) $(LDLIBS)

fuzz-build: $(FUZZ_BINS)

fuzz: fuzz-build
	@FUZZ_DIR=$(FUZZ_DIR) FUZZ_RUNS=$(FUZZ_RUNS) tests/fuzz/run.sh

fuzz-smoke: fuzz-build
	@FUZZ_DIR=$(FUZZ_DIR) FUZZ_RUNS=$(FUZZ_SMOKE_RUNS) FUZZ_SECONDS=$(FUZZ_SMOKE_SECONDS) FUZZ_SMOKE=1 tests/fuzz/run.sh

install: haltstat man
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(MANDIR)/man1 \
		$(DESTDIR)$(DATADIR)/bash-completion/completions \
		$(DESTDIR)$(DATADIR)/zsh/vendor-completions \
		$(DESTDIR)$(DATADIR)/fish/vendor_completions.d \
		$(DESTDIR)$(DATADIR)/haltstat
	install -m 755 $(BUILD)/haltstat $(DESTDIR)$(BINDIR)/haltstat
	install -m 644 formats/render/report.schema.json formats/render/diff.schema.json \
		formats/render/top.schema.json formats/render/replay.schema.json \
		$(DESTDIR)$(DATADIR)/haltstat/
	install -m 644 contrib/grafana/haltstat.json $(DESTDIR)$(DATADIR)/haltstat/grafana-dashboard.json
	for f in doc/*.1 $(MAN_GEN); do [ -e "$$f" ] && install -m 644 $$f $(DESTDIR)$(MANDIR)/man1/; done; true
	[ ! -e completions/haltstat.bash ] || install -m 644 completions/haltstat.bash $(DESTDIR)$(DATADIR)/bash-completion/completions/haltstat
	[ ! -e completions/_haltstat ] || install -m 644 completions/_haltstat $(DESTDIR)$(DATADIR)/zsh/vendor-completions/_haltstat
	[ ! -e completions/haltstat.fish ] || install -m 644 completions/haltstat.fish $(DESTDIR)$(DATADIR)/fish/vendor_completions.d/haltstat.fish

uninstall:
	rm -f $(DESTDIR)$(BINDIR)/haltstat $(DESTDIR)$(MANDIR)/man1/haltstat*.1 \
		$(DESTDIR)$(DATADIR)/bash-completion/completions/haltstat \
		$(DESTDIR)$(DATADIR)/zsh/vendor-completions/_haltstat \
		$(DESTDIR)$(DATADIR)/fish/vendor_completions.d/haltstat.fish
	rm -rf $(DESTDIR)$(DATADIR)/haltstat

# --one-file-system: never into whatever may be mounted under build/fresh
clean:
	rm -rf --one-file-system build haltstat

# the dependency files of the trees this make builds (not the chroot's)
-include $(wildcard $(BUILD)/*/*.d $(BUILD)/*/*/*.d $(BUILD)/tests/*/*.d $(FUZZ_DIR)/*.d $(FUZZ_DIR)/*/*.d $(FUZZ_DIR)/*/*/*.d)
