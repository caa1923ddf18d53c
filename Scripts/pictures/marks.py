"""The marks a scenario diagram lays over the scene: letters, numbers, paths, lamps that flash.

A diagram has no words in it, only the letters A to C and numbers, so that one
picture serves every language: a car carries its letter on the roof (see
road_users.car), a cyclist or a pedestrian a letter in a white disc (tag), a
place or a path a white numeral on a black disc (number, at).  Paths are
white arrows with a dark edge, so they read on asphalt and grass alike.

Standard library only.
"""

from .colors import BLACK, PATH, PATH_EDGE, WHITE
from .font import label
from .raster import arrow, circle, cos_sin, cubic, grow, lines, rrect
from .road import clip


# --------------------------------------------------------------------------
# letters and numbers


def letter(ch, x, y, h=0.05, color=WHITE):
    """A letter or number in the diagrams' bold weight, centred on (x, y)."""
    return label(ch, x, y, h, color, weight=0.2)


def tag(ch, x, y, r=0.03):
    """A letter in a white disc: labels a cyclist or a pedestrian."""
    return [(circle(x, y, r + 0.004), BLACK), (circle(x, y, r), WHITE)] + letter(ch, x, y, r * 1.15, BLACK)


def number(n, x, y, r=0.032):
    """A numbered position or path: a white numeral on a black disc."""
    return [(circle(x, y, r + 0.004), WHITE), (circle(x, y, r), BLACK)] + letter(str(n), x, y, r * 1.1, WHITE)


def at(n, x, y, r=0.03):
    """A numbered place on the road (where a car's front would stop)."""
    return number(n, x, y, r)


# --------------------------------------------------------------------------
# paths, shaded areas and flashing lamps


def path(points, width=0.02):
    """A path arrow: white with a dark edge, so it reads on asphalt and grass alike."""
    shape = arrow(points, width, width * 2.4, width * 3.0)
    return [(grow(shape, 0.006), PATH_EDGE), (shape, PATH)]


def curve(p0, p1, p2, p3, steps=14):
    """Points along a cubic Bezier curve, for the bends of a path."""
    return cubic(p0, p1, p2, p3, steps)


def zone_rect(x0, y0, x1, y1, color, r=0.012):
    """A shaded area (a blind spot, a space margin), painted in a colour tinted over the road."""
    return [(clip(rrect(x0, y0, x1, y1, r)), color)]


def flashing(points, color, r=0.013):
    """Lamps that flash: a bright dot with short rays all round."""
    items = []
    for x, y in points:
        items.append((circle(x, y, r + 0.004), WHITE))
        items.append((circle(x, y, r), color))
        rays = []
        for k in range(8):
            c, s = cos_sin(22.5 + 45 * k)
            rays.append([(x + c * (r + 0.008), y + s * (r + 0.008)), (x + c * (r + 0.02), y + s * (r + 0.02))])
        items.append((lines(rays, 0.005), color))
    return items
