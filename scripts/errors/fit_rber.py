#!/usr/bin/env python3
"""Fit the ssdlab RBER model to points.csv (standard library only).

Model (crates/ssdlab-nand/src/errors.rs):
  rber = (base + pe_coeff*PE**pe_exp) * (1 + ret_coeff*age_s**ret_exp)
         * (1 + rd_coeff*reads) * page_type_scale[page_type]

Least squares on ln(rber) by Levenberg-Marquardt with a numeric Jacobian,
over the parameters named in --free; the others stay at their start values
(the values of RberModel::stress(), the model's set before the fit, unless
overridden with --set NAME=VALUE). Positive
parameters are fitted in log space so they stay positive. A page_type column
value k adds a free scale s_k (s_0 is fixed to 1 when several types appear, so
the scales are relative to the lowest type present); empty means averaged.
When the file holds both averaged points and points of several page types, the
scales are normalised to a mean of 1 instead (an averaged point is the mean over
the page types of a wordline, each type holding the same number of bits), so
they can be pasted as ssdlab's page_type_scale with the fitted level unchanged.

--ret-form log replaces the retention factor by 1 + ret_coeff*ln(1 + age_s/ret_t0)
(a comparison form, not ssdlab's; ret_exp is then unused and ret_t0 can be freed).
--predict PE1,PE2,... prints the fitted RBER at those P/E counts after one year
(31 536 000 s, no reads), averaged and per page type.

Usage:
  python3 fit_rber.py [points.csv] [--free base,pe_coeff] [--set pe_exp=2.0 ...]
                      [--ret-form power|log] [--predict 0,1000,3000,5000,7000]
"""
import csv
import math
import sys

DEFAULTS = {
    "base": 1.0e-5,
    "pe_coeff": 2.0e-10,
    "pe_exp": 2.0,
    "ret_coeff": 0.02,
    "ret_exp": 0.25,
    "rd_coeff": 1.0e-6,
    "ret_t0": 3600.0,
}
RET_FORM = ["power"]
NAMES = list(DEFAULTS)


def load(path):
    pts = []
    with open(path, newline="") as f:
        for row in csv.DictReader(f):
            pts.append(
                {
                    "pe": float(row["pe_cycles"]),
                    "age": float(row["age_s"]),
                    "reads": float(row["reads"] or 0),
                    "pt": int(row["page_type"]) if row["page_type"].strip() else None,
                    "rber": float(row["rber"]),
                    "src": row["source"],
                    "fig": row["figure"],
                }
            )
    return pts


def model(p, scales, pe, age, reads, pt):
    wear = p["base"] + p["pe_coeff"] * pe ** p["pe_exp"]
    if RET_FORM[0] == "log":
        ret = 1.0 + p["ret_coeff"] * math.log(1.0 + age / p["ret_t0"])
    else:
        ret = 1.0 + p["ret_coeff"] * age ** p["ret_exp"]
    rd = 1.0 + p["rd_coeff"] * reads
    s = scales.get(pt, 1.0) if pt is not None else 1.0
    return min(max(wear * ret * rd * s, 1e-300), 0.5)


def solve(a, b):
    """Gaussian elimination with partial pivoting (small dense systems)."""
    n = len(b)
    m = [row[:] + [b[i]] for i, row in enumerate(a)]
    for c in range(n):
        piv = max(range(c, n), key=lambda r: abs(m[r][c]))
        m[c], m[piv] = m[piv], m[c]
        if abs(m[c][c]) < 1e-300:
            raise ZeroDivisionError
        for r in range(c + 1, n):
            f = m[r][c] / m[c][c]
            for k in range(c, n + 1):
                m[r][k] -= f * m[c][k]
    x = [0.0] * n
    for r in range(n - 1, -1, -1):
        x[r] = (m[r][n] - sum(m[r][k] * x[k] for k in range(r + 1, n))) / m[r][r]
    return x


