"""Signal heads: the lamps, the head on its backplate, and heads on the scenario diagrams.

Close up (Scripts/render-road-pictures), a head is vertical on a black
backplate with the yellow retroreflective border British Columbia gives it;
lit lamps are bright (LIT, with a highlight), unlit ones dark (DIM), and a
flashing lamp has short arcs either side of it (flash_marks).  A lamp shows a
ball, an arrow, a bicycle or a transit bar.

On the scenario diagrams (Scripts/render-scenarios) a head is small and seen
from above, hung where BC hangs it: on a mast arm on the far side of the
intersection, over the lane it controls (far_signal), its red lamp on the
driver's left as the driver sees it.

Standard library only.
"""

from .colors import (
    BACKPLATE, DIM, GLOW, HOUSING, LENS, LIT, PAINT_YELLOW, POST, REFLECT, SIGNAL_BOX, SIGNAL_DIM,
    WHITE)
from .raster import arc, arrow, circle, grow, lines, place, rrect
from .road import HI, LO
from .road_users import bicycle


# --------------------------------------------------------------------------
# close up: the head as the driver sees it


def lamp(cx, cy, r, color, lit, kind="ball"):
    """One lamp of radius r in its dark lens: `color` red, yellow, green, white or orange, lit
    or not; `kind` a ball, an arrow (left, right, up, down), a bicycle, or the transit
    signal's bar (vertical: go) or hbar (horizontal: stop)."""
    items = [(circle(cx, cy, r * 1.12), LENS)]
    col = LIT[color] if lit else DIM[color]
    if kind == "ball":
        items.append((circle(cx, cy, r), col))
        if lit:
            items.append((circle(cx - r * 0.3, cy - r * 0.3, r * 0.3), tuple(min(255, c + 70) for c in col)))
    elif kind in ("left", "right", "up", "down"):
        ang = {"up": 0, "right": 90, "down": 180, "left": -90}[kind]
        pts = place([(0, 0.74), (0, -0.78)], r, cx, cy, ang)
        items.append((arrow(pts, r * 0.46, r * 0.8, r * 1.35), col))
    elif kind == "bike":
        items += bicycle(cx, cy - r * 0.1, r * 1.85, col)
    elif kind == "bar":           # transit: vertical bar (go)
        items.append((rrect(cx - r * 0.2, cy - r * 0.82, cx + r * 0.2, cy + r * 0.82, r * 0.08), col))
    elif kind == "hbar":          # transit: horizontal bar (stop)
        items.append((rrect(cx - r * 0.82, cy - r * 0.2, cx + r * 0.82, cy + r * 0.2, r * 0.08), col))
    return items


def flash_marks(cx, cy, inner, color):
    """Short arcs either side of a lamp: this light is flashing."""
    out = []
    for r in (inner, inner + 0.055):
        out.append(arc(cx, cy, r, -28, 28, 6))
        out.append(arc(cx, cy, r, 152, 208, 6))
    return [(lines(out, 0.022), GLOW[color])]


def signal_head(cx, lamps, top=0.06, pitch=0.29, r=0.1, width=0.3, plate=0.085):
    """A vertical signal head; lamps = [(colour, lit, kind, flashing), ...] top to bottom."""
    n = len(lamps)
    bottom = top + n * pitch
    items = [(rrect(cx - width / 2 - plate, top - 0.035, cx + width / 2 + plate, bottom + 0.035, 0.03), REFLECT),
             (rrect(cx - width / 2 - plate + 0.022, top - 0.013, cx + width / 2 + plate - 0.022, bottom + 0.013, 0.02),
              BACKPLATE),
             (rrect(cx - width / 2, top, cx + width / 2, bottom, 0.05), HOUSING)]
    for k, (color, lit, kind, flashing) in enumerate(lamps):
        y = top + pitch * (k + 0.5)
        items += lamp(cx, y, r, color, lit, kind)
        if flashing and lit:
            items += flash_marks(cx, y, width / 2 + plate + 0.045, color)
    return items


def three(red=False, yellow=False, green=False, flash=None):
    """The lamps of a standard head, red over yellow over green, for signal_head; `flash`
    names the lamp that flashes."""
    return [("red", red, "ball", flash == "red"), ("yellow", yellow, "ball", flash == "yellow"),
            ("green", green, "ball", flash == "green")]


# --------------------------------------------------------------------------
# on the scenario diagrams


def _diagram_box(cx, cy, w, h, s, horizontal):
    """A diagram head's dark box with its yellow rim, h long (across the picture when
    `horizontal`, else up it) and w wide."""
    if horizontal:
        box = rrect(cx - h / 2, cy - w / 2, cx + h / 2, cy + w / 2, 0.008 * s)
    else:
        box = rrect(cx - w / 2, cy - h / 2, cx + w / 2, cy + h / 2, 0.008 * s)
    return [(grow(box, 0.005), PAINT_YELLOW), (box, SIGNAL_BOX)]


