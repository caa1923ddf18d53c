"""A small stroke font in the style of the highway-sign alphabets.

Sign legends in Canada use the FHWA "highway gothic" series: one stroke
weight, round terminals, straight-sided rounds.  Each glyph here is a few
centre-line polylines in a box whose centre lines run from y = 0 (cap top)
to y = 1 (baseline) and from x = 0 to the glyph's width; they are drawn as
round-capped strokes of one weight.  Defined: capitals A-Z, digits 0-9,
lower-case k m h (for "km/h") and the symbols  - – + : . , / ' % ! ( ) & #.

text() lays a string out and returns one shape per glyph (so each glyph is
bounded by its own small box when painted).  `height` is the ink height of a
capital (stroke included) and `weight` the stroke width as a fraction of it;
a string wider than `max_width` is condensed horizontally, stroke kept, the
way sign makers switch to a narrower series.  label() gives the same glyphs
as (shape, colour) pairs, ready to paint.

Standard library only.
"""

from .colors import BLACK
from .raster import cubic, earc, lines

X_HEIGHT = 0.30          # lower-case x-height line (y of the top of "m"), cap top = 0


def _stadium(w, top=0.0, bottom=1.0, steps=9):
    """A closed round (O, 0): straight sides, elliptical ends."""
    r = w / 2.0
    ry = min(r * 1.2, (bottom - top) / 2.0)
    return (earc(r, top + ry, r, ry, 180, 360, steps)
            + earc(r, bottom - ry, r, ry, 0, 180, steps) + [(0.0, top + ry)])


