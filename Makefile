# Builds the engine binary the way OpenBench, fastchess and cutechess expect:
#   make EXE=texel-engine   ->  ./texel-engine (UCI with no arguments; `./texel-engine bench`)
#   make EXE=texel-spsa PARAMS=list  ->  its `uci` also lists every tunable parameter, as
#                                        SPSA tuners need (GUIs and polyglot refuse them);
#                                        only the binary's own crate is built twice (with the
#                                        listing, copied, then without), so the plain
#                                        target/release/texel is left as it was
EXE ?= texel
CARGO ?= cargo
PARAMS ?=

.PHONY: all clean

BUILD := $(CARGO) build --release -p texel-cli

ifeq ($(PARAMS),list)
all:
	TEXEL_LIST_PARAMS=1 $(BUILD)
	cp target/release/texel $(EXE)
	$(BUILD)
else
all:
	$(BUILD)
	cp target/release/texel $(EXE)
endif

clean:
	$(CARGO) clean
