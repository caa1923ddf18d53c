"""Signs: sign blanks, borders, legends and the symbols several signs share.

Canadian / British Columbia style (the MUTCDC shapes and colours as BC posts
them): regulatory signs white with a black border, prohibitions with the red
circle and slash, permissions with the green circle, warning signs yellow
diamonds (construction ones orange), school signs fluorescent yellow-green,
guide signs green, service signs blue.  Every sign face stands on the white
page with its thin grey metal edge (edged), so a white sign still reads.

Two sizes of drawing:

- sign faces that fill a picture (Scripts/render-road-pictures): the blanks
  (rect_sign, diamond_sign, the school pentagon, the crossbuck), legends
  (tab, legend_lines), the red circle and slash (prohibit), the green circle
  (permit), and the arrows and symbols of more than one sign;
- signs as the scenario diagrams show them beside the road, small and with no
  words (diagram_stop_sign, diagram_yield_sign, diagram_speed_sign,
  diagram_crossbuck, diagram_one_way_sign).

Standard library only.
"""

from .colors import BLACK, EDGE, FYG, PERMIT, RED, WHITE, YELLOW
from .font import label
from .raster import (
    arc, arrow, cos_sin, diamond, grow, lines, octagon, outline, place, polygon, regular, ring,
    rrect, triangle, union)
from .road_users import person


# --------------------------------------------------------------------------
# blanks, borders and legends


def edged(shape, color, edge=EDGE):
    """A sign blank with its thin grey metal edge, so white signs read on white."""
    return [(grow(shape, 0.007), edge), (shape, color)]


def rect_sign(x0, y0, x1, y1, bg=WHITE, fg=BLACK, radius=0.035, border=0.013, inset=0.016):
    """A rectangular sign in `bg` with a border of width `border` in `fg`, `inset` in from
    the edge (no border if 0)."""
    items = edged(rrect(x0, y0, x1, y1, radius), bg)
    if border:
        items.append((outline(rrect(x0 + inset, y0 + inset, x1 - inset, y1 - inset,
                                    max(radius - inset, 0.008)), border, border / 2), fg))
    return items


def diamond_sign(cx=0.5, cy=0.5, h=0.47, bg=YELLOW, fg=BLACK):
    """A warning sign's diamond with its border (by default the one that fills a picture)."""
    return (edged(diamond(cx, cy, h, 0.045), bg)
            + [(outline(diamond(cx, cy, h - 0.028, 0.03), 0.016, 0.008), fg)])


def legend_lines(lines_, x0, y0, x1, y1, heights, color=BLACK, fill=0.84):
    """Lines of legend centred in the box x0..x1, y0..y1, one capital height each, with equal
    space above, between and below; a line wider than `fill` of the box is condensed."""
    gap = ((y1 - y0) - sum(heights)) / (len(lines_) + 1)
    y = y0 + gap
    items = []
    for s, h in zip(lines_, heights):
        items += label(s, (x0 + x1) / 2, y + h / 2, h, color, max_width=(x1 - x0) * fill)
        y += h + gap
    return items


def tab(y0, y1, lines_, x0=0.14, x1=0.86, bg=WHITE, fg=BLACK, heights=None):
    """A rectangular tab (under a sign) with centred legend lines."""
    items = rect_sign(x0, y0, x1, y1, bg, fg, radius=0.025, border=0.01, inset=0.013)
    heights = heights or [min(0.11, (y1 - y0) * 0.62 / len(lines_))] * len(lines_)
    return items + legend_lines(lines_, x0, y0, x1, y1, heights, fg, 0.86)


def pentagon(x0, y0, x1, y1, r=0.03):
    """The school sign's pentagon (point up) in the box x0..x1, y0..y1, corners rounded by r."""
    shoulder = y0 + (y1 - y0) * 0.36
    return polygon([(0.5 * (x0 + x1), y0 + r * 1.8), (x1 - r, shoulder), (x1 - r, y1 - r),
                    (x0 + r, y1 - r), (x0 + r, shoulder)], r)


def school_sign(x0, y0, x1, y1):
    """The school-zone sign: two children on the fluorescent yellow-green pentagon."""
    items = edged(pentagon(x0, y0, x1, y1), FYG)
    items.append((outline(pentagon(x0 + 0.022, y0 + 0.026, x1 - 0.022, y1 - 0.02, 0.02), 0.014, 0.007), BLACK))
    h = y1 - y0
    items += school_children(0.5 * (x0 + x1), y0 + h * 0.6, h * 0.62)
    return items


