"""Road users: cars, trucks, buses, emergency vehicles, motorcycles, cyclists, pedestrians.

Two styles, for two kinds of picture:

- pictograms, the one-colour figures of sign faces, signal lenses and pavement
  markings (person, bicycle; cars, trucks and buses from the side, the rear or
  above), each about 1 unit tall or wide, placed by centre and scale s, black
  unless told;
- the road users of the scenario diagrams, seen from above, in colour, placed
  by centre and heading in degrees (0 drives up the picture, 90 to the right,
  180 down, 270 to the left): the cars a question names carry their letter
  (A blue, B red, C green), the others are plain grey; cyclists and
  pedestrians carry a lettered tag beside them.

Standard library only.
"""

from .colors import (
    AMBER, BLACK, CAB, CAR, GLASS, LAMP_BLUE, LAMP_RED, OTHER, PAINT_WHITE, RED, RIDER,
    SCHOOL_YELLOW, TRAILER, TRANSIT, TRANSIT_STRIPE, WALKER, WHITE, YELLOW)
from .marks import flashing, letter, tag
from .raster import bounds, circle, cos_sin, grow, lines, outline, place, polygon, ring, rrect, union


# --------------------------------------------------------------------------
# pictograms (unit figures placed by centre and scale; black unless told)


def person(cx, cy, s, color=BLACK, facing=1, pose="walk"):
    """A pictogram figure about 1 unit tall (head top -0.5, feet +0.5), facing right (1) or left (-1),
    walking, running or standing (`pose`)."""
    def P(pts):
        return place(pts, s, cx, cy, flip_x=facing < 0)
    if pose == "walk":
        head = (0.04, -0.41, 0.085)
        torso = [(0.01, -0.29), (-0.03, 0.03)]
        limbs = [[(0.0, -0.25), (0.12, -0.12), (0.19, 0.0)], [(0.0, -0.25), (-0.11, -0.13), (-0.18, -0.03)],
                 [(-0.03, 0.03), (0.08, 0.24), (0.15, 0.47)], [(-0.03, 0.03), (-0.1, 0.25), (-0.21, 0.44)]]
    elif pose == "run":
        head = (0.1, -0.4, 0.085)
        torso = [(0.06, -0.28), (-0.04, 0.02)]
        limbs = [[(0.05, -0.24), (0.18, -0.17), (0.27, -0.25)], [(0.05, -0.24), (-0.09, -0.14), (-0.2, -0.19)],
                 [(-0.04, 0.02), (0.15, 0.16), (0.22, 0.38)], [(-0.04, 0.02), (-0.12, 0.24), (-0.3, 0.3)]]
    elif pose == "stand":
        head = (0.0, -0.41, 0.085)
        torso = [(0.0, -0.29), (0.0, 0.02)]
        limbs = [[(0.0, -0.25), (-0.13, -0.1), (-0.15, 0.04)], [(0.0, 0.02), (-0.08, 0.47)],
                 [(0.0, 0.02), (0.08, 0.47)]]
    else:
        raise ValueError(pose)
    hx, hy, hr = head
    w = 0.1 * s
    return [(circle(*P([(hx, hy)])[0], hr * s), color),
            (lines([P(torso)], w * 1.45), color),
            (lines([P(limb) for limb in limbs], w), color)]


