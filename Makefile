# mhaviz - multi-head attention, the way it runs in memory.
#
#   make run     build if needed, open the program
#   make test    build and run every test, plain and under ASan + UBSan
#   make bench   print speed and memory figures
#
# Everything built goes to .build/ (plain) and .build/asan/ (sanitizers).

PREFIX  ?= /usr/local
BINDIR  ?= $(PREFIX)/bin
MANDIR  ?= $(PREFIX)/share/man
CC      ?= cc
B       := .build
BIN     := $(B)/mhaviz

WARN    := -std=c11 -Wall -Wextra -Wshadow -pedantic
# sqrt() becomes one instruction, so nothing needs libm (see tensor_exp)
MATH    := -fno-math-errno
# Optimised builds inline sqrt and need no libm (--as-needed then drops it);
# an -O0 build still calls sqrtf and links it.
LIBM    := -Wl,--as-needed -lm
# tensor_matmul runs on every core (engine/tensor.c); ui/runjob.c computes a
# big run beside the loop.
THREADS := -pthread
CFLAGS  ?= -O2 -g
CPPFLAGS += -D_DEFAULT_SOURCE

# Libraries, found with pkg-config.  Missing ones are installed by `deps`.
PKGS_RUN  := ncursesw libedit
PKGS_TEST := check
NCURSES_CFLAGS = $(shell pkg-config --cflags ncursesw 2>/dev/null)
NCURSES_LIBS   = $(shell pkg-config --libs ncursesw 2>/dev/null)
EDIT_LIBS      = $(shell pkg-config --libs libedit 2>/dev/null)
CHECK_CFLAGS   = $(shell pkg-config --cflags check 2>/dev/null)
CHECK_LIBS     = $(shell pkg-config --libs check 2>/dev/null)

SRC      := $(wildcard src/*/*.c)
LIB_SRC  := $(filter-out src/cmd/main.c,$(SRC))
CONTENT  := $(sort $(wildcard lessons/*.lesson lessons/*.quiz assets/*.presets assets/*.names))
TESTS    := $(patsubst tests/%.c,%,$(wildcard tests/check_*.c))
E2E      := $(filter-out tests/e2e_lib.sh,$(sort $(wildcard tests/e2e_*.sh)))

SAN      := -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined

.PHONY: all run test check asan unit e2e snapshots pictures bench install uninstall clean deps deps-test

all: deps $(BIN)

run: all
	@$(BIN) $(ARGS)

# --- dependencies -----------------------------------------------------------
# Debian package for each pkg-config name ($(1)), command ($(2): the package
# of the same name, but chromedriver's is chromium-driver) and Python module
# ($(3): python3-NAME, for python3 or Debian's /usr/bin/python3); installed
# with apt-get when we are root (or have sudo), otherwise we stop with the
# exact command to run.
DEB_ncursesw := libncurses-dev
DEB_check    := check
DEB_libedit  := libedit-dev
define need
	@missing=""; \
	command -v pkg-config >/dev/null 2>&1 || missing="pkg-config"; \
	for p in $(1); do pkg-config --exists $$p 2>/dev/null || missing="$$missing $$(case $$p in ncursesw) echo $(DEB_ncursesw);; check) echo $(DEB_check);; libedit) echo $(DEB_libedit);; esac)"; done; \
	for t in $(2); do command -v $$t >/dev/null 2>&1 || missing="$$missing $$(case $$t in chromedriver) echo chromium-driver;; *) echo $$t;; esac)"; done; \
	for m in $(3); do { python3 -c "import $$m" || /usr/bin/python3 -c "import $$m"; } >/dev/null 2>&1 || missing="$$missing python3-$$m"; done; \
	if [ -n "$$missing" ]; then \
	  if [ "$$(id -u)" = 0 ]; then sudo=""; elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then sudo="sudo"; else \
	    echo "mhaviz: missing:$$missing"; echo "  run: sudo apt-get install -y$$missing"; exit 1; fi; \
	  echo "mhaviz: installing$$missing"; \
	  $$sudo apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$sudo apt-get install -y -qq$$missing >/dev/null || { \
	    echo "mhaviz: apt-get failed; run: sudo apt-get install -y$$missing"; exit 1; }; \
	fi
endef

deps:
	$(call need,$(PKGS_RUN),)
# The browser (headless, for the HTML deck: tests/e2e_deck.sh) is a test tool too.
deps-test:
	$(call need,$(PKGS_RUN) $(PKGS_TEST),tmux python3 clang-format chromium chromedriver,selenium)

# --- build --------------------------------------------------------------------
# Lessons, quiz banks and presets are compiled in, so an installed binary works
# from any directory.  Each file becomes a byte array in content.c.
$(B)/content.c: $(CONTENT) Makefile | $(B)
	@{ echo '/* generated from lessons/ and assets/ by the Makefile; do not edit */'; \
	   echo '#include "content/content.h"'; \
	   i=0; for f in $(CONTENT); do \
	     echo "static const unsigned char c$$i[] = {"; \
	     od -An -v -tx1 "$$f" | awk '{ for (k = 1; k <= NF; k++) printf "0x%s,", $$k; print "" }'; \
	     echo "0x00};"; i=$$((i+1)); done; \
	   echo 'const ContentFile content_files[] = {'; \
	   i=0; for f in $(CONTENT); do echo "  {\"$$f\", (const char *)c$$i, sizeof c$$i - 1},"; i=$$((i+1)); done; \
	   echo '  {0, 0, 0}};'; } > $@

