#!/usr/bin/env python3
"""mpi_model.py - a model, not a measurement: resident SpMV calls of spmv-mpi on P GPUs (one node
of 8, four nodes of 8) from what bench/mpi_spmv.sh measured on 1 and 2 GPUs and what bench_cut
counts exactly for P parts.

  bench/mpi_model.py MEASURED CUT... [--nic-gbs 50] [--nic-us 5] [--ranks 8,32] [--node 8]

MEASURED: mpi_spmv.txt (its resident rows); several, comma-separated, are read as one table. CUT: files of `bench_cut --node-size 8 FILE 2 8 32`
tables (one or several), a matrix named by its FILE up to the first '.' as in mpi_spmv.txt.

For one resident call on P GPUs (x and y on the GPUs, the exchange staged through host memory,
overlapped with the owned-column entries):
  T(P) = max(C_own, X) + C_recv + o
  C      = max_part_nnz(P) / R: R the per-GPU rate (entries/ms) measured at P = 2 for the matrix
           and algorithm (else the matrix's Algorithm 2 run)
  C_recv = C * edge_cut(P) / nnz (entries in received columns), C_own = C - C_recv
  X      = b / B_h + b / B_pcie, b = max_traffic * 8 the busiest rank's bytes (sent and received): MPI through
           host memory (B_h fitted, through the origin, on the P = 2 runs' exchange times; at P = 2
           each rank sends and receives what the job sends) and PCIe both ways (B_pcie measured:
           x in and y out of the 1-GPU host call of the largest matrix, over its time beyond the
           resident call)
         + max(node_out, node_in) * 8 / B_nic + l across nodes (B_nic, l assumed, not measured)
  o      = what a P = 2 call took beyond max(C_own, X) + C_recv (host synchronisation), mean
A second column puts the exchange on NVLink between the GPUs instead (X = b / B_nvl, B_nvl
assumed), what CUDA-aware MPI or NCCL would do; spmv-mpi does not.
Each GPU's traffic through the host is assumed not to slow the others' (a node's memory
bandwidth is far above 8 ranks x B_h); rates stay those of the measured part sizes.
"""
import argparse
import os
import sys


def read_measured(paths, mode="resident"):
    """the rows of mode of every mpi_spmv.txt in paths (comma-separated)"""
    lines = [line for path in paths.split(",") for line in open(path)]
    rows = []
    for line in lines:
        f = line.split()
        if not f or f[0].startswith("#") or len(f) < 17 or f[4] != mode:
            continue
        rows.append(dict(matrix=f[0], alg=f[1], ranks=int(f[2]), fmt=f[3], ms=float(f[5]), compute=float(f[7]),
                         exchange=float(f[8]), bytes=float(f[11]) if f[11] != "-" else 0.0,
                         edge_cut=float(f[14]) if f[14] != "-" else 0.0))
    return rows


def read_cuts(path):
    """every `bench_cut` table in path: {matrix: (nnz, rows + cols, {(alg, K): figures})}, the matrix
    named by its file's name in the table's header up to the first '.'"""
    out, name = {}, None
    for line in open(path):
        f = line.split()
        if line.startswith("# bench_cut"):
            name = os.path.basename(line.split()[2].rstrip(":")).split(".")[0]
            dims = line.split(":", 1)[1]
            vec = int(dims.split("x")[0]) + int(dims.split("x")[1].split(",")[0])
            out[name] = (int(line.rsplit("nnz", 1)[1]), vec, {})
        elif f and not f[0].startswith("#") and name:
            out[name][2][(f[0], int(f[1]))] = dict(edge_cut=int(f[2]), volume=int(f[3]), max_recv=int(f[4]),
                                                   max_send=int(f[5]), max_part=int(f[7]), node_out=int(f[10]),
                                                   node_in=int(f[11]), traffic=int(f[12]))
    return out


