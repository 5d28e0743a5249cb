# placement.sh - parts bound to processors: partition's gpuN/cpuN items, the ancillary chunk
# 'plac' (stream version 1.2), shown by partition and rvsinfo, passed on by convert, dropped by a
# new partition; streams without it are written as before (1.1)
. "$RVS_SRC/tests/lib/common.sh"
M=$RVS_DATA/pmf20.mtx
version() { od -An -tu2 -j8 -N4 "$1" | awk '{ print $1 "." $2 }'; }
# devs FILE: the device column of rvsinfo's partition table
devs() { rvsinfo "$1" | awk '/^# part device/ { p = 1; next } /^#/ { p = 0 } p && /^[0-9]+ / { printf "%s ", $2 }'; }

partition --alg nnz --cp 1:gpu1,1:gpu0,2:cpu1 "$M" > "$T/b.rvs" || bad "partition with numbers"
expect_eq "version with plac" "$(version "$T/b.rvs")" "1.2"
expect_eq "report shows numbers" "$(partition --alg nnz --cp 1:gpu1,1:gpu0,2:cpu1 -r "$M" | awk '!/^#/ { printf "%s ", $2 }')" \
  "gpu1 gpu0 cpu1 "
expect_eq "rvsinfo shows numbers" "$(devs "$T/b.rvs")" \
  "gpu1 gpu0 cpu1 "
rvsinfo --json "$T/b.rvs" | grep -q '"processor":1[,}]' && ok || bad "rvsinfo --json: no processor 1"
rvsinfo "$T/b.rvs" | grep -q '^ancillary    plac, 56 bytes' && ok || bad "rvsinfo: no 56-byte plac chunk"
# convert passes it on; a partition without numbers drops it and writes 1.1 again
convert --to csr < "$T/b.rvs" > "$T/c.rvs" || bad "convert"
expect_eq "convert keeps plac" "$(devs "$T/c.rvs")" \
  "gpu1 gpu0 cpu1 "
partition --alg pmf --cp 1,1 < "$T/b.rvs" > "$T/d.rvs" || bad "repartition"
expect_eq "repartition drops plac" "$(rvsinfo "$T/d.rvs" | grep -c plac)" "0"
expect_eq "version without plac" "$(version "$T/d.rvs")" "1.1"
partition --alg nnz --cp 1:gpu,1:cpu "$M" > "$T/e.rvs" || bad "partition without numbers"
expect_eq "no numbers: 1.1" "$(version "$T/e.rvs")" "1.1"
# a stale chunk (its partition replaced by a program that passes unknown chunks on) is ignored:
# splice b's plac into a stream of another partition with as many parts
partition --alg rows --cp 1,1,2 "$M" > "$T/f.rvs"
python3 - "$T/b.rvs" "$T/f.rvs" "$T/g.rvs" <<'PY' 2>/dev/null && ok || bad "splice (python3)"
import struct, sys
def crc32c(data):
    c = 0xFFFFFFFF
    for b in data:
        c ^= b
        for _ in range(8):
            c = (c >> 1) ^ (0x82F63B78 & -(c & 1))
    return c ^ 0xFFFFFFFF
def chunks(d):
    at = 16
    while at < len(d):
        t, n = d[at:at + 4], struct.unpack_from("<Q", d, at + 4)[0]
        yield t, d[at:at + 16 + n]
        at += 16 + n
b, f = open(sys.argv[1], "rb").read(), open(sys.argv[2], "rb").read()
plac = [c for t, c in chunks(b) if t == b"plac"][0]
out = [c for t, c in chunks(f) if t != b"REND"]
end = struct.pack("<Q", len(out) + 1)
rend = b"REND" + struct.pack("<Q", 8) + end
rend += struct.pack("<I", crc32c(rend))
open(sys.argv[3], "wb").write(f[:16] + b"".join(out) + plac + rend)
PY
expect_eq "stale plac ignored" "$(devs "$T/g.rvs")" \
  "cpu cpu gpu "
# bad items
expect_fail 64 "^partition: --cp: computing power 1 of '1:gpu99999': processor number above 65535" -- \
  partition --cp 1:gpu99999 "$M"
expect_fail 64 "^partition: --cp: computing power 2 .*device must be gpu or cpu" -- partition --cp 1:gpu0,1:tpu0 "$M"
finish
