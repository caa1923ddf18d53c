"""Anti-aliased flat drawing from signed-distance shapes, and a deterministic PNG writer.

Shared by Scripts/render-category-pictures, Scripts/render-road-pictures and
Scripts/render-scenarios.

Shapes live in a normalized 0..1 coordinate space (x to the right, y downward).
Each shape is a signed distance function (negative inside, normalized units)
plus a bounding box outside which it has no coverage.  Every shape built here
is 1-Lipschitz (its value never changes faster than the distance to the
point), which lets the canvas decide whole 8 x 8 tiles of pixels from one
distance at the tile centre: a tile that lies wholly outside a shape is
skipped and one wholly inside is filled, and only tiles the edge passes
through are evaluated pixel by pixel.  The result is exactly the bytes a
pixel-by-pixel evaluation gives (the decision keeps a margin of safety).
A shape is only evaluated inside its bounding box.

Besides the primitives (circle, ring, rrect, polygon, lines) and their
combinations (union, subtract, intersect, grow, outline, rotated) there are
the shapes signs are cut from (triangle, regular, octagon, diamond, ellipse),
an arrow, and point helpers (arc, earc, cubic, place, bounds).

encode_png writes 8-bit RGB PNGs with IHDR, IDAT and IEND chunks only (zlib
level 9, the smallest of whole-image filters none / sub / up), so the same
pixels always give byte-identical files.

Standard library only.
"""

import math
import struct
import zlib

from .colors import WHITE


# --------------------------------------------------------------------------
# geometry helpers (normalized units)


def cos_sin(degrees):
    """cos and sin of an angle in degrees, rounded to 12 places.

    Rounding keeps the rendered bytes independent of last-bit differences
    between platform libm implementations.
    """
    a = math.radians(degrees)
    return round(math.cos(a), 12), round(math.sin(a), 12)


def arc(cx, cy, r, a0, a1, steps):
    """Points on a circular arc from angle a0 to a1 (degrees; 90 points down)."""
    pts = []
    for k in range(steps + 1):
        c, s = cos_sin(a0 + (a1 - a0) * k / steps)
        pts.append((cx + r * c, cy + r * s))
    return pts


def earc(cx, cy, rx, ry, a0, a1, steps):
    """Points on an elliptical arc from angle a0 to a1 (degrees; 90 points down)."""
    pts = []
    for k in range(steps + 1):
        c, s = cos_sin(a0 + (a1 - a0) * k / steps)
        pts.append((cx + rx * c, cy + ry * s))
    return pts


def cubic(p0, p1, p2, p3, steps):
    pts = []
    for k in range(steps + 1):
        t = k / steps
        m = 1.0 - t
        a, b, c, d = m * m * m, 3 * m * m * t, 3 * m * t * t, t * t * t
        pts.append((a * p0[0] + b * p1[0] + c * p2[0] + d * p3[0],
                    a * p0[1] + b * p1[1] + c * p2[1] + d * p3[1]))
    return pts


def place(points, scale=1.0, dx=0.0, dy=0.0, rotate=0.0, about=(0.0, 0.0), flip_x=False):
    """Points scaled and rotated (degrees, clockwise on screen) about `about`, then moved."""
    c, s = cos_sin(rotate)
    ax, ay = about
    out = []
    for x, y in points:
        x, y = (x - ax) * scale, (y - ay) * scale
        if flip_x:
            x = -x
        out.append((ax + x * c - y * s + dx, ay + x * s + y * c + dy))
    return out


def bounds(points):
    """The bounding box (x0, y0, x1, y1) of points."""
    xs = [p[0] for p in points]
    ys = [p[1] for p in points]
    return (min(xs), min(ys), max(xs), max(ys))


# --------------------------------------------------------------------------
# shapes: a signed distance function (negative inside, normalized units) and
# a bounding box (x0, y0, x1, y1) outside which the shape has no coverage


class Shape:
    __slots__ = ("sdf", "bbox")

    def __init__(self, sdf, bbox):
        self.sdf = sdf
        self.bbox = bbox


def circle(cx, cy, r):
    sqrt = math.sqrt

    def sdf(x, y):
        dx = x - cx
        dy = y - cy
        return sqrt(dx * dx + dy * dy) - r
    return Shape(sdf, (cx - r, cy - r, cx + r, cy + r))


def ring(cx, cy, r, width):
    sqrt = math.sqrt
    half = width / 2.0

    def sdf(x, y):
        dx = x - cx
        dy = y - cy
        return abs(sqrt(dx * dx + dy * dy) - r) - half
    o = r + half
    return Shape(sdf, (cx - o, cy - o, cx + o, cy + o))


