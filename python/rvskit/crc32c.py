"""CRC-32C (Castagnoli), the checksum of every RVS chunk, in numpy.

Python's zlib offers CRC-32 (IEEE) only. Byte at a time in Python would take seconds per
megabyte, so long inputs are cut into equal lanes whose CRCs advance together, one numpy
table lookup per byte position, and are then chained: the CRC register is linear over GF(2),
so feeding m bytes after a register value c gives shift_m(c) XOR crc_of_those_bytes, and
shift_m is a 32x32 bit matrix applied through four 256-entry tables.
"""

import numpy as np

_POLY = 0x82F63B78  # reflected Castagnoli polynomial


def _byte_table():
    t = []
    for i in range(256):
        c = i
        for _ in range(8):
            c = (c >> 1) ^ (_POLY if c & 1 else 0)
        t.append(c)
    return t


_TABLE = _byte_table()
_NP_TABLE = np.array(_TABLE, dtype=np.uint32)
_SMALL = 1 << 16      # below this many bytes, the plain loop
_LANES = 1 << 14


def _raw_loop(reg, data):
    """The register after feeding data (bytes-like) byte by byte."""
    t = _TABLE
    for b in bytes(data):
        reg = t[(reg ^ b) & 0xFF] ^ (reg >> 8)
    return reg


def _apply(columns, v):
    """A 32x32 GF(2) matrix (its 32 columns as ints) times the bit vector v."""
    out = 0
    i = 0
    while v:
        if v & 1:
            out ^= columns[i]
        v >>= 1
        i += 1
    return out


def _multiply(a, b):
    return [_apply(a, col) for col in b]


def _shift_tables(m):
    """Four 256-entry tables that apply shift_m: feeding m zero bytes into the register."""
    one = [_raw_loop(1 << bit, b"\0") for bit in range(32)]
    result = [1 << bit for bit in range(32)]  # identity
    power = one
    while m:
        if m & 1:
            result = _multiply(power, result)
        power = _multiply(power, power)
        m >>= 1
    return [[_apply(result, v << (8 * k)) for v in range(256)] for k in range(4)]


def _raw_lanes(data, lanes, m):
    """Registers (from 0) of the lanes data[i*m:(i+1)*m], i < lanes, computed together."""
    cols = np.frombuffer(data, dtype=np.uint8, count=lanes * m).reshape(lanes, m).T.copy()
    reg = np.zeros(lanes, dtype=np.uint32)
    for j in range(m):
        reg = _NP_TABLE[(reg ^ cols[j]) & 0xFF] ^ (reg >> 8)
    return [int(r) for r in reg]


def crc32c(data, crc=0):
    """CRC-32C of data (bytes-like), continuing from crc (the CRC of what came before, 0 at
    the start): crc32c(b, crc32c(a)) == crc32c(a + b). crc32c(b"123456789") == 0xE3069283."""
    data = memoryview(data).cast("B")
    reg = crc ^ 0xFFFFFFFF
    n = len(data)
    if n >= _SMALL:
        lanes = min(_LANES, n // 256)
        m = n // lanes
        z0, z1, z2, z3 = _shift_tables(m)
        for lane in _raw_lanes(data, lanes, m):
            reg = (z0[reg & 0xFF] ^ z1[(reg >> 8) & 0xFF] ^ z2[(reg >> 16) & 0xFF]
                   ^ z3[reg >> 24] ^ lane)
        data = data[lanes * m:]
    return _raw_loop(reg, data) ^ 0xFFFFFFFF
