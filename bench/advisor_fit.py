#!/usr/bin/env python3
"""advisor_fit.py - fit the advisor's model to a training table of bench/advisor_train.sh.

    bench/advisor_fit.py TABLE DEVICE_CLASS [--header engine/advisor_coef.h] [--all]

For every value type and candidate (format@knobs, and cusparse@alg1) a ridge regression of
log2(ms) on the features of bench_advisor. The matrices are split in two by a hash of their name
(a replica goes with its original): the fit uses one half and is checked on the other, and the
report says how the model's choice (and the choice after trials of the candidates it cannot
separate) compares with the fastest candidate of each held-out matrix. --all fits on both halves
(for the header only after the report on the split was read). Prints the report; with --header,
writes the C table the advisor reads (advisor_predict.c), merging with the other device classes
already in it.
"""
import math
import re
import sys
import zlib
from collections import defaultdict

import numpy as np

LAMBDA = 0.3     # ridge penalty on the (standardised) feature weights
MIN_ROWS = 12    # fewest training matrices a candidate's fit needs
BAND = 2.0       # candidates within BAND sigmas of the predicted best are tried
MAX_TRIALS = 3


# candidates as rvskit 0.1 named them, as they are named now (CSR kernels by name)
RENAMED = {
    'csr@threads-per-row=64': 'csr@csr-kernel=row-block',
    'csr@threads-per-row=128,csr-order=1': 'csr@csr-kernel=nnz-split,csr-order=1',
    'cusparse@alg1': 'csr@csr-kernel=cusparse',
}


def read(path):
    names, data = None, defaultdict(dict)
    feats = {}
    for line in open(path):
        w = line.split()
        if not w:
            continue
        if w[0] == '#':
            if len(w) > 2 and w[1] == 'label':
                names = w[6:-3]
            continue
        label, vt = w[0], w[2]
        f = [float(v) for v in w[5:-3]]
        cand, ms, status = RENAMED.get(w[-3], w[-3]), float(w[-2]), w[-1]
        feats[(label, vt)] = f
        if status == 'ran' and ms > 0:
            data[(label, vt)][cand] = ms
    return names, feats, data


def half(label):
    base = re.sub(r'_rep$', '', label)
    return zlib.crc32(base.encode()) % 2


def fit(X, y):
    mu, sd = X.mean(0), X.std(0)
    sd[sd < 1e-9] = 1
    Z = np.hstack([np.ones((len(X), 1)), (X - mu) / sd])
    P = LAMBDA * np.eye(Z.shape[1])
    P[0, 0] = 0
    w = np.linalg.solve(Z.T @ Z + P, Z.T @ y)
    res = y - Z @ w
    sigma = math.sqrt(float(res @ res) / max(1, len(y) - 1))
    # back to raw features: log2 ms = b + sum(a_i f_i)
    a = w[1:] / sd
    b = w[0] - float(a @ mu)
    return b, a, sigma


def fit_all(feats, data, keys):
    rows = defaultdict(list)
    for k in keys:
        for c, ms in data[k].items():
            rows[(k[1], c)].append((feats[k], math.log2(ms)))
    models = {}
    for (vt, c), r in rows.items():
        if len(r) >= MIN_ROWS:
            X = np.array([f for f, _ in r])
            y = np.array([t for _, t in r])
            models[(vt, c)] = fit(X, y)
    return models


def predict(models, vt, f):
    out = {}
    for (v, c), (b, a, s) in models.items():
        if v == vt:
            out[c] = (b + float(a @ np.array(f)), s)
    return out


def choose(pred, ran):
    """The model's choice among candidates that ran, and the choice after trials."""
    cands = sorted((p[0], c) for c, p in pred.items() if c in ran)
    if not cands:
        return None, None, 0
    best_t, best = cands[0]
    sb = pred[best][1]
    unsure = [c for t, c in cands if t - best_t <= BAND * math.hypot(sb, pred[c][1])][:MAX_TRIALS]
    tried = min(unsure, key=lambda c: ran[c])
    return best, tried, len(unsure)