def bicycle(cx, cy, s, color=BLACK, rider=False):
    """A bicycle about 1 unit wide, facing right; with `rider`, the cyclist on it."""
    w = 0.065 * s
    rw, fw = (cx - 0.3 * s, cy + 0.15 * s), (cx + 0.3 * s, cy + 0.15 * s)
    bb = (cx - 0.02 * s, cy + 0.15 * s)
    seat = (cx - 0.1 * s, cy - 0.13 * s)
    head = (cx + 0.2 * s, cy - 0.13 * s)
    items = [(ring(rw[0], rw[1], 0.2 * s, w), color), (ring(fw[0], fw[1], 0.2 * s, w), color),
             (lines([[rw, bb, seat, rw], [seat, head, bb], [head, fw],
                     [head, (head[0] - 0.03 * s, head[1] - 0.1 * s), (head[0] + 0.07 * s, head[1] - 0.11 * s)],
                     [(seat[0] - 0.07 * s, seat[1] - 0.03 * s), (seat[0] + 0.05 * s, seat[1] - 0.03 * s)]], w),
              color)]
    if rider:
        hip = (seat[0] + 0.0 * s, seat[1] - 0.08 * s)
        shoulder = (cx + 0.08 * s, cy - 0.42 * s)
        items += [(circle(cx + 0.16 * s, cy - 0.56 * s, 0.075 * s), color),
                  (lines([[hip, shoulder]], w * 1.5), color),
                  (lines([[shoulder, (head[0] + 0.04 * s, head[1] - 0.12 * s)],
                          [hip, (bb[0] + 0.08 * s, bb[1] - 0.2 * s), bb]], w * 1.1), color)]
    return items


def car_top(cx, cy, s, color, heading=0, glass=(0xDD, 0xE6, 0xEE), tires=(0x22, 0x24, 0x28)):
    """A car seen from above, about 1 unit long, nose up (heading 0) or down (180)."""
    def p(x, y):
        return place([(x, y)], s, cx, cy, heading)[0]

    def box(x0, y0, x1, y1):
        return bounds([p(x0, y0), p(x1, y1)])
    wheels = [rrect(*box(sx * 0.2, y - 0.09, sx * 0.27, y + 0.09), 0.025 * s)
              for sx in (-1, 1) for y in (-0.3, 0.3)]
    return [(union(*wheels), tires),
            (rrect(*box(-0.235, -0.5, 0.235, 0.5), 0.12 * s), color),
            (polygon([p(-0.19, -0.1), p(-0.16, -0.25), p(0.16, -0.25), p(0.19, -0.1)], 0.02 * s), glass),
            (polygon([p(-0.17, 0.36), p(-0.19, 0.24), p(0.19, 0.24), p(0.17, 0.36)], 0.02 * s), glass)]


def car_rear(cx, cy, s, color=BLACK, bg=YELLOW):
    """A car seen from behind, about 1 unit wide."""
    return [(polygon(place([(-0.3, -0.05), (-0.2, -0.36), (0.2, -0.36), (0.3, -0.05)], s, cx, cy), 0.04 * s), color),
            (rrect(cx - 0.46 * s, cy - 0.12 * s, cx + 0.46 * s, cy + 0.2 * s, 0.07 * s), color),
            (rrect(cx - 0.42 * s, cy + 0.12 * s, cx - 0.24 * s, cy + 0.34 * s, 0.04 * s), color),
            (rrect(cx + 0.24 * s, cy + 0.12 * s, cx + 0.42 * s, cy + 0.34 * s, 0.04 * s), color),
            (polygon(place([(-0.22, -0.09), (-0.15, -0.29), (0.15, -0.29), (0.22, -0.09)], s, cx, cy), 0.01 * s), bg),
            (rrect(cx - 0.38 * s, cy - 0.02 * s, cx - 0.24 * s, cy + 0.07 * s, 0.02 * s), bg),
            (rrect(cx + 0.24 * s, cy - 0.02 * s, cx + 0.38 * s, cy + 0.07 * s, 0.02 * s), bg)]