$(B) $(B)/asan:
	@mkdir -p $@

# Each object depends on the headers it includes, as the compiler found them
# (-MMD writes $(B)/x.d beside x.o; -MP keeps a deleted header from breaking
# the build): a header change rebuilds only what includes it.
# An object without its .d (built before, or the .d lost) is built again
# (the DEPS rule at the end; Paul Smith's "Auto-Dependency Generation").
DEPFLAGS := -MMD -MP
$(B)/%.o: src/%.c $(B)/%.d | $(B)
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(DEPFLAGS) $(WARN) $(MATH) $(CFLAGS) $(NCURSES_CFLAGS) -Isrc -c $< -o $@
$(B)/content.o: $(B)/content.c src/content/content.h
	$(CC) $(CPPFLAGS) $(WARN) $(MATH) $(CFLAGS) -Isrc -c $< -o $@

OBJ     := $(patsubst src/%.c,$(B)/%.o,$(LIB_SRC)) $(B)/content.o
$(BIN): $(OBJ) $(B)/cmd/main.o
	$(CC) $(CFLAGS) -o $@ $^ $(NCURSES_LIBS) $(EDIT_LIBS) $(THREADS) $(LIBM)

# Sanitizer build: same sources, own objects.
$(B)/asan/%.o: src/%.c $(B)/asan/%.d | $(B)/asan
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(DEPFLAGS) $(WARN) $(MATH) -O1 -g $(SAN) $(NCURSES_CFLAGS) -Isrc -c $< -o $@
$(B)/asan/content.o: $(B)/content.c src/content/content.h | $(B)/asan
	$(CC) $(CPPFLAGS) $(WARN) $(MATH) -O1 -g $(SAN) -Isrc -c $< -o $@
AOBJ    := $(patsubst src/%.c,$(B)/asan/%.o,$(LIB_SRC)) $(B)/asan/content.o
$(B)/asan/mhaviz: $(AOBJ) $(B)/asan/cmd/main.o
	$(CC) $(SAN) -o $@ $^ $(NCURSES_LIBS) $(EDIT_LIBS) $(THREADS) $(LIBM)