def report(models, feats, data, keys, title):
    slow_model, slow_trial, ntried, lines = [], [], [], []
    for k in sorted(keys):
        ran = data[k]
        if not ran:
            continue
        best = min(ran.values())
        pred = predict(models, k[1], feats[k])
        m, t, n = choose(pred, ran)
        if not m:
            continue
        slow_model.append(ran[m] / best)
        slow_trial.append(ran[t] / best)
        ntried.append(n)
        lines.append('%-24s %s %-40s %6.3f %-40s %6.3f %d' % (k[0], k[1], m, ran[m] / best, t, ran[t] / best, n))

    def q(v, p):
        return sorted(v)[min(len(v) - 1, int(p * len(v)))]
    print('## %s: %d matrix-precision pairs' % (title, len(slow_model)))
    for name, v in (('model alone', slow_model), ('model + trials', slow_trial)):
        gm = math.exp(sum(math.log(x) for x in v) / len(v))
        print('# %-15s time/best: geomean %.3f median %.3f p90 %.3f max %.3f; within 5%%: %.0f%%' %
              (name, gm, q(v, .5), q(v, .9), max(v), 100 * sum(x <= 1.05 for x in v) / len(v)))
    print('# candidates tried: mean %.2f, none on %.0f%%' %
          (sum(ntried) / len(ntried), 100 * sum(n <= 1 for n in ntried) / len(ntried)))
    print('# label vt model_choice model/best trial_choice trial/best tried')
    for l in lines:
        print(l)


def write_header(path, dev, vt_models, names):
    entries = {}
    try:
        for line in open(path):
            m = re.match(r'\s*\{"([^"]+)", "([^"]+)", "([^"]+)",', line)
            if m and m.group(1) != dev:
                entries[(m.group(1), m.group(2), m.group(3))] = line.rstrip('\n')
    except FileNotFoundError:
        pass
    for (vt, c), (b, a, s) in vt_models.items():
        w = ', '.join('%.6g' % v for v in [b] + list(a))
        entries[(dev, vt, c)] = '    {"%s", "%s", "%s", %.4g, {%s}},' % (dev, vt, c, s, w)
    with open(path, 'w') as f:
        f.write('/* advisor_coef.h - generated by bench/advisor_fit.py from bench/advisor_train.sh tables: per\n'
                ' * device class, value type and candidate, log2(ms) = w[0] + sum w[1+i] * feature i (%s),\n'
                ' * with the fit\'s residual sigma. Regenerate; do not edit. */\n' % ' '.join(names))
        f.write('static const struct {\n    const char *device, *vtype, *candidate;\n    double sigma;\n'
                '    double w[1 + RVS_NFEAT];\n} advisor_coef[] = {\n')
        for k in sorted(entries):
            f.write(entries[k] + '\n')
        f.write('};\n')


def main():
    args = [a for a in sys.argv[1:] if not a.startswith('--')]
    if len(args) < 2:
        sys.exit(__doc__)
    table, dev = args[0], args[1]
    header = None
    if '--header' in sys.argv:
        header = sys.argv[sys.argv.index('--header') + 1]
        args = [a for a in args if a != header]
    names, feats, data = read(table)
    keys = list(data)
    train = [k for k in keys if half(k[0]) == 0]
    held = [k for k in keys if half(k[0]) == 1]
    models = fit_all(feats, data, train)
    print('# %s: fitted on %d pairs, checked on %d held out; %d candidate models' %
          (table, len(train), len(held), len(models)))
    report(models, feats, data, held, 'held out')
    report(models, feats, data, train, 'fitted on')
    if header:
        final = fit_all(feats, data, keys) if '--all' in sys.argv else models
        write_header(header, dev, final, names)


if __name__ == '__main__':
    main()