def diagram_signal_head(cx, cy, lit, horizontal=False, s=1.0, reverse=False):
    """A three-lamp head on its dark box; `lit` is red, yellow or green (None: dark).  The red
    lamp is at the top (vertical) or the left (horizontal); `reverse` puts it at the other end."""
    w, h = 0.036 * s, 0.092 * s
    if horizontal:
        spots = [(cx - h * 0.3, cy), (cx, cy), (cx + h * 0.3, cy)]
    else:
        spots = [(cx, cy - h * 0.3), (cx, cy), (cx, cy + h * 0.3)]
    if reverse:
        spots.reverse()
    items = _diagram_box(cx, cy, w, h, s, horizontal)
    for name, (x, y) in zip(("red", "yellow", "green"), spots):
        items.append((circle(x, y, 0.011 * s), LIT[name] if name == lit else SIGNAL_DIM))
    return items


def diagram_arrow_signal(cx, cy, ball="red", s=1.0, horizontal=False, reverse=False):
    """A signal head with a red ball, a yellow and a green ball and a lit green left arrow (the
    advance left-turn arrow), from the red lamp to the arrow: top to bottom, or left to right
    when `horizontal` (`reverse`: the other way round)."""
    w, h = 0.036 * s, 0.12 * s
    k = [-0.36, -0.12, 0.12, 0.36]
    if reverse:
        k = [-v for v in k]
    if horizontal:
        spots = [(cx + h * v, cy) for v in k]
    else:
        spots = [(cx, cy + h * v) for v in k]
    items = _diagram_box(cx, cy, w, h, s, horizontal)
    items.append((circle(*spots[0], 0.011 * s), LIT["red"] if ball == "red" else SIGNAL_DIM))
    items.append((circle(*spots[1], 0.011 * s), SIGNAL_DIM))
    items.append((circle(*spots[2], 0.011 * s), LIT["green"] if ball == "green" else SIGNAL_DIM))
    ax, ay = spots[3]
    items.append((circle(ax, ay, 0.012 * s), (0x10, 0x24, 0x1C)))
    # the arrow points to the driver's left, as the driver sees it
    if horizontal:
        dx, dy = (-1, 0) if not reverse else (1, 0)
    else:
        dx, dy = (0, -1) if not reverse else (0, 1)
    items.append((arrow([(ax - dx * 0.008 * s, ay - dy * 0.008 * s), (ax + dx * 0.004 * s, ay + dy * 0.004 * s)],
                         0.005 * s, 0.008 * s, 0.013 * s), LIT["green"]))
    return items


def far_signal(approach, lit, lo=None, hi=None, arrow=False, lane=None, back=0.1):
    """The signal that controls traffic coming from side `approach` (n, s, e, w) of a crossing
    spanning lo..hi, drawn where British Columbia mounts it: on the FAR side of the intersection,
    on a mast arm that reaches from a pole at the far right-hand corner out over the approach
    lane (`lane`: the centre of the lane it hangs over, across the road), `back` beyond the edge of
    the intersection (clear of a crosswalk on the far side).  Seen from above the
    head lies along the arm, its red lamp on the driver's left, as the driver sees it.  `arrow`
    draws the head with a red ball and a lit green left arrow (an advance left-turn signal).
    """
    lo = LO if lo is None else lo
    hi = HI if hi is None else hi
    mid = (lo + hi) / 2
    lane = (mid + hi) / 2 if lane is None else lane
    d = 0.024                                   # the pole stands this far into the corner
    # in the frame of the south approach (driving up the picture): pole at the far right
    # corner, the arm across the road beyond the intersection, the head over the lane
    pole = (hi + d, lo - back)
    head = (lane, lo - back)

    def turn(p):                                # the south frame -> the approach's frame
        x, y = p
        return {"s": (x, y), "n": (1 - x, 1 - y), "w": (1 - y, x), "e": (y, 1 - x)}[approach]
    px, py = turn(pole)
    hx, hy = turn(head)
    horizontal = approach in ("s", "n")
    reverse = approach in ("n", "e")            # red lamp on the driver's left
    items = [(lines([[(px, py), (hx, hy)]], 0.008), POST), (circle(px, py, 0.013), WHITE), (circle(px, py, 0.01), POST)]
    if arrow:
        return items + diagram_arrow_signal(hx, hy, horizontal=horizontal, reverse=reverse)
    return items + diagram_signal_head(hx, hy, lit, horizontal=horizontal, reverse=reverse)
