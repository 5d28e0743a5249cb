#!/usr/bin/env python3
"""fix-crc.py FILE... - rewrite the prelude and chunk CRC-32C of RVS streams in place (rvs.5), so
that an input found by a fuzzing build (which ignores CRCs) reaches the same checks in every
build. Stops at the first chunk whose length runs past the end of the file."""
import struct
import sys

TABLE = []
for i in range(256):
    c = i
    for _ in range(8):
        c = (c >> 1) ^ 0x82F63B78 if c & 1 else c >> 1
    TABLE.append(c)


def crc32c(data, crc=0):
    crc ^= 0xFFFFFFFF
    for b in data:
        crc = TABLE[(crc ^ b) & 0xFF] ^ (crc >> 8)
    return crc ^ 0xFFFFFFFF


def fix(buf):
    if len(buf) < 16 or buf[:8] != b"\x89RVS\r\n\x1a\n":
        return 0
    buf[12:16] = struct.pack("<I", crc32c(buf[:12]))
    pos, fixed = 16, 1
    while pos + 12 <= len(buf):
        (length,) = struct.unpack_from("<Q", buf, pos + 4)
        end = pos + 12 + length
        if end + 4 > len(buf):
            break
        buf[end:end + 4] = struct.pack("<I", crc32c(buf[pos:end]))
        pos, fixed = end + 4, fixed + 1
    return fixed


for path in sys.argv[1:]:
    with open(path, "rb") as f:
        data = bytearray(f.read())
    n = fix(data)
    with open(path, "wb") as f:
        f.write(data)
    print(f"{path}: {n} CRCs written")
