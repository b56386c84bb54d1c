#!/usr/bin/env python3
"""Read the plotted values of Figs. 4, 5 and 7 of Li, Ye, Kuo, Xue, HotStorage '21
("How the Common Retention Acceleration Method of 3D NAND Flash Memory Goes Wrong?",
DOI 10.1145/3465332.3470877) from the vector drawing of the paper's PDF.

The charts of pages 4 and 5 are vector graphics: bars are filled rectangles, lines are
polylines, gridlines are strokes. Each value is (y - y_zero) / (y_grid - y_zero) * grid_value,
with y_zero and y_grid the chart's own axis line and top gridline, so the reading error is
the PDF's coordinate precision (about 1e-3 pt, i.e. < 0.1 % of full scale), not a pixel.

Usage:  python3 extract_li2021.py Hotstorage2021.pdf        (needs the pypdf package)
The PDF used: the authors' copy, github.com/chenyu-kd/template, static/uploads/Hotstorage2021.pdf
(git blob 17a460a946097fa1f54b2b424dcd06782fb3fd72, 335 165 bytes).
"""
import sys

from pypdf import PdfReader
from pypdf.generic import ContentStream

C25 = (0.361, 0.608, 0.827)  # legend colour of the 25 degC series in Figs. 4 and 5, and of V1 in Fig. 7
VCOL = {(0.361, 0.608, 0.827): "V1", (0.929, 0.49, 0.188): "V2", (0.353,): "V3",
        (0.992, 0.753, 0.063): "V4", (0.286, 0.443, 0.718): "V5", (0.439, 0.678, 0.271): "V6",
        (0.141, 0.369, 0.569): "V7"}
PAGECOL = {(0.62, 0.29, 0.137): "LSB", (0.612,): "CSB", (0.596, 0.455, 0.169): "MSB"}


def mul(a, b):
    return [a[0] * b[0] + a[1] * b[2], a[0] * b[1] + a[1] * b[3], a[2] * b[0] + a[3] * b[2],
            a[2] * b[1] + a[3] * b[3], a[4] * b[0] + a[5] * b[2] + b[4], a[4] * b[1] + a[5] * b[3] + b[5]]


def tp(m, x, y):
    return (m[0] * x + m[2] * y + m[4], m[1] * x + m[3] * y + m[5])


def shapes(reader, page):
    """Yield (kind, fill, stroke, points) for every painted path of a page."""
    out = []

    def walk(obj, res, ctm):
        cs = ContentStream(obj, reader)
        stack, fill, stroke, path = [], None, None, []
        for ops, op in cs.operations:
            if op == b"q":
                stack.append((ctm, fill, stroke))
            elif op == b"Q":
                ctm, fill, stroke = stack.pop()
            elif op == b"cm":
                ctm = mul([float(v) for v in ops], ctm)
            elif op in (b"rg", b"sc", b"scn", b"g"):
                fill = tuple(round(float(v), 3) for v in ops if not hasattr(v, "startswith"))
            elif op in (b"RG", b"SC", b"SCN", b"G"):
                stroke = tuple(round(float(v), 3) for v in ops if not hasattr(v, "startswith"))
            elif op == b"re":
                x, y, w, h = [float(v) for v in ops]
                path.append(("re", tp(ctm, x, y), tp(ctm, x + w, y + h)))
            elif op in (b"m", b"l"):
                path.append((op.decode(), tp(ctm, *[float(v) for v in ops])))
            elif op in (b"f", b"F", b"f*", b"S", b"s", b"B", b"b", b"B*", b"n"):
                if op != b"n" and path:
                    out.append((op.decode(), fill, stroke, path))
                path = []
            elif op == b"Do":
                xo = res["/XObject"][ops[0]].get_object()
                if xo["/Subtype"] == "/Form":
                    m = [float(v) for v in xo.get("/Matrix", [1, 0, 0, 1, 0, 0])]
                    walk(xo, xo.get("/Resources", res), mul(m, ctm))

    walk(page.get_contents(), page["/Resources"], [1, 0, 0, 1, 0, 0])
    return out


def frames(sh):
    """Chart frames: stroked rectangles in grey 0.502 (plot areas), sorted left to right."""
    fr = [s[3][0] for s in sh if s[0] == "S" and s[2] == (0.502,) and s[3][0][0] == "re"]
    return sorted(((min(a[0], b[0]), min(a[1], b[1]), max(a[0], b[0]), max(a[1], b[1]))
                   for _, a, b in fr))


def inside(fr, x, y, tol=1.0):
    return fr[0] - tol <= x <= fr[2] + tol and fr[1] - tol <= y <= fr[3] + tol


