"""The road seen from above: grass, asphalt, sidewalks, lane lines, crosswalks, whole crossings.

Canadian markings: yellow lines between opposing traffic, white lines between
lanes going the same way and at the edges, stop lines and crosswalks in white.
The picture is the 0..1 square with rounded corners (FRAME); a road runs off
its edges, and clip() keeps paint inside it.  Up the picture is north: the
"s" approach of a crossing is traffic coming from the bottom edge.

Lines are given by their centre (vsolid / vdash up the picture, hsolid /
hdash across it); a broken line's `offset` shifts its dashes along the line.

Standard library only.
"""

from .colors import (
    ASPHALT, CURB, GRASS, GRAVEL, HYDRANT, PAINT_WHITE, PAINT_YELLOW, SIDEWALK, WHITE)
from .raster import arc, arrow, circle, intersect, outline, place, polygon, rrect, union

FRAME = rrect(0.0, 0.0, 1.0, 1.0, 0.04)     # the picture, its corners rounded


# --------------------------------------------------------------------------
# ground


def clip(shape):
    """The part of `shape` inside the picture."""
    return intersect(shape, FRAME)


def grass():
    """The whole picture grass: the ground everything else is laid on."""
    return [(FRAME, GRASS)]


def paved(x0, y0, x1, y1, color=ASPHALT):
    """A paved rectangle (asphalt, or a sidewalk, driveway or shoulder in `color`)."""
    return [(clip(rrect(x0, y0, x1, y1)), color)]


def asphalt():
    """The whole picture asphalt: a close view of the road, no verge in sight."""
    return [(FRAME, ASPHALT)]


def carriageway(x0, x1):
    """Grass either side of an asphalt road running up the whole picture from x0 to x1."""
    return grass() + paved(x0, -0.01, x1, 1.01)


def gravel(x0, y0, x1, y1):
    """A gravel rectangle: an unpaved shoulder."""
    return paved(x0, y0, x1, y1, GRAVEL)


# --------------------------------------------------------------------------
# painted lines and crosswalks


def vsolid(x, y0, y1, w=0.014, color=PAINT_WHITE):
    """A solid line up the picture, centred on x, from y0 to y1."""
    return [(clip(rrect(x - w / 2, y0, x + w / 2, y1, w * 0.2)), color)]


def hsolid(y, x0, x1, w=0.014, color=PAINT_WHITE):
    """A solid line across the picture, centred on y, from x0 to x1."""
    return [(clip(rrect(x0, y - w / 2, x1, y + w / 2, w * 0.2)), color)]


def vdash(x, y0, y1, w=0.012, color=PAINT_WHITE, length=0.06, gap=0.05, offset=0.0):
    """A broken line up the picture: dashes of `length` and gaps of `gap`, the first dash
    starting at y0 + offset (a negative offset starts it before y0)."""
    pieces = []
    y = y0 + offset
    while y < y1:
        a, b = max(y, y0), min(y + length, y1)
        if b - a > 0.004:
            pieces.append(rrect(x - w / 2, a, x + w / 2, b, w * 0.2))
        y += length + gap
    return [(clip(union(*pieces)), color)] if pieces else []


def hdash(y, x0, x1, w=0.012, color=PAINT_WHITE, length=0.06, gap=0.05, offset=0.0):
    """A broken line across the picture (see vdash)."""
    pieces = []
    x = x0 + offset
    while x < x1:
        a, b = max(x, x0), min(x + length, x1)
        if b - a > 0.004:
            pieces.append(rrect(a, y - w / 2, b, y + w / 2, w * 0.2))
        x += length + gap
    return [(clip(union(*pieces)), color)] if pieces else []


def zebra_v(x0, x1, y0, y1, n=None):
    """Crosswalk bars across a vertical road (bars run along the road) between y0 and y1."""
    n = n or max(3, int(round((x1 - x0) / 0.04)))
    step = (x1 - x0) / n
    bars = [rrect(x0 + k * step + step * 0.2, y0, x0 + (k + 1) * step - step * 0.2, y1, 0.003) for k in range(n)]
    return [(clip(union(*bars)), PAINT_WHITE)]


def zebra_h(y0, y1, x0, x1, n=None):
    """Crosswalk bars across a horizontal road between x0 and x1."""
    n = n or max(3, int(round((y1 - y0) / 0.04)))
    step = (y1 - y0) / n
    bars = [rrect(x0, y0 + k * step + step * 0.2, x1, y0 + (k + 1) * step - step * 0.2, 0.003) for k in range(n)]
    return [(clip(union(*bars)), PAINT_WHITE)]