def rrect(x0, y0, x1, y1, radius=0.0):
    cx = (x0 + x1) / 2.0
    cy = (y0 + y1) / 2.0
    hx = (x1 - x0) / 2.0 - radius
    hy = (y1 - y0) / 2.0 - radius
    sqrt = math.sqrt

    def sdf(x, y):
        qx = abs(x - cx) - hx
        qy = abs(y - cy) - hy
        ox = qx if qx > 0.0 else 0.0
        oy = qy if qy > 0.0 else 0.0
        inner = qx if qx > qy else qy
        if inner > 0.0:
            inner = 0.0
        return sqrt(ox * ox + oy * oy) + inner - radius
    return Shape(sdf, (x0, y0, x1, y1))


def polygon(points, rounding=0.0):
    """A filled polygon (even-odd), grown outward by `rounding` (rounded corners)."""
    pts = [(float(x), float(y)) for x, y in points]
    n = len(pts)
    edges = []
    for i in range(n):
        ax, ay = pts[i]
        bx, by = pts[i - 1]
        ex, ey = bx - ax, by - ay
        edges.append((ax, ay, by, ex, ey, ex * ex + ey * ey))
    sqrt = math.sqrt

    def sdf(x, y):
        d = float("inf")
        s = 1.0
        for ax, ay, by, ex, ey, ee in edges:
            wx = x - ax
            wy = y - ay
            t = (wx * ex + wy * ey) / ee
            if t < 0.0:
                t = 0.0
            elif t > 1.0:
                t = 1.0
            px = wx - ex * t
            py = wy - ey * t
            q = px * px + py * py
            if q < d:
                d = q
            c1 = y >= ay
            c2 = y < by
            c3 = ex * wy > ey * wx
            if (c1 and c2 and c3) or not (c1 or c2 or c3):
                s = -s
        return s * sqrt(d) - rounding
    xs = [p[0] for p in pts]
    ys = [p[1] for p in pts]
    return Shape(sdf, (min(xs) - rounding, min(ys) - rounding,
                       max(xs) + rounding, max(ys) + rounding))


def lines(polylines, width):
    """Thick round-capped, round-joined polylines (distance-to-segment)."""
    half = width / 2.0
    segs = []
    for pl in polylines:
        pl = list(pl)
        if len(pl) == 1:
            pl = pl * 2
        for (ax, ay), (bx, by) in zip(pl, pl[1:]):
            dx, dy = bx - ax, by - ay
            l2 = dx * dx + dy * dy
            k = 1.0 / l2 if l2 > 1e-18 else 0.0
            segs.append((ax, ay, dx, dy, k))
    sqrt = math.sqrt

    def sdf(x, y):
        best = float("inf")
        for ax, ay, dx, dy, k in segs:
            px = x - ax
            py = y - ay
            t = (px * dx + py * dy) * k
            if t < 0.0:
                t = 0.0
            elif t > 1.0:
                t = 1.0
            ex = px - t * dx
            ey = py - t * dy
            q = ex * ex + ey * ey
            if q < best:
                best = q
        return sqrt(best) - half
    xs = [p[0] for pl in polylines for p in pl]
    ys = [p[1] for pl in polylines for p in pl]
    return Shape(sdf, (min(xs) - half, min(ys) - half, max(xs) + half, max(ys) + half))


def union(*shapes):
    fs = [s.sdf for s in shapes]

    def sdf(x, y):
        return min(f(x, y) for f in fs)
    return Shape(sdf, (min(s.bbox[0] for s in shapes), min(s.bbox[1] for s in shapes),
                       max(s.bbox[2] for s in shapes), max(s.bbox[3] for s in shapes)))


def subtract(a, b):
    fa, fb = a.sdf, b.sdf

    def sdf(x, y):
        da = fa(x, y)
        db = -fb(x, y)
        return da if da > db else db
    return Shape(sdf, a.bbox)


def intersect(a, b):
    fa, fb = a.sdf, b.sdf

    def sdf(x, y):
        da = fa(x, y)
        db = fb(x, y)
        return da if da > db else db
    return Shape(sdf, (max(a.bbox[0], b.bbox[0]), max(a.bbox[1], b.bbox[1]),
                       min(a.bbox[2], b.bbox[2]), min(a.bbox[3], b.bbox[3])))