def car_side(cx, cy, s, color=BLACK, bg=YELLOW, facing=1):
    """A car seen from the side, about 1 unit long, facing right (1) or left (-1); windows
    and wheel rims in the sign's colour `bg`."""
    def P(pts):
        return place(pts, s, cx, cy, flip_x=facing < 0)
    body = union(rrect(cx - 0.5 * s, cy - 0.08 * s, cx + 0.5 * s, cy + 0.16 * s, 0.07 * s),
                 polygon(P([(-0.3, -0.06), (-0.2, -0.3), (0.16, -0.3), (0.32, -0.06)]), 0.03 * s))
    items = [(body, color)]
    items += [(polygon(P([(-0.22, -0.08), (-0.16, -0.24), (-0.04, -0.24), (-0.04, -0.08)]), 0.01 * s), bg),
              (polygon(P([(0.01, -0.08), (0.01, -0.24), (0.13, -0.24), (0.24, -0.08)]), 0.01 * s), bg)]
    for x in (-0.27, 0.27):
        items += [(circle(cx + x * s, cy + 0.17 * s, 0.14 * s), bg), (circle(cx + x * s, cy + 0.17 * s, 0.1 * s), color)]
    return items


def truck_side(cx, cy, s, color=BLACK, bg=YELLOW, facing=1):
    """A box truck seen from the side, about 1 unit long, facing right (1) or left (-1)."""
    def P(pts):
        return place(pts, s, cx, cy, flip_x=facing < 0)
    items = [(rrect(*bounds(P([(-0.5, -0.3), (0.12, 0.12)])), 0.02 * s), color),
             (polygon(P([(0.16, 0.12), (0.16, -0.2), (0.36, -0.2), (0.5, -0.02), (0.5, 0.12)]), 0.02 * s), color),
             (polygon(P([(0.22, -0.14), (0.34, -0.14), (0.43, -0.03), (0.22, -0.03)]), 0.01 * s), bg)]
    for x in (-0.36, -0.16, 0.33):
        items += [(circle(*P([(x, 0.16)])[0], 0.12 * s), bg),
                  (circle(*P([(x, 0.16)])[0], 0.085 * s), color)]
    return items


def bus_side(cx, cy, s, color=BLACK, bg=YELLOW, facing=1, windows=6):
    """A bus seen from the side, about 1 unit long, facing right (1) or left (-1)."""
    def P(pts):
        return place(pts, s, cx, cy, flip_x=facing < 0)
    items = [(polygon(P([(-0.5, -0.24), (0.38, -0.24), (0.5, -0.05), (0.5, 0.16), (-0.5, 0.16)]), 0.03 * s), color)]
    x = -0.44
    step = 0.78 / windows
    for k in range(windows):
        items.append((rrect(*bounds(P([(x, -0.17), (x + step * 0.7, -0.04)])), 0.01 * s), bg))
        x += step
    items.append((polygon(P([(0.38, -0.17), (0.46, -0.04), (0.38, -0.04)]), 0.005 * s), bg))
    for x in (-0.3, 0.3):
        items += [(circle(*P([(x, 0.17)])[0], 0.12 * s), bg),
                  (circle(*P([(x, 0.17)])[0], 0.085 * s), color)]
    return items


def bus_rear(cx, cy, s):
    """The back of a transit bus, about 1 unit wide (white body, dark window, lights)."""
    body = (0xE9, 0xEC, 0xF0)
    return [(rrect(cx - 0.5 * s, cy - 0.62 * s, cx + 0.5 * s, cy + 0.62 * s, 0.08 * s), (0x9A, 0xA2, 0xAD)),
            (rrect(cx - 0.47 * s, cy - 0.59 * s, cx + 0.47 * s, cy + 0.56 * s, 0.06 * s), body),
            (rrect(cx - 0.4 * s, cy - 0.55 * s, cx + 0.4 * s, cy - 0.38 * s, 0.04 * s), (0x2C, 0x33, 0x3D)),
            (rrect(cx - 0.44 * s, cy + 0.3 * s, cx - 0.32 * s, cy + 0.44 * s, 0.02 * s), RED),
            (rrect(cx + 0.32 * s, cy + 0.3 * s, cx + 0.44 * s, cy + 0.44 * s, 0.02 * s), RED),
            (rrect(cx - 0.44 * s, cy + 0.17 * s, cx - 0.32 * s, cy + 0.28 * s, 0.02 * s), (0xF5, 0x9E, 0x0B)),
            (rrect(cx + 0.32 * s, cy + 0.17 * s, cx + 0.44 * s, cy + 0.28 * s, 0.02 * s), (0xF5, 0x9E, 0x0B)),
            (rrect(cx - 0.48 * s, cy + 0.56 * s, cx + 0.48 * s, cy + 0.64 * s, 0.02 * s), (0x2C, 0x33, 0x3D))]