def fit(pts, free, start):
    types = sorted({q["pt"] for q in pts if q["pt"] is not None})
    scale_free = types[1:] if len(types) > 1 else []
    mean_one = len(types) > 1 and any(q["pt"] is None for q in pts)
    # Vector: log of each free positive parameter, then log scales.
    x = [math.log(start[n]) for n in free] + [0.0] * len(scale_free)

    def unpack(x):
        p = dict(start)
        for i, n in enumerate(free):
            p[n] = math.exp(x[i])
        sc = {t: 1.0 for t in types}
        for j, t in enumerate(scale_free):
            sc[t] = math.exp(x[len(free) + j])
        if mean_one:
            m = sum(sc.values()) / len(sc)
            sc = {t: v / m for t, v in sc.items()}
        return p, sc

    def resid(x):
        p, sc = unpack(x)
        return [
            math.log(model(p, sc, q["pe"], q["age"], q["reads"], q["pt"])) - math.log(q["rber"])
            for q in pts
        ]

    lam = 1e-3
    r = resid(x)
    cost = sum(v * v for v in r)
    for _ in range(500):
        n = len(x)
        jac = []
        for i in range(n):
            xh = x[:]
            h = 1e-6 * max(1.0, abs(x[i]))
            xh[i] += h
            rh = resid(xh)
            jac.append([(rh[k] - r[k]) / h for k in range(len(r))])
        jtj = [[sum(jac[i][k] * jac[j][k] for k in range(len(r))) for j in range(n)] for i in range(n)]
        jtr = [sum(jac[i][k] * r[k] for k in range(len(r))) for i in range(n)]
        improved = False
        for _ in range(30):
            a = [[jtj[i][j] + (lam * (jtj[i][i] + 1e-12) if i == j else 0.0) for j in range(n)] for i in range(n)]
            try:
                step = solve(a, [-v for v in jtr])
            except ZeroDivisionError:
                lam *= 10
                continue
            xn = [x[i] + step[i] for i in range(n)]
            try:
                rn = resid(xn)
            except (OverflowError, ValueError):
                lam *= 10
                continue
            cn = sum(v * v for v in rn)
            if cn < cost:
                x, r, cost = xn, rn, cn
                lam = max(lam / 10, 1e-12)
                improved = True
                break
            lam *= 10
        if not improved or cost < 1e-24:
            break
    p, sc = unpack(x)
    return p, sc, len(pts) - len(x)


def main(argv):
    path = "points.csv"
    free = ["base", "pe_coeff"]
    start = dict(DEFAULTS)
    predict = []
    i = 0
    while i < len(argv):
        a = argv[i]
        if a in ("-h", "--help"):
            print(__doc__)
            return
        if a == "--free":
            free = [s for s in argv[i + 1].split(",") if s]
            i += 2
        elif a == "--set":
            k, v = argv[i + 1].split("=")
            start[k] = float(v)
            i += 2
        elif a == "--ret-form":
            RET_FORM[0] = argv[i + 1]
            i += 2
        elif a == "--predict":
            predict = [float(v) for v in argv[i + 1].split(",") if v]
            i += 2
        else:
            path = a
            i += 1
    bad = [n for n in free if n not in NAMES]
    if bad:
        sys.exit(f"unknown parameter(s): {bad}; choose from {NAMES}")
    for n in free:
        if start[n] <= 0:
            start[n] = 1e-6  # log-space fit needs a positive start
    pts = load(path)
    p, sc, dof = fit(pts, free, start)
    print(f"points: {len(pts)}  free parameters: {free} (+{max(0, len(sc) - 1)} page-type scales)  "
          f"degrees of freedom: {dof}")
    if dof < 0:
        print("WARNING: more free parameters than points: the fit is not unique")
    print("fitted / fixed coefficients:")
    for n in NAMES:
        print(f"  {n:10s} = {p[n]:.6g}   ({'fitted' if n in free else 'fixed'})")
    print(f"  retention form: {RET_FORM[0]}")
    if sc:
        norm = "mean 1" if any(q["pt"] is None for q in pts) and len(sc) > 1 else "relative to the lowest type present"
        print(f"  page_type_scale ({norm}):", {k: round(v, 4) for k, v in sorted(sc.items())})
    print("per-point residuals (fit / data):")
    ratios = []
    for q in pts:
        f = model(p, sc, q["pe"], q["age"], q["reads"], q["pt"])
        ratio = f / q["rber"]
        ratios.append(max(ratio, 1 / ratio))
        print(f"  PE={q['pe']:>7.0f} age_s={q['age']:>11.4g} reads={q['reads']:>8.0f} "
              f"type={'' if q['pt'] is None else q['pt']:>2} data={q['rber']:.3e} fit={f:.3e} "
              f"ratio={ratio:.4f}  [{q['src']}: {q['fig'][:60]}]")
    ratios.sort()
    med = ratios[len(ratios) // 2] if len(ratios) % 2 else 0.5 * (ratios[len(ratios) // 2 - 1] + ratios[len(ratios) // 2])
    print(f"max ratio (worse of fit/data, data/fit): {ratios[-1]:.4f}   median: {med:.4f}")
    rms = math.sqrt(sum(math.log(r) ** 2 for r in ratios) / len(ratios))
    print(f"rms of ln(fit/data): {rms:.4f}")
    if predict:
        year = 31536000.0
        print("prediction at one year of data age (31 536 000 s), 0 reads:")
        hdr = "  PE      average" + "".join(f"   type {t}" for t in sorted(sc)) if sc else "  PE      average"
        print(hdr)
        for pe in predict:
            avg = model(p, {}, pe, year, 0.0, None)
            row = f"  {pe:>6.0f}  {avg:.3e}" + "".join(f"  {model(p, sc, pe, year, 0.0, t):.3e}" for t in sorted(sc))
            print(row)


if __name__ == "__main__":
    main(sys.argv[1:])