def hov_diamond(cx, cy, w=0.05, h=0.1):
    """The reserved-lane diamond painted on a lane, in outline."""
    d = polygon([(cx, cy - h / 2), (cx + w / 2, cy), (cx, cy + h / 2), (cx - w / 2, cy)], 0.002)
    return [(outline(d, 0.008), PAINT_WHITE)]


def lane_arrow(cx, y0, y1, kind, color=PAINT_WHITE, w=0.03):
    """The arrow painted in a lane, from y1 up to y0, centred on cx: "left", "straight" or
    "straight-right" (close up: the lane fills a third of the picture)."""
    if kind == "left":
        pts = [(cx + 0.03, y1), (cx + 0.03, y0 + 0.12)] + arc(cx - 0.03, y0 + 0.12, 0.06, 0, -90, 5) + [(cx - 0.09, y0 + 0.06)]
        return [(arrow(pts, w, 0.06, 0.09), color)]
    if kind == "straight":
        return [(arrow([(cx, y1), (cx, y0)], w, 0.06, 0.09), color)]
    if kind == "straight-right":
        return [(arrow([(cx - 0.02, y1), (cx - 0.02, y0)], w, 0.06, 0.09), color),
                (arrow([(cx - 0.02, y1 - 0.1)] + arc(cx + 0.04, y1 - 0.1, 0.06, 180, 270, 5) + [(cx + 0.1, y1 - 0.16)],
                       w, 0.06, 0.09), color)]
    raise ValueError(kind)


# --------------------------------------------------------------------------
# roads and crossings


# the standard crossing: a two-lane road each way, lanes 0.15 wide
LO, HI = 0.35, 0.65


def crossroads(sidewalks=True, centre=True, stop=(), zebras=(), lo=LO, hi=HI):
    """Two two-lane roads crossing at the middle.  `stop` names the approaches with a stop
    line (n, s, e, w: the side of the picture the traffic comes from), `zebras` the
    approaches with a crosswalk."""
    items = grass()
    sw = 0.045
    if sidewalks:
        items += paved(lo - sw, -0.01, hi + sw, 1.01, SIDEWALK) + paved(-0.01, lo - sw, 1.01, hi + sw, SIDEWALK)
    items += paved(lo, -0.01, hi, 1.01) + paved(-0.01, lo, 1.01, hi)
    mid = (lo + hi) / 2
    if centre:
        g = 0.03
        items += vsolid(mid, -0.01, lo - g, 0.014, PAINT_YELLOW) + vsolid(mid, hi + g, 1.01, 0.014, PAINT_YELLOW)
        items += hsolid(mid, -0.01, lo - g, 0.014, PAINT_YELLOW) + hsolid(mid, hi + g, 1.01, 0.014, PAINT_YELLOW)
    zw, gap = 0.06, 0.012
    for side in zebras:
        if side == "s":
            items += zebra_h(hi + gap, hi + gap + zw, lo, hi)
        elif side == "n":
            items += zebra_h(lo - gap - zw, lo - gap, lo, hi)
        elif side == "e":
            items += zebra_v(hi + gap, hi + gap + zw, lo, hi)
        elif side == "w":
            items += zebra_v(lo - gap - zw, lo - gap, lo, hi)
    for side in stop:
        d = (zw + 2 * gap + 0.01) if side in zebras else gap
        if side == "s":
            items += [(rrect(mid + 0.006, hi + d, hi, hi + d + 0.016), PAINT_WHITE)]
        elif side == "n":
            items += [(rrect(lo, lo - d - 0.016, mid - 0.006, lo - d), PAINT_WHITE)]
        elif side == "e":
            items += [(rrect(hi + d, lo, hi + d + 0.016, mid - 0.006), PAINT_WHITE)]
        elif side == "w":
            items += [(rrect(lo - d - 0.016, mid + 0.006, lo - d, hi), PAINT_WHITE)]
    return items