# --------------------------------------------------------------------------
# the scenario diagrams' road users, from above


CAR_L, CAR_W = 0.15, 0.078                  # a car's length and width


def _body(cx, cy, heading, length, width, r):
    """A vehicle's body: a rounded rectangle turned to `heading`."""
    hx, hy = width / 2 - r, length / 2 - r
    return polygon(place([(-hx, -hy), (hx, -hy), (hx, hy), (-hx, hy)], 1.0, cx, cy, heading), r)


def _poly(cx, cy, heading, pts, r=0.0):
    """A polygon given in the vehicle's own frame (nose up), turned to `heading`."""
    return polygon(place(pts, 1.0, cx, cy, heading), r)


def car(cx, cy, heading=0, label=None, color=None, length=CAR_L, width=CAR_W):
    """A car from above: body, dark windshield and rear window, and its letter on the roof."""
    color = color or (CAR[label] if label else OTHER)
    L, W = length, width
    items = [(grow(_body(cx, cy, heading, L, W, 0.02), 0.004), BLACK), (_body(cx, cy, heading, L, W, 0.02), color)]
    items.append((_poly(cx, cy, heading, [(-W * 0.4, -L * 0.2), (-W * 0.33, -L * 0.34), (W * 0.33, -L * 0.34),
                                          (W * 0.4, -L * 0.2)], 0.004), GLASS))
    items.append((_poly(cx, cy, heading, [(-W * 0.36, L * 0.31), (-W * 0.4, L * 0.23), (W * 0.4, L * 0.23),
                                          (W * 0.36, L * 0.31)], 0.004), GLASS))
    if label:
        items += letter(label, cx, cy, min(W, L) * 0.62)
    return items


def blinker(cx, cy, heading, side, length=CAR_L, width=CAR_W):
    """A flashing turn signal: amber lamps at the front and rear corner on `side` (-1 left, 1 right),
    with short rays."""
    items = []
    for fy in (-1, 1):
        x, y = place([(side * width * 0.42, fy * length * 0.45)], 1.0, cx, cy, heading)[0]
        items.append((circle(x, y, 0.012), AMBER))
        rays = []
        for a in (-40, 0, 40):
            # rays point outward from the corner
            base = place([(side * 1.0, fy * 1.0)], 1.0, 0, 0, heading)[0]
            bx, by = base
            n = (bx * bx + by * by) ** 0.5
            c, s = cos_sin(a)
            dx, dy = (bx * c - by * s) / n, (bx * s + by * c) / n
            rays.append([(x + dx * 0.02, y + dy * 0.02), (x + dx * 0.034, y + dy * 0.034)])
        items.append((lines(rays, 0.006), AMBER))
    return items


def truck(cx, cy, heading=0, label=None, length=0.36, width=0.1):
    """A tractor-trailer from above: the long white trailer and the cab at the front."""
    cab_l = 0.085
    trailer = _body(cx, cy, heading, length, width, 0.008)
    ccx, ccy = place([(0.0, -length / 2 + cab_l / 2)], 1.0, cx, cy, heading)[0]
    tcx, tcy = place([(0.0, cab_l / 2 + 0.008)], 1.0, cx, cy, heading)[0]
    items = [(grow(trailer, 0.004), BLACK)]
    items.append((_body(tcx, tcy, heading, length - cab_l - 0.016, width, 0.008), TRAILER))
    items.append((_body(ccx, ccy, heading, cab_l, width * 0.94, 0.016), CAB))
    items.append((_poly(ccx, ccy, heading, [(-width * 0.38, -cab_l * 0.12), (-width * 0.32, -cab_l * 0.34),
                                            (width * 0.32, -cab_l * 0.34), (width * 0.38, -cab_l * 0.12)], 0.004), GLASS))
    # side mirrors on the cab
    for sx in (-1, 1):
        x, y = place([(sx * (width / 2 + 0.012), -length / 2 + cab_l * 0.35)], 1.0, cx, cy, heading)[0]
        items.append((circle(x, y, 0.009), BLACK))
    if label:
        items += letter(label, tcx, tcy, 0.055, BLACK)
    return items


