# Builds the engine binary the way OpenBench, fastchess and cutechess expect:
#   make EXE=texel-engine   ->  ./texel-engine (UCI with no arguments; `./texel-engine bench`)
#   make EXE=texel-spsa PARAMS=list  ->  its `uci` also lists the 1,103 tunable parameters,
#                                        as SPSA tuners need (GUIs and polyglot refuse them)
EXE ?= texel
CARGO ?= cargo
PARAMS ?=

.PHONY: all clean

all:
	$(if $(filter list,$(PARAMS)),TEXEL_LIST_PARAMS=1 )$(CARGO) build --release -p texel-cli
	cp target/release/texel $(EXE)

clean:
	$(CARGO) clean