def rotated(shape, angle, cx, cy, s):
    """A shape drawn about the origin, scaled by s, turned by `angle` degrees (clockwise
    on screen, as place() turns points) and placed at (cx, cy)."""
    c, sn = cos_sin(-angle)
    f = shape.sdf

    def sdf(x, y):
        u, v = (x - cx) / s, (y - cy) / s
        return f(u * c - v * sn, u * sn + v * c) * s
    x0, y0, x1, y1 = shape.bbox
    r = max(abs(x0), abs(y0), abs(x1), abs(y1)) * 1.5 * s
    return Shape(sdf, (cx - r, cy - r, cx + r, cy + r))


def grow(shape, amount):
    """The shape grown outward by `amount` (shrunk for a negative amount)."""
    f = shape.sdf
    x0, y0, x1, y1 = shape.bbox
    a = max(amount, 0.0)

    def sdf(x, y):
        return f(x, y) - amount
    return Shape(sdf, (x0 - a, y0 - a, x1 + a, y1 + a))


def outline(shape, width, inset=0.0):
    """A band of `width` along the shape's edge, its centre `inset` inside the edge."""
    f = shape.sdf
    half = width / 2.0

    def sdf(x, y):
        return abs(f(x, y) + inset) - half
    x0, y0, x1, y1 = shape.bbox
    o = max(half - inset, 0.0)
    return Shape(sdf, (x0 - o, y0 - o, x1 + o, y1 + o))


def triangle(cx, cy, r, pointing_up, rounding):
    """Equilateral triangle with circumradius r about its centre, rounded corners."""
    inner = r - 2.0 * rounding          # corner arcs of radius `rounding` stay inside r
    base = -90 if pointing_up else 90
    pts = []
    for k in range(3):
        c, s = cos_sin(base + 120 * k)
        pts.append((cx + inner * c, cy + inner * s))
    return polygon(pts, rounding)


def regular(cx, cy, r, n, start, rounding=0.0):
    """A regular n-gon with circumradius r, first vertex at angle `start` (degrees)."""
    pts = []
    for k in range(n):
        c, s = cos_sin(start + 360.0 * k / n)
        pts.append((cx + r * c, cy + r * s))
    return polygon(pts, rounding)


def diamond(cx, cy, h, rounding):
    """A square standing on a corner, corners rounded; its edges are those of the sharp
    diamond whose corners lie h from the centre."""
    k = h - rounding * 1.4142
    return polygon([(cx, cy - k), (cx + k, cy), (cx, cy + k), (cx - k, cy)], rounding)


def octagon(cx, cy, r):
    """The stop sign's octagon (flat top and bottom) with circumradius r."""
    return regular(cx, cy, r, 8, 22.5)


def ellipse(cx, cy, rx, ry, steps=48):
    return polygon(earc(cx, cy, rx, ry, 0, 360, steps)[:-1])


def arrow(points, width, head_length, head_width):
    """A shaft along `points` with a triangular head at the last point."""
    (ax, ay), (bx, by) = points[-2], points[-1]
    dx, dy = bx - ax, by - ay
    n = math.sqrt(dx * dx + dy * dy)
    dx, dy = dx / n, dy / n
    baseX, baseY = bx - dx * head_length, by - dy * head_length
    shaft = list(points[:-1]) + [(bx - dx * head_length * 0.6, by - dy * head_length * 0.6)]
    head = polygon([(bx, by),
                    (baseX - dy * head_width / 2, baseY + dx * head_width / 2),
                    (baseX + dy * head_width / 2, baseY - dx * head_width / 2)],
                   width * 0.12)
    return union(lines([shaft], width), head)


# --------------------------------------------------------------------------
# rasterising

TILE = 8          # pixels per side of a tile decided from one distance
_MARGIN = 1e-6    # pixels of safety in that decision (rounding of the tile centre)