def bus(cx, cy, heading=0, label=None, school=False, length=0.3, width=0.095):
    body = _body(cx, cy, heading, length, width, 0.014)
    color = SCHOOL_YELLOW if school else TRANSIT
    items = [(grow(body, 0.004), BLACK), (body, color)]
    if not school:
        # a blue stripe along each side of the roof
        for sx in (-1, 1):
            items.append((_poly(cx, cy, heading, [(sx * width * 0.38, -length * 0.44), (sx * width * 0.3, -length * 0.44),
                                                  (sx * width * 0.3, length * 0.44), (sx * width * 0.38, length * 0.44)]),
                          TRANSIT_STRIPE))
    items.append((_poly(cx, cy, heading, [(-width * 0.4, -length * 0.4), (-width * 0.36, -length * 0.47),
                                          (width * 0.36, -length * 0.47), (width * 0.4, -length * 0.4)], 0.003), GLASS))
    if label:
        items += letter(label, cx, cy, 0.055, BLACK)
    return items


def emergency(cx, cy, heading=0):
    """An ambulance from above: a white van with a red and blue light bar, flashing."""
    L, W = 0.18, 0.088
    body = _body(cx, cy, heading, L, W, 0.014)
    items = [(grow(body, 0.004), BLACK), (body, WHITE)]
    items.append((_poly(cx, cy, heading, [(-W * 0.4, -L * 0.26), (-W * 0.34, -L * 0.38), (W * 0.34, -L * 0.38),
                                          (W * 0.4, -L * 0.26)], 0.004), GLASS))
    # a red cross on the roof
    items.append((_poly(cx, cy, heading, [(-0.006, 0.0), (0.006, 0.0), (0.006, 0.05), (-0.006, 0.05)]), RED))
    items.append((_poly(cx, cy, heading, [(-0.025, 0.019), (0.025, 0.019), (0.025, 0.031), (-0.025, 0.031)]), RED))
    lamps = place([(-W * 0.3, -L * 0.2), (W * 0.3, -L * 0.2)], 1.0, cx, cy, heading)
    items += flashing([lamps[0]], LAMP_RED, 0.011) + flashing([lamps[1]], LAMP_BLUE, 0.011)
    return items


def police(cx, cy, heading=0):
    """A police car from above: dark body with a white roof and a red and blue light bar, flashing."""
    items = car(cx, cy, heading, color=(0x1A, 0x1F, 0x2C))
    items.append((_poly(cx, cy, heading, [(-CAR_W * 0.32, -CAR_L * 0.12), (CAR_W * 0.32, -CAR_L * 0.12),
                                          (CAR_W * 0.32, CAR_L * 0.16), (-CAR_W * 0.32, CAR_L * 0.16)], 0.006), WHITE))
    lamps = place([(-CAR_W * 0.26, -CAR_L * 0.05), (CAR_W * 0.26, -CAR_L * 0.05)], 1.0, cx, cy, heading)
    return items + flashing([lamps[0]], LAMP_RED, 0.01) + flashing([lamps[1]], LAMP_BLUE, 0.01)


