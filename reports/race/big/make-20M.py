#!/usr/bin/env python3
"""The race trace repeated 20 times: 20,531,700 positions (3.6 GB), for the memory figure.

  python3 reports/race/big/make-20M.py WORK/trace/train15.gedas.bin WORK/trace/train300.gedas.bin

A binary trace is "TXTRACE1", a u32 header length, the header, then the position records
(docs/trace-format.md): the header once, the records 20 times.
"""
import struct
import sys

src, out = sys.argv[1], sys.argv[2]
data = open(src, "rb").read()
assert data[:8] == b"TXTRACE1", "not a binary texel trace"
header_end = 12 + struct.unpack("<I", data[8:12])[0]
with open(out, "wb") as f:
    f.write(data[:header_end])
    for _ in range(20):
        f.write(data[header_end:])