def fit_origin(points):
    """least squares ms = bytes / B through the origin over (bytes, ms); returns B in bytes/ms"""
    return sum(p[0] * p[0] for p in points) / sum(p[0] * p[1] for p in points)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("measured")
    ap.add_argument("cuts", nargs="+")
    ap.add_argument("--nic-gbs", type=float, default=50.0, help="network bandwidth per node, GB/s [50: 400 Gb/s]")
    ap.add_argument("--nic-us", type=float, default=5.0, help="network latency per call, us [5]")
    ap.add_argument("--ranks", default="8,32")
    ap.add_argument("--node", type=int, default=8)
    ap.add_argument("--nvl-gbs", type=float, default=400.0, help="NVLink bandwidth per GPU, GB/s [400]")
    a = ap.parse_args()
    meas = read_measured(a.measured)
    calls = {(r["matrix"], r["fmt"]): r["ms"] for r in read_measured(a.measured, "call") if r["ranks"] == 1}
    cuts = {}
    for p in a.cuts:
        cuts.update(read_cuts(p))
    two = [r for r in meas if r["ranks"] == 2]
    pts = [(r["bytes"], r["exchange"]) for r in two if r["bytes"] > 0]
    if not pts:
        sys.exit("mpi_model.py: need a measured 2-GPU run that exchanges something")
    bh = fit_origin(pts)
    one = {(r["matrix"], r["fmt"]): r["ms"] for r in meas if r["ranks"] == 1}
    big = max((cuts[m][1], m, f) for (m, f) in one if m in cuts and (m, f) in calls)
    bpcie = big[0] * 8 / (calls[(big[1], big[2])] - one[(big[1], big[2])])

    def rate(m, alg):
        nnz, vec, cut = cuts[m]
        for r in two:
            if r["matrix"] == m and r["alg"] == alg:
                return cut[(alg, 2)]["max_part"] / r["compute"], r["fmt"], ""
        for r in two:
            if r["matrix"] == m and r["alg"] == "nnz":
                return cut[("nnz", 2)]["max_part"] / r["compute"], r["fmt"], "rate of the nnz run"
        return None, None, "no 2-GPU run"

    def model(m, alg, p, R, over, nvlink=False):
        nnz, vec, cut = cuts[m]
        c = cut[(alg, p)]
        C = c["max_part"] / R
        Cr = C * c["edge_cut"] / nnz
        b = c["traffic"] * 8
        X = b / (a.nvl_gbs * 1e6) if nvlink else b / bh + b / bpcie
        if p > a.node and c["node_out"] >= 0:
            X += max(c["node_out"], c["node_in"]) * 8 / (a.nic_gbs * 1e6) + a.nic_us * 1e-3
        return C, X, max(C - Cr, X) + Cr + over

    # host synchronisation left over at P = 2
    extra = []
    for r in two:
        if r["matrix"] in cuts:
            R, _, _ = rate(r["matrix"], r["alg"])
            extra.append(r["ms"] - model(r["matrix"], r["alg"], 2, R, 0.0)[2])
    # a negative mean (the fitted exchange rate absorbing it) would make calls shorter than their
    # compute: taken as 0
    over = max(0.0, sum(extra) / len(extra)) if extra else 0.0

    print("# mpi_model.py: a MODEL of resident spmv-mpi calls, extrapolated from measured 1- and 2-GPU runs")
    print("# measured: %s; cuts: %s" % (a.measured, " ".join(a.cuts)))
    print("# host-staged MPI exchange fitted on %d 2-GPU runs: bytes / %.2f GB/s; PCIe measured %.1f GB/s (%s);"
          " call overhead o = %.4f ms" % (len(pts), bh / 1e6, bpcie / 1e6, big[1], over))
    print("# assumed, not measured: across nodes %.0f GB/s per node and %.0f us; NVLink %.0f GB/s per GPU; %d GPUs"
          " per node" % (a.nic_gbs, a.nic_us, a.nvl_gbs, a.node))
    print("# check at P = 2 (model against measurement):")
    print("# matrix alg P measured_ms model_ms")
    for r in two:
        if r["matrix"] in cuts:
            R, _, _ = rate(r["matrix"], r["alg"])
            print("# %s %s 2 %.4f %.4f" % (r["matrix"], r["alg"], r["ms"], model(r["matrix"], r["alg"], 2, R, over)[2]))
    print("# matrix alg P nodes format max_part_nnz edge_cut exchanged_bytes compute_ms exchange_ms model_ms "
          "one_gpu_ms speedup efficiency nvlink_model_ms nvlink_speedup note")
    for m in sorted(cuts):
        nnz, vec, cut = cuts[m]
        for alg in ("rows", "nnz", "pmf"):
            R, fmt, note = rate(m, alg)
            if R is None:
                proxy = [x for x in cuts if x != m and rate(x, "nnz")[0]]
                if not proxy:
                    continue
                R, fmt, _ = rate(sorted(proxy)[0], "nnz")
                note = "rate of %s (proxy: not measured)" % sorted(proxy)[0]
            t1 = one.get((m, fmt))
            if t1 is None:
                t1 = nnz / R
                note = (note + "; " if note else "") + "one GPU modelled as nnz / R"
            for p in [2] + [int(x) for x in a.ranks.split(",")]:
                if (alg, p) not in cut:
                    continue
                c = cut[(alg, p)]
                C, X, T = model(m, alg, p, R, over)
                Tn = model(m, alg, p, R, over, True)[2]
                print("%s %s %d %d %s %d %d %d %.4f %.4f %.4f %.4f %.2f %.2f %.4f %.2f %s" % (
                    m, alg, p, max(1, p // a.node), fmt, c["max_part"], c["edge_cut"], c["volume"] * 8, C, X, T, t1,
                    t1 / T, t1 / T / p, Tn, t1 / Tn, note.replace(" ", "_") or "-"))


if __name__ == "__main__":
    main()
