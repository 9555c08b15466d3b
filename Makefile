# Builds the engine binary the way OpenBench, fastchess and cutechess expect:
#   make EXE=texel-engine   ->  ./texel-engine (UCI with no arguments; `./texel-engine bench`)
#   make EXE=texel-spsa PARAMS=list  ->  its `uci` also lists every tunable parameter, as
#                                        SPSA tuners need (GUIs and polyglot refuse them);
#                                        built in target/list-params, so the plain
#                                        target/release/texel is left as it was
EXE ?= texel
CARGO ?= cargo
PARAMS ?=

.PHONY: all clean

TARGET_DIR := $(if $(filter list,$(PARAMS)),target/list-params,target)

all:
	$(if $(filter list,$(PARAMS)),TEXEL_LIST_PARAMS=1 )$(CARGO) build --release -p texel-cli --target-dir $(TARGET_DIR)
	cp $(TARGET_DIR)/release/texel $(EXE)

clean:
	$(CARGO) clean