def school_children(cx, cy, s, color=BLACK):
    """Two schoolchildren walking (the school-zone pictogram)."""
    return (person(cx - 0.16 * s, cy - 0.02 * s, 0.92 * s, color, -1, "walk")
            + person(cx + 0.2 * s, cy + 0.1 * s, 0.7 * s, color, -1, "walk"))


def reserved_header(x0, x1, y0, y1):
    """The black band with the white diamond that heads every reserved-lane sign."""
    cx, cy = (x0 + x1) / 2, (y0 + y1) / 2
    h = (y1 - y0) * 0.4
    return [(rrect(x0, y0, x1, y1, 0.02), BLACK),
            (outline(polygon([(cx, cy - h), (cx + h * 0.75, cy), (cx, cy + h), (cx - h * 0.75, cy)]),
                     (y1 - y0) * 0.09), WHITE)]


# --------------------------------------------------------------------------
# the circles, signs within signs, and the symbols of more than one sign


def prohibit(cx, cy, r, w=None, color=RED, cross=False):
    """The red circle and slash (slash from upper left to lower right) of outer radius r;
    with `cross`, the circle and X of no stopping."""
    w = w or r * 0.2
    c, s = cos_sin(45)
    k = r - w / 2
    bars = [[(cx - k * c, cy - k * s), (cx + k * c, cy + k * s)]]
    if cross:
        bars.append([(cx + k * c, cy - k * s), (cx - k * c, cy + k * s)])
    return [(ring(cx, cy, r - w / 2, w), color), (lines(bars, w), color)]


def permit(cx, cy, r, w=None):
    """The green circle of a permitted movement, outer radius r."""
    w = w or r * 0.16
    return [(ring(cx, cy, r - w / 2, w), PERMIT)]


def stop_sign(cx=0.5, cy=0.5, r=0.45, legend=True):
    """The stop sign: red octagon, white rim, STOP in white (no legend: the shape alone, as on
    the stop-ahead sign)."""
    items = [(octagon(cx, cy, r + 0.008), EDGE), (octagon(cx, cy, r), WHITE),
             (octagon(cx, cy, r * 0.925), RED)]
    if legend:
        items += label("STOP", cx, cy, r * 0.42, WHITE, max_width=r * 1.5, weight=0.17)
    return items


def yield_triangle(cx, cy, r, band=0.24):
    """An inverted yield triangle (red band, white centre) with circumradius r."""
    return [(triangle(cx, cy, r, False, r * 0.09), RED),
            (triangle(cx, cy, r * (1 - band * 1.5), False, r * 0.03), WHITE)]


def crossbuck(cx, cy, s, rounding=None, rim=0.0125, border=0.029):
    """The railway crossbuck: two crossed white boards with a red border of `border` inside a
    grey metal rim of `rim`, about 1 unit wide (all in units of s); corners rounded by
    `rounding` (0.006 s unless told)."""
    rounding = 0.006 * s if rounding is None else rounding

    def boards(grow_by):
        out = []
        for a in (35, -35):
            pts = place([(-0.5 - grow_by, -0.075 - grow_by), (0.5 + grow_by, -0.075 - grow_by),
                         (0.5 + grow_by, 0.075 + grow_by), (-0.5 - grow_by, 0.075 + grow_by)],
                        s, cx, cy, a)
            out.append(polygon(pts, rounding))
        return union(*out)
    return [(boards(rim), EDGE), (boards(0.0), RED), (boards(-border), WHITE)]


def big_p(cx, cy, h, color=BLACK):
    """The P of the parking signs, h tall."""
    w = h * 0.16
    bowl = h * 0.27
    top = cy - h / 2 + w / 2
    x = cx - h * 0.2
    return [(lines([[(x, cy + h / 2 - w / 2), (x, top), (x + h * 0.12, top)]
                    + arc(x + h * 0.12, top + bowl, bowl, -90, 90, 12)[1:] + [(x, top + 2 * bowl)]], w), color)]


def turn_arrow(cx, cy, s, direction=-1, width=0.085):
    """An arrow rising from below and turning 90 degrees left (-1) or right (1)."""
    r = 0.16 * s
    x0 = cx - direction * 0.12 * s
    bend = arc(x0 + direction * r, cy - 0.02 * s, r, 180 if direction > 0 else 0,
               270 if direction > 0 else -90, 8)
    pts = [(x0, cy + 0.42 * s)] + bend + [(cx + direction * 0.42 * s, cy - 0.02 * s - r)]
    w = width * s / 0.6
    return arrow(pts, w, w * 2.1, w * 3.0)