def motorcycle(cx, cy, heading=0, label=None, label_at=None):
    """A motorcycle from above: the bike in line, handlebars, the rider's dark jacket and white helmet."""
    k = 0.05
    items = [(lines([place([(0.0, -k), (0.0, k)], 1.0, cx, cy, heading)], 0.02), BLACK)]
    items.append((lines([place([(-0.03, -k * 0.5), (0.03, -k * 0.5)], 1.0, cx, cy, heading)], 0.009), BLACK))
    sh = place([(-0.02, 0.005), (0.02, 0.005)], 1.0, cx, cy, heading)
    items.append((lines([sh], 0.022), (0x2E, 0x2E, 0x2E)))
    hx, hy = place([(0.0, -0.004)], 1.0, cx, cy, heading)[0]
    items.append((circle(hx, hy, 0.016), (0xE8, 0xE8, 0xE8)))
    if label:
        items += tag(label, *(label_at or (cx + 0.055, cy)))
    return items


def cyclist(cx, cy, heading=0, label=None, label_at=None, s=1.4):
    """A cyclist from above: wheels and frame in line, handlebars, the rider's shoulders and helmet."""
    k = 0.05 * s
    items = [(lines([place([(0.0, -k), (0.0, k)], 1.0, cx, cy, heading)], 0.012 * s), BLACK)]
    items.append((lines([place([(-0.024 * s, -k * 0.55), (0.024 * s, -k * 0.55)], 1.0, cx, cy, heading)], 0.008 * s), BLACK))
    sh = place([(-0.022 * s, 0.0), (0.022 * s, 0.0)], 1.0, cx, cy, heading)
    items.append((lines([sh], 0.02 * s), RIDER))
    hx, hy = place([(0.0, -0.004 * s)], 1.0, cx, cy, heading)[0]
    items.append((circle(hx, hy, 0.013 * s), (0xFF, 0xE0, 0x40)))
    if label:
        items += tag(label, *(label_at or (cx + 0.055, cy)))
    return items


def pedestrian(cx, cy, facing=1, label=None, label_at=None, s=0.07):
    """A walking figure (the pictogram of the crosswalk signs) on a light disc, so it reads on
    asphalt at any size; faces right (1) or left (-1)."""
    flip = facing < 0

    def P(pts):
        return place(pts, s, cx, cy, flip_x=flip)
    items = [(circle(cx, cy, s * 0.62), WHITE), (outline(circle(cx, cy, s * 0.62), 0.004), WALKER)]
    items.append((circle(*P([(0.04, -0.36)])[0], 0.075 * s), WALKER))
    w = 0.09 * s
    items.append((lines([P([(0.01, -0.26), (-0.02, 0.02)])], w * 1.4), WALKER))
    items.append((lines([P([(0.0, -0.22), (0.11, -0.1), (0.17, 0.0)]), P([(0.0, -0.22), (-0.1, -0.11), (-0.16, -0.02)]),
                         P([(-0.02, 0.02), (0.07, 0.21), (0.13, 0.4)]), P([(-0.02, 0.02), (-0.09, 0.22), (-0.19, 0.38)])],
                        w), WALKER))
    if label:
        items += tag(label, *(label_at or (cx + s, cy - s * 0.6)))
    return items


def heads(cx, cy, n, length=CAR_L, width=CAR_W):
    """People aboard a car heading up: light discs on the front (and rear) seats."""
    spots = [(-width * 0.2, -length * 0.05), (width * 0.2, -length * 0.05),
             (-width * 0.2, length * 0.15), (width * 0.2, length * 0.15)]
    items = []
    for x, y in spots[:n]:
        items += [(circle(cx + x, cy + y, 0.013), BLACK), (circle(cx + x, cy + y, 0.0095), (0xF3, 0xD2, 0xB0))]
    return items


def ghost(cx, cy, heading=0, length=CAR_L, width=CAR_W):
    """A position a car could take: its outline in white."""
    body = _body(cx, cy, heading, length, width, 0.02)
    return [(outline(body, 0.007), PAINT_WHITE)]
