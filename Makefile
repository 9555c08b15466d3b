# Builds the engine binary the way OpenBench, fastchess and cutechess expect:
#   make EXE=texel-engine   ->  ./texel-engine (UCI with no arguments; `./texel-engine bench`)
EXE ?= texel
CARGO ?= cargo

.PHONY: all clean

all:
	$(CARGO) build --release -p texel-cli
	cp target/release/texel $(EXE)

clean:
	$(CARGO) clean