def straight_road(lanes, x0=0.1, x1=0.9, kinds=None, edge=True):
    """A road running up the picture from x0 to x1 with `lanes` equal lanes; `kinds` lists
    the marking between lane k and k+1: "white", "white-solid", "yellow", "yellow-double",
    "yellow-solid-broken" (solid on the left lane's side), "yellow-broken-solid"."""
    items = carriageway(x0, x1)
    w = (x1 - x0) / lanes
    if edge:
        items += vsolid(x0 + 0.014, -0.01, 1.01, 0.01) + vsolid(x1 - 0.014, -0.01, 1.01, 0.01)
    for k in range(1, lanes):
        x = x0 + k * w
        kind = (kinds or ["white"] * (lanes - 1))[k - 1]
        if kind == "white":
            items += vdash(x, -0.01, 1.01, 0.012, PAINT_WHITE, 0.08, 0.07, -0.03)
        elif kind == "white-solid":
            items += vsolid(x, -0.01, 1.01, 0.012)
        elif kind == "yellow":
            items += vdash(x, -0.01, 1.01, 0.014, PAINT_YELLOW, 0.08, 0.07, -0.03)
        elif kind == "yellow-double":
            items += vsolid(x - 0.011, -0.01, 1.01, 0.012, PAINT_YELLOW) + vsolid(x + 0.011, -0.01, 1.01, 0.012, PAINT_YELLOW)
        elif kind == "yellow-solid-broken":
            items += vsolid(x - 0.011, -0.01, 1.01, 0.012, PAINT_YELLOW)
            items += vdash(x + 0.011, -0.01, 1.01, 0.012, PAINT_YELLOW, 0.08, 0.07, -0.03)
        elif kind == "yellow-broken-solid":
            items += vdash(x - 0.011, -0.01, 1.01, 0.012, PAINT_YELLOW, 0.08, 0.07, -0.03)
            items += vsolid(x + 0.011, -0.01, 1.01, 0.012, PAINT_YELLOW)
        else:
            raise ValueError(kind)
    return items


def lane_x(k, lanes, x0=0.1, x1=0.9):
    """The centre of lane k (0 at the left) of straight_road(lanes, x0, x1)."""
    w = (x1 - x0) / lanes
    return x0 + (k + 0.5) * w


def roundabout(cx=0.5, cy=0.5, ro=0.3, ri=0.15):
    """A one-lane roundabout: four two-lane legs, the circulating road between radii ri and
    ro, a curbed grass island in the middle and a splitter island on each leg."""
    items = grass()
    for ang in (0, 90, 180, 270):
        # each leg: a two-lane road into the circle
        if ang in (90, 270):
            items += paved(cx - 0.15, 0.0 if ang == 270 else cy, cx + 0.15, cy if ang == 270 else 1.0)
        else:
            items += paved(0.0 if ang == 180 else cx, cy - 0.15, cx if ang == 180 else 1.0, cy + 0.15)
    items += [(circle(cx, cy, ro), ASPHALT)]
    items += [(circle(cx, cy, ri + 0.02), CURB), (circle(cx, cy, ri), GRASS)]
    # splitter islands on each leg
    for ang in (0, 90, 180, 270):
        pts = [(-0.022, ro + 0.015), (0.022, ro + 0.015), (0.008, ro + 0.16), (-0.008, ro + 0.16)]
        pts = place(pts, 1.0, cx, cy, ang)
        items += [(polygon(pts, 0.008), SIDEWALK)]
    return items


def railway(y, x0=-0.01, x1=1.01):
    """A railway track across the picture: ties and two rails."""
    items = []
    ties = [rrect(x - 0.012, y - 0.05, x + 0.012, y + 0.05, 0.003) for x in [x0 + 0.02 + 0.05 * k for k in range(22)] if x < x1]
    items.append((clip(union(*ties)), (0x6B, 0x55, 0x3E)))
    items += hsolid(y - 0.028, x0, x1, 0.012, (0x9A, 0x9A, 0x9A)) + hsolid(y + 0.028, x0, x1, 0.012, (0x9A, 0x9A, 0x9A))
    return items


# --------------------------------------------------------------------------
# beside the road


def hydrant(cx, cy, r=0.018):
    """A fire hydrant seen from above, on a white rim so that it reads on a sidewalk."""
    return [(circle(cx, cy, r + 0.005), WHITE), (circle(cx, cy, r), HYDRANT),
            (rrect(cx - r * 1.5, cy - r * 0.35, cx + r * 1.5, cy + r * 0.35, r * 0.2), HYDRANT)]


def post_marker(cx, cy):
    """A post at the roadside (the fixed point of the two-second rule)."""
    return [(circle(cx, cy, 0.016), WHITE), (circle(cx, cy, 0.012), (0xE0, 0x7B, 0x00))]