def _glyphs():
    g = {}
    # capitals ------------------------------------------------------------
    g["A"] = (0.62, [[(0, 1), (0.31, 0), (0.62, 1)], [(0.11, 0.68), (0.51, 0.68)]])
    g["B"] = (0.54, [[(0, 0), (0, 1)],
                     [(0, 0), (0.27, 0)] + earc(0.27, 0.24, 0.24, 0.24, -90, 90, 8) + [(0, 0.48)],
                     [(0, 0.48), (0.28, 0.48)] + earc(0.28, 0.74, 0.26, 0.26, -90, 90, 8) + [(0, 1)]])
    g["C"] = (0.56, [earc(0.28, 0.3, 0.28, 0.3, -35, -180, 8) + earc(0.28, 0.7, 0.28, 0.3, 180, 35, 8)])
    g["D"] = (0.56, [[(0, 0), (0, 1), (0.26, 1)] + earc(0.26, 0.7, 0.3, 0.3, 90, 0, 6)
                     + earc(0.26, 0.3, 0.3, 0.3, 0, -90, 6) + [(0, 0)]])
    g["E"] = (0.48, [[(0.48, 0), (0, 0), (0, 1), (0.48, 1)], [(0, 0.49), (0.4, 0.49)]])
    g["F"] = (0.48, [[(0.48, 0), (0, 0), (0, 1)], [(0, 0.49), (0.4, 0.49)]])
    g["G"] = (0.58, [earc(0.29, 0.3, 0.29, 0.3, -35, -180, 8) + earc(0.29, 0.7, 0.29, 0.3, 180, 0, 8)
                     + [(0.58, 0.56), (0.33, 0.56)]])
    g["H"] = (0.56, [[(0, 0), (0, 1)], [(0.56, 0), (0.56, 1)], [(0, 0.49), (0.56, 0.49)]])
    g["I"] = (0.0, [[(0, 0), (0, 1)]])
    g["J"] = (0.46, [[(0.46, 0), (0.46, 0.72)] + earc(0.23, 0.72, 0.23, 0.28, 0, 160, 8)])
    g["K"] = (0.56, [[(0, 0), (0, 1)], [(0.55, 0), (0, 0.62)], [(0.19, 0.43), (0.56, 1)]])
    g["L"] = (0.46, [[(0, 0), (0, 1), (0.46, 1)]])
    g["M"] = (0.72, [[(0, 1), (0, 0), (0.36, 0.72), (0.72, 0), (0.72, 1)]])
    g["N"] = (0.56, [[(0, 1), (0, 0), (0.56, 1), (0.56, 0)]])
    g["O"] = (0.62, [_stadium(0.62)])
    g["P"] = (0.52, [[(0, 1), (0, 0), (0.26, 0)] + earc(0.26, 0.26, 0.26, 0.26, -90, 90, 8) + [(0, 0.52)]])
    g["Q"] = (0.62, [_stadium(0.62), [(0.36, 0.72), (0.64, 1.02)]])
    g["R"] = (0.54, [[(0, 1), (0, 0), (0.27, 0)] + earc(0.27, 0.25, 0.26, 0.25, -90, 90, 8) + [(0, 0.5)],
                     [(0.24, 0.5), (0.54, 1)]])
    g["S"] = (0.54, [earc(0.27, 0.25, 0.255, 0.25, -30, -270, 10)
                     + earc(0.27, 0.75, 0.27, 0.25, -90, 150, 10)[1:]])
    g["T"] = (0.56, [[(0, 0), (0.56, 0)], [(0.28, 0), (0.28, 1)]])
    g["U"] = (0.56, [[(0, 0), (0, 0.68)] + earc(0.28, 0.68, 0.28, 0.32, 180, 0, 10) + [(0.56, 0)]])
    g["V"] = (0.62, [[(0, 0), (0.31, 1), (0.62, 0)]])
    g["W"] = (0.88, [[(0, 0), (0.2, 1), (0.44, 0.12), (0.68, 1), (0.88, 0)]])
    g["X"] = (0.58, [[(0, 0), (0.58, 1)], [(0.58, 0), (0, 1)]])
    g["Y"] = (0.6, [[(0, 0), (0.3, 0.52), (0.6, 0)], [(0.3, 0.52), (0.3, 1)]])
    g["Z"] = (0.54, [[(0.02, 0), (0.54, 0), (0, 1), (0.54, 1)]])
    # digits --------------------------------------------------------------
    g["0"] = (0.54, [_stadium(0.54)])
    g["1"] = (0.3, [[(0.0, 0.17), (0.24, 0), (0.24, 1)]])
    g["2"] = (0.54, [earc(0.27, 0.27, 0.27, 0.27, 200, 370, 10)
                     + cubic((0.536, 0.317), (0.5, 0.52), (0.18, 0.7), (0, 1), 8)[1:] + [(0.54, 1)]])
    g["3"] = (0.52, [earc(0.26, 0.245, 0.24, 0.245, 200, 450, 12)
                     + earc(0.26, 0.745, 0.27, 0.255, 270, 520, 12)[1:]])
    g["4"] = (0.58, [[(0.43, 1), (0.43, 0), (0, 0.7), (0.58, 0.7)]])
    g["5"] = (0.54, [[(0.5, 0), (0.07, 0), (0.03, 0.46)]
                     + earc(0.27, 0.68, 0.27, 0.32, 220, 510, 14)[1:]])
    g["6"] = (0.54, [earc(0.27, 0.69, 0.27, 0.31, 0, 360, 16),
                     cubic((0.0, 0.69), (0.0, 0.25), (0.15, 0.0), (0.48, 0.01), 8)])
    g["7"] = (0.54, [[(0, 0), (0.54, 0), (0.16, 1)]])
    g["8"] = (0.54, [earc(0.27, 0.245, 0.235, 0.245, 0, 360, 16),
                     earc(0.27, 0.745, 0.27, 0.255, 0, 360, 16)])
    g["9"] = (0.54, [earc(0.27, 0.31, 0.27, 0.31, 0, 360, 16),
                     cubic((0.54, 0.31), (0.54, 0.75), (0.39, 1.0), (0.06, 0.99), 8)])
    # lower case (x-height line at X_HEIGHT) --------------------------------
    xh = X_HEIGHT
    g["k"] = (0.44, [[(0, 0), (0, 1)], [(0.43, xh), (0, 0.76)], [(0.14, 0.63), (0.44, 1)]])
    bump = (1.0 - xh) * 0.34
    g["m"] = (0.7, [[(0, 1), (0, xh)],
                    [(0, xh + bump)] + earc(0.175, xh + bump, 0.175, bump, 180, 360, 8) + [(0.35, 1)],
                    [(0.35, xh + bump)] + earc(0.525, xh + bump, 0.175, bump, 180, 360, 8) + [(0.7, 1)]])
    g["h"] = (0.44, [[(0, 0), (0, 1)],
                     [(0, xh + bump)] + earc(0.22, xh + bump, 0.22, bump, 180, 360, 8) + [(0.44, 1)]])
    # symbols --------------------------------------------------------------
    g["-"] = (0.3, [[(0, 0.56), (0.3, 0.56)]])
    g["\u2013"] = (0.44, [[(0, 0.56), (0.44, 0.56)]])      # en dash: 8 AM–5 PM
    g["+"] = (0.5, [[(0, 0.5), (0.5, 0.5)], [(0.25, 0.25), (0.25, 0.75)]])
    g[":"] = (0.0, [[(0, 0.3)], [(0, 0.92)]])
    g["."] = (0.0, [[(0, 1)]])
    g[","] = (0.05, [[(0.05, 0.96), (0.0, 1.14)]])
    g["/"] = (0.38, [[(0, 1.04), (0.38, -0.04)]])
    g["'"] = (0.0, [[(0, 0), (0, 0.26)]])
    g["!"] = (0.0, [[(0, 0), (0, 0.64)], [(0, 1)]])
    g["%"] = (0.66, [earc(0.13, 0.16, 0.13, 0.16, 0, 360, 12), [(0.58, 0), (0.08, 1)],
                     earc(0.53, 0.84, 0.13, 0.16, 0, 360, 12)])
    g["("] = (0.2, [earc(0.5, 0.5, 0.5, 0.62, 235, 125, 10)])
    g[")"] = (0.2, [earc(-0.3, 0.5, 0.5, 0.62, -55, 55, 10)])
    g["&"] = (0.62, [[(0.62, 1), (0.12, 0.45)] + earc(0.27, 0.22, 0.18, 0.22, 140, -150, 10)
                     + [(0.09, 0.6)] + earc(0.26, 0.77, 0.23, 0.23, 210, 60, 8)[1:] + [(0.58, 0.5)]])
    g["#"] = (0.56, [[(0.18, 0.05), (0.12, 0.95)], [(0.44, 0.05), (0.38, 0.95)],
                     [(0.0, 0.34), (0.56, 0.34)], [(0.0, 0.66), (0.56, 0.66)]])
    g[" "] = (0.3, [])
    return g


