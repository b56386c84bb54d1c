#!/usr/bin/env python3
"""Leave-one-out refits of fit_rber.py (ssdlab form, five coefficients + page scales):
the spread of each coefficient and of the one-year RBER at 0..7k P/E shows how firmly
the data pin them. Usage: python3 jackknife.py points-li2021-ct-b.csv"""
import importlib.util
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
spec = importlib.util.spec_from_file_location("fr", os.path.join(HERE, "fit_rber.py"))
fr = importlib.util.module_from_spec(spec)
spec.loader.exec_module(fr)
pts = fr.load(sys.argv[1] if len(sys.argv) > 1 else os.path.join(HERE, "points-li2021-ct-b.csv"))
free = ["base", "pe_coeff", "pe_exp", "ret_coeff", "ret_exp"]
rows = []
for k in range(len(pts)):
    sub = pts[:k] + pts[k + 1:]
    p, sc, dof = fr.fit(sub, free, dict(fr.DEFAULTS))
    pred = [fr.model(p, {}, pe, 31536000.0, 0, None) for pe in (0, 1000, 3000, 5000, 7000)]
    rows.append((k, p, pred))
    print(f"drop {k:2d} ({pts[k]['fig'][:38]:38s}): pe_exp={p['pe_exp']:.3f} ret_exp={p['ret_exp']:.3f} "
          f"ret_coeff={p['ret_coeff']:.3g} base={p['base']:.3g}  1y@7k={pred[-1]:.3e}")
for n in ("pe_exp", "ret_exp", "ret_coeff", "base", "pe_coeff"):
    v = [r[1][n] for r in rows]
    print(f"{n:9s} range {min(v):.4g} .. {max(v):.4g}")
for i, pe in enumerate((0, 1000, 3000, 5000, 7000)):
    v = [r[2][i] for r in rows]
    print(f"1-year RBER at {pe:5d} P/E: range {min(v):.3e} .. {max(v):.3e}")