def u_arrow(cx, cy, s, width=0.085):
    """The U-turn arrow: up from the right, over and down on the left."""
    r = 0.2 * s
    pts = ([(cx + r, cy + 0.42 * s), (cx + r, cy - 0.08 * s)] + arc(cx, cy - 0.08 * s, r, 0, -180, 12)
           + [(cx - r, cy + 0.3 * s)])
    w = width * s / 0.6
    return arrow(pts, w, w * 2.1, w * 3.0)


def curve_arrow(cx, cy, s, direction=1, width=0.1):
    """The curve arrow: up from below, bending right (1) or left (-1)."""
    x0 = cx - direction * 0.16 * s
    r = 0.5 * s
    a1 = 180 + 55 if direction > 0 else -55
    bend = arc(x0 + direction * r, cy + 0.12 * s, r, 180 if direction > 0 else 0, a1, 12)
    c, sn = cos_sin(a1)
    tx, ty = (-sn, c) if direction > 0 else (sn, -c)       # the tangent at the end of the bend
    ex, ey = bend[-1]
    pts = [(x0, cy + 0.44 * s)] + bend + [(ex + tx * 0.24 * s, ey + ty * 0.24 * s)]
    w = width * s / 0.6
    return arrow(pts, w, w * 2.1, w * 3.0)


def roundabout_arrows(cx, cy, r, width, color=BLACK):
    """Three arrows chasing each other counter-clockwise around a circle."""
    items = []
    for k in range(3):
        a0 = -80 + 120 * k
        a1 = a0 - 78
        pts = arc(cx, cy, r, a0, a1, 14)
        c, sn = cos_sin(a1)
        ex, ey = pts[-1]
        hl = width * 1.8
        pts.append((ex + sn * hl, ey - c * hl))         # on along the tangent, for the head
        items.append((arrow(pts, width, hl, width * 2.6), color))
    return items


# --------------------------------------------------------------------------
# signs as the scenario diagrams show them (small, shapes and colours, no words)


def diagram_stop_sign(cx, cy, r=0.032):
    """The stop sign seen on the diagram: the red octagon with a white rim and inner line."""
    return [(octagon(cx, cy, r + 0.006), WHITE), (octagon(cx, cy, r), RED),
            (outline(octagon(cx, cy, r * 0.78), 0.004), WHITE)]


def diagram_yield_sign(cx, cy, r=0.036):
    """The yield sign seen on the diagram: the inverted triangle, red with a white centre."""
    def tri(rr):
        return regular(cx, cy, rr, 3, 90, 0.004)
    return [(tri(r + 0.008), WHITE), (tri(r), RED), (tri(r * 0.48), WHITE)]


def diagram_speed_sign(cx, cy, n, w=0.07, h=0.085):
    """A regulatory speed-limit sign seen on the diagram: a white board with a black border and
    the limit in km/h (no words)."""
    board = rrect(cx - w / 2, cy - h / 2, cx + w / 2, cy + h / 2, 0.006)
    items = [(grow(board, 0.004), BLACK), (board, WHITE), (outline(board, 0.004, 0.006), BLACK)]
    items += label(str(n), cx, cy + h * 0.06, h * 0.42, BLACK, weight=0.2, max_width=w * 0.8)
    return items


def diagram_crossbuck(cx, cy, r=0.04):
    """The railway crossing sign seen on the diagram: a white X with a red edge."""
    bars = lines([[(cx - r, cy - r * 0.7), (cx + r, cy + r * 0.7)], [(cx - r, cy + r * 0.7), (cx + r, cy - r * 0.7)]], 0.016)
    return [(grow(bars, 0.004), RED), (bars, WHITE)]


def diagram_one_way_sign(cx, cy, heading=270):
    """The one-way sign seen on the diagram: a white arrow on a black board (no words),
    pointing the way traffic goes (`heading` in degrees, 0 up the picture, 270 to the left)."""
    c, s = cos_sin(heading - 90)
    horizontal = abs(c) > 0.5
    if horizontal:
        board = rrect(cx - 0.045, cy - 0.018, cx + 0.045, cy + 0.018, 0.004)
        tip = -1 if c < 0 else 1
        shaft = [(cx - tip * 0.03, cy), (cx + tip * 0.016, cy)]
    else:
        board = rrect(cx - 0.018, cy - 0.045, cx + 0.018, cy + 0.045, 0.004)
        tip = -1 if s < 0 else 1
        shaft = [(cx, cy - tip * 0.03), (cx, cy + tip * 0.016)]
    return [(grow(board, 0.004), WHITE), (board, BLACK), (arrow(shaft, 0.008, 0.014, 0.022), WHITE)]