GLYPHS = _glyphs()
TRACKING = 0.17          # space between glyphs, as a fraction of the cap height


def text_width(s, height, weight=0.16, condense=1.0, tracking=TRACKING):
    inner = height * (1.0 - weight)
    w = height * weight
    total = 0.0
    for k, ch in enumerate(s):
        gw, _ = GLYPHS[ch]
        total += gw * inner * condense + w
        if k:
            total += tracking * height * condense
    return total


def text(s, x, y, height, weight=0.16, align="center", max_width=None, tracking=TRACKING):
    """Shapes for string `s`; (x, y) is the anchor at the vertical middle of the capitals."""
    condense = 1.0
    width = text_width(s, height, weight, 1.0, tracking)
    if max_width is not None and width > max_width:
        fixed = height * weight * len(s)
        condense = max(0.35, (max_width - fixed) / (width - fixed))
        width = text_width(s, height, weight, condense, tracking)
    if align == "center":
        left = x - width / 2.0
    elif align == "right":
        left = x - width
    else:
        left = x
    inner = height * (1.0 - weight)
    w = height * weight
    top = y - inner / 2.0
    shapes = []
    pen = left + w / 2.0
    for ch in s:
        gw, strokes = GLYPHS[ch]
        if strokes:
            shapes.append(lines([[(pen + px * inner * condense, top + py * inner) for px, py in st]
                                 for st in strokes], w))
        pen += gw * inner * condense + w + tracking * height * condense
    return shapes


def label(s, x, y, height, color=BLACK, **kw):
    """text() as (shape, colour) pairs to paint: a legend whose capitals are centred on (x, y)."""
    return [(g, color) for g in text(s, x, y, height, **kw)]