# --- tests --------------------------------------------------------------------
# check_quiz_bank counts the engines a parse makes by wrapping engine_new.
$(B)/check_quiz_bank $(B)/asan/check_quiz_bank: CHECK_CFLAGS += -Wl,--wrap=engine_new
$(B)/%: tests/%.c $(OBJ) $(wildcard tests/*.h)
	$(CC) $(CPPFLAGS) $(DEPFLAGS) $(WARN) $(MATH) $(CFLAGS) $(CHECK_CFLAGS) -Isrc -Itests $< $(OBJ) -o $@ $(CHECK_LIBS) $(NCURSES_LIBS) $(EDIT_LIBS) $(THREADS) $(LIBM)
$(B)/asan/%: tests/%.c $(AOBJ) $(wildcard tests/*.h) | $(B)/asan
	$(CC) $(CPPFLAGS) $(DEPFLAGS) $(WARN) $(MATH) -O1 -g $(SAN) $(CHECK_CFLAGS) -Isrc -Itests $< $(AOBJ) -o $@ $(CHECK_LIBS) $(NCURSES_LIBS) $(EDIT_LIBS) $(THREADS) $(LIBM)

# `make test` = every unit test and every end-to-end test, plain and under
# ASan + UBSan.  CK_FORK=no keeps sanitizer reports in the test's own process.
#
# Each suite and each script is a target of its own: its run writes
# .build/log/MODE/NAME.log (and NAME.log.fail, its exit status, when it
# fails), so `make -j` runs them side by side.  `make test` builds and runs
# everything of both modes in one `make -j$(JOBS)` (the asan build overlaps the
# plain tests), prints one line as each run ends, then every log whole in
# order (plain unit, plain e2e, asan unit, asan e2e), and fails naming each
# failed one.  A run never stops the others: all of them report.  Safe side
# by side: each e2e script has its own temp dir, state dir and tmux server
# (tests/e2e_lib.sh).  `make unit`, `make e2e` (MODE=plain or asan) and
# `make asan` work the same way for one mode.
JOBS  ?= $(shell nproc 2>/dev/null || echo 2)
MODE  ?= plain
LOG   := $(B)/log
# the sanitizers' options for every run of the asan build, with ncurses' and
# gpm's own leaks suppressed, with why (tests/lsan.supp)
ASAN_ENV := ASAN_OPTIONS=detect_leaks=1:abort_on_error=0:exitcode=99 \
	UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1:exitcode=98 \
	LSAN_OPTIONS=suppressions=$(CURDIR)/tests/lsan.supp
UNIT_LOGS = $(addprefix $(LOG)/$(1)/,$(addsuffix .log,$(TESTS)))
E2E_LOGS  = $(patsubst tests/%.sh,$(LOG)/$(1)/%.log,$(E2E))
# the slowest runs first (check_quiz under asan is the longest of all), so
# that the short ones fill the end
TEST_LOGS = $(call UNIT_LOGS,asan) $(call E2E_LOGS,asan) $(call E2E_LOGS,plain) $(call UNIT_LOGS,plain)

test check: deps-test
	@bash tests/layers.sh
	@$(MAKE) --no-print-directory format-check
	@$(MAKE) --no-print-directory -j$(JOBS) test-logs
	@echo "mhaviz: all tests passed (plain and ASan+UBSan)"

# Every C file of src/ and tests/ as .clang-format lays it out: `make format`
# rewrites them, `make format-check` (in make test) names any that differ.
FORMAT_FILES = $(sort $(wildcard src/*/*.[ch] tests/*.[ch] tests/fuzz/*.[ch]))
.PHONY: format format-check
format:
	@clang-format -i $(FORMAT_FILES)
format-check:
	@clang-format --dry-run --Werror $(FORMAT_FILES) 2>&1 | grep -m 20 'error:' \
	  && { echo "mhaviz: run make format (the files above are not as .clang-format lays them out)"; exit 1; } \
	  || echo "format: $(words $(FORMAT_FILES)) files as .clang-format lays them out"

# run_log CMD: runs CMD with its output in $@, its exit status in $@.fail
# when it fails; says how it went in one line
define run_log
	@mkdir -p $(@D); rm -f $@.fail; s=$$(date +%s); \
	$(1) >$@ 2>&1 || echo $$? >$@.fail; \
	echo "   $(notdir $(@D)) $(@F:.log=): $$([ -f $@.fail ] && echo "FAILED (exit $$(cat $@.fail))" || echo ok), $$(($$(date +%s) - s)) s"
endef
# report TITLE LOGS...: each log whole, in order, under its name; then each
# failed run's log whole again, last, and one line naming them (exit 1)
define report
	@f="" fl=""; echo "== $(1) =="; for l in $(2); do n=$${l##*/}; m=$${l%/*}; echo "-- $${n%.log} ($${m##*/})"; cat $$l; \
	  [ ! -f $$l.fail ] || { f="$$f $${m##*/}/$${n%.log} (exit $$(cat $$l.fail))"; fl="$$fl $$l"; }; done; \
	[ -z "$$f" ] || { for l in $$fl; do echo "== failed: $$l =="; cat $$l; done; \
	  echo "mhaviz: FAILED:$$f; the logs are in $(LOG)/"; exit 1; }
endef

$(LOG)/plain/check_%.log: $(B)/check_% $(BIN) FORCE
	$(call run_log,env CK_FORK=no MHAVIZ_BIN=$(BIN) $<)
$(LOG)/asan/check_%.log: $(B)/asan/check_% $(B)/asan/mhaviz FORCE
	$(call run_log,env CK_FORK=no MHAVIZ_BIN=$(B)/asan/mhaviz $(ASAN_ENV) $<)
$(LOG)/plain/e2e_%.log: tests/e2e_%.sh $(BIN) FORCE
	$(call run_log,env MHAVIZ_BIN=$(BIN) MODE=plain bash $<)
$(LOG)/asan/e2e_%.log: tests/e2e_%.sh $(B)/asan/mhaviz FORCE
	$(call run_log,env MHAVIZ_BIN=$(B)/asan/mhaviz MODE=asan $(ASAN_ENV) bash $<)
.PHONY: FORCE test-logs
FORCE:
# the suites' binaries, made only for their logs: kept, not removed as
# intermediate files (the next make test would link them all again)
.SECONDARY: $(addprefix $(B)/,$(TESTS)) $(addprefix $(B)/asan/,$(TESTS))

test-logs: $(TEST_LOGS)
	$(call report,all tests (plain and asan),$(call UNIT_LOGS,plain) $(call E2E_LOGS,plain) $(call UNIT_LOGS,asan) $(call E2E_LOGS,asan))

asan: deps-test
	@$(MAKE) --no-print-directory -j$(JOBS) unit e2e MODE=asan

unit: $(call UNIT_LOGS,$(MODE))
	$(call report,unit tests ($(MODE)),$^)

e2e: $(call E2E_LOGS,$(MODE))
	$(call report,end-to-end tests ($(MODE)),$^)

# Record the snapshot tests' expected output again, on purpose (commit it with why).
snapshots: all
	@MHAVIZ_BIN=$(BIN) bash tests/e2e_snapshots.sh update

# The README's pictures, drawn by the program itself: assets/walk-stepN.svg is
# `mhaviz frames --step N --format svg` (step 2's relabelling, step 8's copy).
# tests/e2e_pictures.sh (in make test) fails when they differ from what it
# draws now; then run this and commit them with why.
PICTURE_STEPS := 2 8
pictures: all
	@for n in $(PICTURE_STEPS); do $(BIN) frames --step $$n --format svg > assets/walk-step$$n.svg || exit 1; \
	  echo "assets/walk-step$$n.svg"; done

bench: all
	@bash tests/bench.sh $(BIN)

# --- install ------------------------------------------------------------------
install: all
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(MANDIR)/man1
	install -m 755 -s $(BIN) $(DESTDIR)$(BINDIR)/mhaviz
	install -m 644 assets/mhaviz.1 $(DESTDIR)$(MANDIR)/man1/mhaviz.1
uninstall:
	rm -f $(DESTDIR)$(BINDIR)/mhaviz $(DESTDIR)$(MANDIR)/man1/mhaviz.1

clean:
	rm -rf $(B)

# --- valgrind -----------------------------------------------------------------
# `make valgrind`: every unit suite under memcheck, each in one process
# (CK_FORK=no); any error or any definite, indirect or possible leak fails it.
# ncurses' still-reachable blocks (its terminfo cache) are not leaks.  Prints
# each suite's time.
.PHONY: valgrind
VALGRIND := valgrind -q --error-exitcode=97 --leak-check=full \
	--show-leak-kinds=definite,indirect,possible --errors-for-leak-kinds=definite,indirect,possible
valgrind: deps-test $(addprefix $(B)/,$(TESTS)) $(BIN)
	$(call need,,valgrind)
	@echo "== unit tests under valgrind =="
	@set -e; t0=$$(date +%s); for t in $(TESTS); do s=$$(date +%s); \
	  CK_FORK=no MHAVIZ_BIN=$(BIN) $(VALGRIND) $(B)/$$t; \
	  echo "   $$t: $$(( $$(date +%s) - s )) s"; done; \
	  echo "mhaviz: valgrind clean: $(words $(TESTS)) suites, 0 errors, 0 leaks, $$(( $$(date +%s) - t0 )) s"

# fmtfloat on all 2^32 float32 bit patterns against strtof, in 64 slices on
# every core (a few minutes; not part of `make test`, which checks millions).
.PHONY: fmtfloat-all
fmtfloat-all: $(B)/fmtfloat_all
	@for i in $$(seq 0 63); do printf '%08x %08x\n' $$((i << 26)) $$(((i << 26) + 0x3ffffff)); done | \
	  xargs -P $$(nproc) -n 2 $(B)/fmtfloat_all > $(B)/fmtfloat-all.log; rc=$$?; \
	  grep -v ' 0 wrong' $(B)/fmtfloat-all.log; \
	  awk '{ n += $$3; w += $$5 } END { printf "fmtfloat-all: %.0f bit patterns, %d wrong\n", n, w }' \
	    $(B)/fmtfloat-all.log; exit $$rc

# --- fuzzing (tests/fuzz/) ----------------------------------------------------
# libFuzzer targets, one per reader of outside input, built with clang and
# ASan + UBSan.  `make fuzz FUZZ_SECONDS=N` runs each N seconds (default 60);
# `make fuzz-short` is CI's pass (50,000 inputs each from seed 1: a bounded run that
# mutates from the same start everywhere, not a race against the clock; run by .ci/run).
# Findings land in .build/fuzz/findings/; each one fixed becomes a file in
# tests/fuzz/regress/NAME/ that check_fuzz replays in `make test` (no clang).
FUZZ_CC      ?= clang
FUZZ_SECONDS ?= 60
FUZZ_SAN     := -fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer
FUZZ_NAMES   := $(patsubst tests/fuzz/fuzz_%.c,%,$(wildcard tests/fuzz/fuzz_*.c))
FOBJ_SRC     := $(patsubst src/%.c,$(B)/fuzz/%.o,$(LIB_SRC))
FOBJ         := $(FOBJ_SRC) $(B)/fuzz/content.o
FUZZ_BINS    := $(addprefix $(B)/fuzz/fuzz_,$(FUZZ_NAMES))
.PHONY: fuzz fuzz-short deps-fuzz

$(FOBJ_SRC): $(B)/fuzz/%.o: src/%.c $(B)/fuzz/%.d
	@mkdir -p $(@D)
	$(FUZZ_CC) $(CPPFLAGS) $(DEPFLAGS) $(WARN) $(MATH) -g -O1 $(FUZZ_SAN) -fsanitize=fuzzer-no-link $(NCURSES_CFLAGS) -Isrc -c $< -o $@
$(B)/fuzz/content.o: $(B)/content.c src/content/content.h
	@mkdir -p $(@D)
	$(FUZZ_CC) $(CPPFLAGS) $(WARN) $(MATH) -g -O1 $(FUZZ_SAN) -fsanitize=fuzzer-no-link -Isrc -c $< -o $@
$(FUZZ_BINS): $(B)/fuzz/fuzz_%: tests/fuzz/fuzz_%.c tests/fuzz/fuzz.h $(FOBJ)
	$(FUZZ_CC) $(CPPFLAGS) $(WARN) $(MATH) -g -O1 $(FUZZ_SAN) -fsanitize=fuzzer -Isrc $< $(FOBJ) -o $@ $(NCURSES_LIBS) $(EDIT_LIBS) $(THREADS) $(LIBM)

fuzz: deps-fuzz $(FUZZ_BINS)
	@bash tests/fuzz/run.sh $(FUZZ_SECONDS) $(FUZZ_NAMES)
fuzz-short: deps-fuzz $(FUZZ_BINS)
	@bash tests/fuzz/run.sh runs=50000 $(FUZZ_NAMES)

# clang, and its libFuzzer (libclang-rt-N-dev, only recommended by clang).
deps-fuzz:
	$(call need,$(PKGS_RUN),clang)
	@mkdir -p $(B) && echo 'int LLVMFuzzerTestOneInput(const char *d, long n) { return d && n; }' > $(B)/fz.c; \
	if ! $(FUZZ_CC) -fsanitize=fuzzer $(B)/fz.c -o $(B)/fz 2>/dev/null; then \
	  pkg=libclang-rt-$$($(FUZZ_CC) -dumpversion | cut -d. -f1)-dev; \
	  if [ "$$(id -u)" = 0 ]; then echo "mhaviz: installing $$pkg"; \
	    apt-get install -y -qq $$pkg >/dev/null || { echo "mhaviz: run: apt-get install -y $$pkg"; exit 1; }; \
	  else echo "mhaviz: clang has no libFuzzer; run: sudo apt-get install -y $$pkg"; exit 1; fi; \
	fi; rm -f $(B)/fz $(B)/fz.c
# check_fuzz includes the targets themselves
$(B)/check_fuzz $(B)/asan/check_fuzz: $(wildcard tests/fuzz/*.c tests/fuzz/*.h)

# The header dependencies -MMD wrote.  Each .d is named here as a target with
# no recipe, so a missing one (an object built before, or the .d lost) makes
# its object build again; a .d only found by a pattern would not.
DEPS := $(patsubst src/%.c,$(B)/%.d,$(SRC)) $(patsubst src/%.c,$(B)/asan/%.d,$(SRC)) \
        $(patsubst src/%.c,$(B)/fuzz/%.d,$(LIB_SRC)) $(addprefix $(B)/,$(addsuffix .d,$(TESTS))) \
        $(addprefix $(B)/asan/,$(addsuffix .d,$(TESTS)))
$(DEPS): ;
-include $(DEPS)