def main(path):
    rd = PdfReader(path)
    # ---------------- Figs. 2 and 3 (page 3): per-wordline RBER, log axes; 25 degC line only
    sh = shapes(rd, rd.pages[2])
    fr3 = frames(sh)
    decades = {  # (bottom, top) exponents of each chart, from its tick labels
        "Fig. 2(a) CT flash A default": (-4, -1), "Fig. 2(b) CT flash B default": (-4, -1),
        "Fig. 2(c) FG flash A default": (-5, -1),
        "Fig. 3(a) CT flash A optimal": (-4, -1), "Fig. 3(b) CT flash B optimal": (-4, -1),
        "Fig. 3(c) FG flash A optimal": (-6, -1)}
    top_row = sorted([f for f in fr3 if f[1] > 600])[:3]
    bot_row = sorted([f for f in fr3 if f[1] < 600])[:3]
    print("Figs. 2 and 3 (one block, 1 year at 25 degC, P/E not stated): mean of the 25 degC line over wordlines")
    for (name, (lo, hi)), f in zip(decades.items(), top_row + bot_row):
        for kind, fill, stroke, pth in sh:
            if kind == "S" and stroke == C25 and len(pth) > 50 and inside(f, *pth[0][1]):
                v = [10 ** (lo + (pt[1][1] - f[1]) / (f[3] - f[1]) * (hi - lo)) for pt in pth]
                print("  %s: %d wordlines, mean %.3e, median %.3e" % (name, len(v), sum(v) / len(v),
                                                                     sorted(v)[len(v) // 2]))
    # ---------------- Fig. 4 (page 4): bars, linear axis; frames (a) 0..3.5e-3, (b) 0..8e-4
    sh = shapes(rd, rd.pages[3])
    fr4 = [f for f in frames(sh) if f[1] > 500][:2]
    top = {0: 3.5e-3, 1: 8e-4}
    print("Fig. 4 (25 degC, 1-year retention), block-average optimal RBER")
    for i, f in enumerate(fr4):
        bars = []
        for kind, fill, stroke, p in sh:
            if kind == "f" and fill == C25:
                for seg in p:
                    if seg[0] == "re":
                        x0, y0 = seg[1]
                        x1, y1 = seg[2]
                        if inside(f, x0, y0) and abs(min(y0, y1) - f[1]) < 0.5 and abs(x1 - x0) < 5:
                            bars.append((x0, max(y0, y1)))
        bars.sort()
        vals = [(y - f[1]) / (f[3] - f[1]) * top[i] for _, y in bars]
        print("  (%s) %s:" % ("ab"[i], ["CT flash B", "FG flash A"][i]),
              "  ".join("PE=%s %.4e" % (pe, v) for pe, v in zip(["1", "1K", "3K", "5K"], vals)))
    # ---------------- Fig. 5 (page 5, top): page lines (LSB/CSB/MSB), first category = 25 degC
    sh = shapes(rd, rd.pages[4])
    fr5 = [f for f in frames(sh) if f[1] > 640]
    top5 = [2.0e-3, 2.5e-3, 6.0e-4]
    names5 = ["CT flash A", "CT flash B", "FG flash A"]
    print("Fig. 5 (25 degC, 1-year retention), page RBER (first point of each page line) and V bars")
    for i in range(3):
        f = fr5[i]
        row = {}
        for kind, fill, stroke, p in sh:
            if kind == "S" and stroke in PAGECOL and len(p) == 4 and inside(f, *p[0][1]):
                row[PAGECOL[stroke]] = (p[0][1][1] - f[1]) / (f[3] - f[1]) * top5[i]
        vb = {}
        for kind, fill, stroke, p in sh:
            if kind == "f" and fill in VCOL and len(p) == 4 and p[0][0] == "re" and inside(f, *p[0][1]):
                x0, y0 = p[0][1]
                x1, y1 = p[0][2]
                vb[VCOL[fill]] = (max(y0, y1) - f[1]) / (f[3] - f[1]) * top5[i]
        mean = sum(row.values()) / 3
        print("  (%s) %s: " % ("abc"[i], names5[i])
              + "  ".join("%s %.4e (x%.3f)" % (k, row[k], row[k] / mean) for k in ("LSB", "CSB", "MSB"))
              + "  mean %.4e;  V1..V7 " % mean + " ".join("%.3e" % vb[v] for v in sorted(vb))
              + "  sum(V)/3 %.4e" % (sum(vb.values()) / 3))
    # ---------------- Fig. 7 (page 5, bottom): per-read-voltage RBER vs days, 1K P/E (see REPORT)
    fr7 = [f for f in frames(sh) if f[1] < 400][:2]
    top7 = [1.8e-3, 5e-4]
    print("Fig. 7 (25 degC), average page RBER = sum over V1..V7 / 3, at days common to all 7 lines")
    for i, f in enumerate(fr7):
        series = {}
        for kind, fill, stroke, p in sh:
            if kind == "S" and stroke in VCOL and len(p) > 8 and inside(f, *p[0][1]):
                series[VCOL[stroke]] = [pt[1] for pt in p]
        xs0 = min(x for s in series.values() for x, _ in s)
        xs1 = max(x for s in series.values() for x, _ in s)
        allx = sorted({round(x, 2) for s in series.values() for x, _ in s})
        print("  (%s) %s" % ("ab"[i], ["CT flash B", "FG flash A"][i]))
        for x in allx:
            per = [[(y - f[1]) / (f[3] - f[1]) * top7[i] for xx, y in series[v] if abs(xx - x) < 0.006]
                   for v in sorted(series)]
            if not all(per):
                continue
            day = (x - xs0) / (xs1 - xs0) * 366.0
            for k in range(len(per[0])):
                tot = sum(q[min(k, len(q) - 1)] for q in per) / 3
                print("    day %7.2f  reading %d  avg %.4e   V: %s" % (day, k + 1, tot,
                      " ".join("%.2e" % q[min(k, len(q) - 1)] for q in per)))


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "Hotstorage2021.pdf")