class Canvas:
    """An RGB float canvas; shapes are placed through scale + offset (normalized)."""

    def __init__(self, size, background=WHITE):
        self.size = size
        n = size * size
        self.r = [float(background[0])] * n
        self.g = [float(background[1])] * n
        self.b = [float(background[2])] * n
        self.scale = 1.0
        self.offset = 0.0

    def fill(self, shape, color):
        size = self.size
        scale = self.scale
        off = self.offset
        to_px = size * scale                 # normalized content units -> pixels
        x0, y0, x1, y1 = shape.bbox
        i0 = max(0, int(math.floor((off + x0 * scale) * size - 1.0)))
        i1 = min(size - 1, int(math.ceil((off + x1 * scale) * size + 1.0)))
        j0 = max(0, int(math.floor((off + y0 * scale) * size - 1.0)))
        j1 = min(size - 1, int(math.ceil((off + y1 * scale) * size + 1.0)))
        if i1 < i0 or j1 < j0:
            return
        sdf = shape.sdf
        cr, cg, cb = (float(c) for c in color)
        R, G, B = self.r, self.g, self.b
        us = [((i + 0.5) / size - off) / scale for i in range(size)]
        sqrt = math.sqrt
        for tj in range(j0, j1 + 1, TILE):
            tj1 = min(tj + TILE - 1, j1)
            for ti in range(i0, i1 + 1, TILE):
                ti1 = min(ti + TILE - 1, i1)
                # every pixel centre of the tile lies within `reach` pixels of its
                # centre; the shape's distance changes no faster than that
                hx = (ti1 - ti) / 2.0
                hy = (tj1 - tj) / 2.0
                reach = sqrt(hx * hx + hy * hy) + 0.5 + _MARGIN
                u = (((ti + ti1 + 1) / 2.0) / size - off) / scale
                v = (((tj + tj1 + 1) / 2.0) / size - off) / scale
                d = sdf(u, v) * to_px
                if d >= reach:
                    continue                 # every pixel: coverage <= 0
                if d <= -reach:              # every pixel: coverage >= 1
                    n = ti1 - ti + 1
                    for j in range(tj, tj1 + 1):
                        a = j * size + ti
                        R[a:a + n] = [cr] * n
                        G[a:a + n] = [cg] * n
                        B[a:a + n] = [cb] * n
                    continue
                for j in range(tj, tj1 + 1):
                    v = ((j + 0.5) / size - off) / scale
                    row = j * size
                    for i in range(ti, ti1 + 1):
                        c = 0.5 - sdf(us[i], v) * to_px
                        if c <= 0.0:
                            continue
                        k = row + i
                        if c >= 1.0:
                            R[k] = cr
                            G[k] = cg
                            B[k] = cb
                        else:
                            m = 1.0 - c
                            R[k] = R[k] * m + cr * c
                            G[k] = G[k] * m + cg * c
                            B[k] = B[k] * m + cb * c

    def paint(self, items):
        """Fill (shape, colour) pairs in order."""
        for shape, color in items:
            self.fill(shape, color)

    def rgb(self):
        out = bytearray(self.size * self.size * 3)
        out[0::3] = bytes(int(v + 0.5) for v in self.r)
        out[1::3] = bytes(int(v + 0.5) for v in self.g)
        out[2::3] = bytes(int(v + 0.5) for v in self.b)
        return bytes(out)


# --------------------------------------------------------------------------
# PNG encoding


def _chunk(kind, payload):
    body = kind + payload
    return struct.pack(">I", len(payload)) + body + struct.pack(">I", zlib.crc32(body) & 0xFFFFFFFF)


def _minus(a, b):
    """Bytewise (a - b) mod 256 of two equal-length byte strings, as one big-integer
    subtraction with no borrow between bytes (SWAR)."""
    n = len(a)
    if n == 0:
        return b""
    x = int.from_bytes(a, "little")
    y = int.from_bytes(b, "little")
    high = int.from_bytes(b"\x80" * n, "little")
    full = (1 << (8 * n)) - 1
    z = ((x | high) - (y & (full ^ high))) ^ ((x ^ y ^ full) & high)
    return z.to_bytes(n, "little")


def _filtered(rgb, w, h, mode):
    """Whole-image filtering with one PNG filter type (0 none, 1 sub, 2 up)."""
    stride = w * 3
    if mode == 0:
        body = rgb
    elif mode == 1:
        left = bytearray(3) + rgb[:-3]
        for j in range(h):
            left[j * stride:j * stride + 3] = b"\0\0\0"
        body = _minus(rgb, bytes(left))
    else:
        body = _minus(rgb, bytes(stride) + rgb[:-stride])
    tag = bytes((mode,))
    return b"".join(tag + body[j * stride:(j + 1) * stride] for j in range(h))


def encode_png(rgb, w, h):
    best = None
    for mode in (0, 1, 2):
        z = zlib.compress(_filtered(rgb, w, h, mode), 9)
        if best is None or len(z) < len(best):
            best = z
    ihdr = struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0)  # 8-bit RGB, no interlace
    return (b"\x89PNG\r\n\x1a\n" + _chunk(b"IHDR", ihdr) + _chunk(b"IDAT", best)
            + _chunk(b"IEND", b""))
