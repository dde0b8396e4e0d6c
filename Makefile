# simhash: PostgreSQL extension (PGXS build) plus the PostgreSQL-free C++ core's own tests.
#
#   make && make install          build and install the extension
#   make installcheck             pg_regress against a running server (PGHOST/PGPORT/PGUSER)
#   make core-test                GoogleTest suite of the C++ core (no PostgreSQL needed)
#   make core-test-asan           the same under AddressSanitizer + UndefinedBehaviorSanitizer
#   make WERROR=1 ...             warnings are errors (the test script builds this way)

EXTENSION  = simhash
EXTVERSION = 1.4
MODULE_big = simhash

# The current version's install script is assembled from one file per feature
# (src/install/NN_feature.sql), in name order. Released versions' install scripts are frozen and the
# upgrade scripts between versions are written by hand, both in src/install/versions/.
INSTALL_SQL_PARTS = $(sort $(wildcard src/install/*.sql))
DATA_built = $(EXTENSION)--$(EXTVERSION).sql
DATA = $(sort $(wildcard src/install/versions/$(EXTENSION)--*.sql))

CORE_SRCS   = $(sort $(wildcard src/core/*.cpp))
BRIDGE_SRCS = $(sort $(wildcard src/bridge/*.cpp))
GLUE_SRCS   = $(sort $(wildcard src/pg/*/*.c src/pg/index_am/*/*.c))
OBJS = $(GLUE_SRCS:.c=.o) $(BRIDGE_SRCS:.cpp=.o) $(CORE_SRCS:.cpp=.o)

# Every sql/NAME.sql is a pg_regress test (expected output expected/NAME.out), run in
# name order; t/*.pl are the TAP tests.
REGRESS = $(patsubst sql/%.sql,%,$(sort $(wildcard sql/*.sql)))
REGRESS_OPTS = --load-extension=$(EXTENSION)
TAP_TESTS = 1
PROVE_TESTS = t/*.pl

# POPCNT makes hamming() one instruction; x86-64 CPUs without it predate 2008 and are refused
# with a clear error when the library loads (see src/pg/common/simhash_module.c).
ARCH := $(shell uname -m)
ifeq ($(ARCH),x86_64)
ARCH_FLAGS = -mpopcnt
endif

CORE_LIBS = -lutf8proc
# Only PostgreSQL's entry points leave the library (the module magic, _PG_init, each SQL-callable
# function and its pg_finfo_ record); the C++ core and the glue's helpers stay local, so that no
# other extension loaded into the same backend can collide with them. The list is made from the
# PG_FUNCTION_INFO_V1 lines at build time, with the background workers' entry points (declared
# "PGDLLEXPORT void name(Datum arg);").
EXPORTS_SCRIPT = simhash.exports

# HTML's named character reference table (src/core/char_references.cpp) is written at build time
# from Python's copy of it, which the script checks against a pinned hash; it is not committed.
# Everything that compiles the core depends on it.
CHAR_REFERENCE_TABLE = src/core/char_reference_table.inc

# The glue's wings (src/pg/*/) include each other's headers by name; the index access method's
# layers (src/pg/index_am/{am,lsm,store,format}/) by a path that names the layer ("store/mih_store.h").
PG_CPPFLAGS = -I$(srcdir)/src/core -I$(srcdir)/src/bridge $(addprefix -I$(srcdir)/,$(sort $(wildcard src/pg/*/)))
PG_CFLAGS   = $(ARCH_FLAGS) $(if $(WERROR),-Werror)
PG_CXXFLAGS = -std=c++17 $(ARCH_FLAGS) $(if $(WERROR),-Werror)
SHLIB_LINK  = -lstdc++ $(CORE_LIBS) -Wl,--version-script=$(EXPORTS_SCRIPT)

EXTRA_CLEAN = $(EXPORTS_SCRIPT) $(CHAR_REFERENCE_TABLE) core-test core-test-asan bench-core-page fuzz-* test/core/*.o results regression.diffs regression.out tmp_check

PG_CONFIG ?= pg_config
PGXS := $(shell $(PG_CONFIG) --pgxs)
include $(PGXS)

# PGXS compiles every .cpp again to LLVM bitcode for JIT inlining, without PG_CXXFLAGS.
COMPILE.cxx.bc += $(PG_CXXFLAGS)
COMPILE.c.bc += $(ARCH_FLAGS)

$(DATA_built): $(INSTALL_SQL_PARTS)
	cat $^ > $@

$(EXPORTS_SCRIPT): $(GLUE_SRCS)
	{ echo '{ global: Pg_magic_func; _PG_init;'; \
	  sed -n -e 's/^PG_FUNCTION_INFO_V1(\([A-Za-z0-9_]*\));.*/\1; pg_finfo_\1;/p' \
	         -e 's/^PGDLLEXPORT void \([A-Za-z0-9_]*\)(Datum arg);/\1;/p' $^; \
	  echo 'local: *; };'; } > $@
$(shlib): $(EXPORTS_SCRIPT)

# PGXS tracks no header dependencies: rebuild every object when any project header changes, so a
# changed class layout can never be linked against objects compiled with the old one.
PROJECT_HEADERS = $(wildcard src/core/*.h src/core/*.hpp src/bridge/*.h src/bridge/*.hpp src/pg/*/*.h src/pg/index_am/*/*.h)
$(OBJS) $(OBJS:.o=.bc): $(PROJECT_HEADERS)

$(CHAR_REFERENCE_TABLE): scripts/char_reference_table.py
	python3 $< $@.tmp && mv $@.tmp $@
src/core/char_references.o src/core/char_references.bc: $(CHAR_REFERENCE_TABLE)

# ---- C++ core tests, built without PostgreSQL ------------------------------------------------
CORE_TEST_SRCS = $(sort $(wildcard test/core/*.cpp))
CORE_CXX       = g++ -std=c++17 -O2 -g $(ARCH_FLAGS) -Wall -Wextra $(if $(WERROR),-Werror) -Isrc/core -Isrc/bridge
SAN_FLAGS      = -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer

# simhash_mih's merge policy is plain C without PostgreSQL headers: its choosers are tested here
# (test/core/merge_policy_test.cpp), compiled as C.
POLICY_SRC  = src/pg/index_am/lsm/mih_merge_policy.c
POLICY_DEPS = $(POLICY_SRC) src/pg/index_am/lsm/mih_merge_policy.h src/core/mih_blocks.h
POLICY_CC   = gcc -std=c99 -O2 -g -Wall -Wextra $(if $(WERROR),-Werror) -Isrc/core
CORE_CXX   += -Isrc/pg/index_am/lsm

test/core/merge_policy.o: $(POLICY_DEPS)
	$(POLICY_CC) -c -o $@ $(POLICY_SRC)
test/core/merge_policy_asan.o: $(POLICY_DEPS)
	$(POLICY_CC) $(SAN_FLAGS) -c -o $@ $(POLICY_SRC)

core-test: $(CORE_TEST_SRCS) $(CORE_SRCS) $(CHAR_REFERENCE_TABLE) $(BRIDGE_SRCS) $(wildcard src/core/*.hpp src/core/*.h src/bridge/*.h) test/core/merge_policy.o
	$(CORE_CXX) -o $@ $(CORE_TEST_SRCS) $(CORE_SRCS) $(BRIDGE_SRCS) test/core/merge_policy.o -lgtest -lgtest_main -pthread $(CORE_LIBS)

core-test-asan: $(CORE_TEST_SRCS) $(CORE_SRCS) $(CHAR_REFERENCE_TABLE) $(BRIDGE_SRCS) $(wildcard src/core/*.hpp src/core/*.h src/bridge/*.h) test/core/merge_policy_asan.o
	$(CORE_CXX) $(SAN_FLAGS) -o $@ $(CORE_TEST_SRCS) $(CORE_SRCS) $(BRIDGE_SRCS) test/core/merge_policy_asan.o -lgtest -lgtest_main -pthread $(CORE_LIBS)

.PHONY: core-check
core-check: core-test core-test-asan
	./core-test
	./core-test-asan

# ---- Benchmarks of the core (Google Benchmark); never run by the tests --------------------------
# ./bench-core-page [PAGES.tsv]: see bench/core/page_bench.cpp.
BENCH_CORE_SRCS = $(sort $(wildcard bench/core/*.cpp))
bench-core: bench-core-page
bench-core-page: $(BENCH_CORE_SRCS) $(CORE_SRCS) $(CHAR_REFERENCE_TABLE) $(BRIDGE_SRCS) $(wildcard src/core/*.hpp src/core/*.h src/bridge/*.h src/bridge/*.hpp)
	g++ -std=c++17 -O2 -g $(ARCH_FLAGS) -Wall -Wextra $(if $(WERROR),-Werror) -Isrc/core -Isrc/bridge \
	    -o $@ $(BENCH_CORE_SRCS) $(CORE_SRCS) $(BRIDGE_SRCS) -lbenchmark -pthread $(CORE_LIBS)
.PHONY: bench-core

# ---- Fuzz targets (libFuzzer, clang-14) -----------------------------------------------------
# make fuzz-check builds test/fuzz/NAME_fuzz.cpp as ./fuzz-NAME and runs each for FUZZ_SECONDS from
# its seed corpus (test/fuzz/corpus/NAME). What the run generates goes to a temporary directory,
# removed when the run passes and kept (path printed) with the crashing input when it fails.
FUZZ_SRCS     = $(sort $(wildcard test/fuzz/*_fuzz.cpp))
FUZZ_BINS     = $(patsubst test/fuzz/%_fuzz.cpp,fuzz-%,$(FUZZ_SRCS))
FUZZ_SECONDS ?= 15
FUZZ_CXX      = clang++-14 -std=c++17 -O1 -g -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all \
                -Isrc/core -Isrc/bridge

fuzz-%: test/fuzz/%_fuzz.cpp test/fuzz/fuzz_support.hpp $(CORE_SRCS) $(CHAR_REFERENCE_TABLE) $(wildcard src/core/*.hpp src/core/*.h src/bridge/*.h src/bridge/*.hpp)
	$(FUZZ_CXX) -o $@ $< $(CORE_SRCS) -pthread $(CORE_LIBS)

.PHONY: fuzz-check
fuzz-check: $(FUZZ_BINS)
	@set -e; for bin in $(FUZZ_BINS); do \
	    name=$${bin#fuzz-}; work=$$(mktemp -d "$${TMPDIR:-/tmp}/simhash-fuzz.XXXXXX"); \
	    if ./$$bin -max_total_time=$(FUZZ_SECONDS) -max_len=4096 -print_final_stats=1 \
	            -artifact_prefix=$$work/ $$work test/fuzz/corpus/$$name >$$work/log 2>&1; then \
	        echo "fuzz $$name: $$(grep -m1 -o 'stat::number_of_executed_units: *[0-9]*' $$work/log | grep -o '[0-9]*$$') runs, no failure"; \
	        rm -rf "$$work"; \
	    else \
	        tail -n 30 $$work/log; echo "fuzz $$name FAILED: input and log kept in $$work"; exit 1; \
	    fi; \
	done
