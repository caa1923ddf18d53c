"""The palettes of the driving pictures: signs, signals, the road from above, road users.

Every colour is 8-bit RGB.  Sign colours are the MUTCDC sheeting colours as
British Columbia posts them, as they read on screen; the lamp colours are a lit
lens against a dark housing.  A colour that only one picture uses (the
dashboard's instrument panel, the sky behind a cyclist's hand signal) stays
with that picture in its script, and the category pictograms keep their own
muted palette in Scripts/render-category-pictures.

Standard library only.
"""

# --------------------------------------------------------------------------
# sign faces (retroreflective sheeting as it reads on screen)

WHITE = (0xFF, 0xFF, 0xFF)
BLACK = (0x17, 0x17, 0x17)          # legends, borders and symbols; outlines in the diagrams
RED = (0xC8, 0x10, 0x2E)            # stop, yield, prohibition
YELLOW = (0xFF, 0xC8, 0x00)         # warning signs
FYG = (0xC4, 0xE5, 0x00)            # fluorescent yellow-green (school, playground)
ORANGE = (0xF5, 0x7C, 0x1F)         # temporary conditions (construction)
GREEN = (0x00, 0x6F, 0x47)          # guide signs
PERMIT = (0x00, 0x8C, 0x4A)         # the green "permitted" circle
BLUE = (0x00, 0x52, 0xA0)           # service signs
EDGE = (0xC4, 0xC9, 0xD1)           # the sign's metal edge against the white page

# --------------------------------------------------------------------------
# signal heads, close up

HOUSING = (0x2A, 0x2E, 0x35)
BACKPLATE = (0x12, 0x14, 0x18)
REFLECT = (0xFF, 0xC8, 0x00)        # yellow retroreflective border of the backplate
LENS = (0x08, 0x09, 0x0B)
LIT = {"red": (0xFF, 0x30, 0x24), "yellow": (0xFF, 0xB4, 0x00), "green": (0x10, 0xDC, 0x8E),
       "white": (0xF6, 0xF6, 0xEE), "orange": (0xFF, 0x84, 0x10)}
DIM = {"red": (0x4E, 0x1C, 0x1C), "yellow": (0x4E, 0x3E, 0x16), "green": (0x17, 0x40, 0x33),
       "white": (0x38, 0x3A, 0x3E), "orange": (0x4A, 0x2E, 0x18)}
GLOW = {"red": (0xE8, 0x1C, 0x1C), "yellow": (0xF0, 0x9C, 0x00), "green": (0x00, 0xB0, 0x70),
        "white": (0x8A, 0x93, 0xA0), "orange": (0xF0, 0x78, 0x00)}
# signal heads as the scenario diagrams show them (lit lamps are LIT)
SIGNAL_BOX = (0x16, 0x18, 0x1C)
SIGNAL_DIM = (0x3A, 0x3D, 0x42)

# --------------------------------------------------------------------------
# the road from above

GRASS = (0x86, 0xA8, 0x62)
ASPHALT = (0x55, 0x5A, 0x62)
SIDEWALK = (0xC9, 0xCC, 0xD0)
CURB = (0xE6, 0xE8, 0xEA)
MEDIAN = (0x9A, 0x9E, 0xA4)
GRAVEL = (0xB8, 0xA6, 0x80)
PAINT_WHITE = (0xF4, 0xF4, 0xF0)
PAINT_YELLOW = (0xF6, 0xC3, 0x00)
HYDRANT = (0xD2, 0x1F, 0x1F)
POST = (0x3A, 0x3A, 0x3A)

# --------------------------------------------------------------------------
# road users

# the cars of the marking pictures
CAR_BLUE = (0x2F, 0x6F, 0xB3)
CAR_RED = (0xC4, 0x3B, 0x3B)
CAR_TEAL = (0x2E, 0x9E, 0x8C)
# the scenario diagrams: the cars a question names by letter, and the others
CAR = {"A": (0x1F, 0x5F, 0xB8), "B": (0xC4, 0x2B, 0x2B), "C": (0x1E, 0x8C, 0x6E)}
OTHER = (0xA7, 0xAD, 0xB5)          # cars that play no part in the question: plain grey
GLASS = (0x2A, 0x33, 0x40)
TIRE = (0x1C, 0x1E, 0x22)
TRAILER = (0xEE, 0xEF, 0xF1)
CAB = (0x3B, 0x4B, 0x6B)
TRANSIT = (0xF2, 0xF2, 0xF2)
TRANSIT_STRIPE = (0x00, 0x5A, 0xA8)
SCHOOL_YELLOW = (0xF7, 0xB5, 0x00)
RIDER = (0xF0, 0x7A, 0x1A)          # cyclists in a bright orange jacket
WALKER = (0x6A, 0x3F, 0xA0)         # pedestrians in purple
AMBER = (0xFF, 0xA5, 0x00)          # turn signals
LAMP_RED = (0xFF, 0x26, 0x1A)       # flashing lamps: emergency vehicles, school buses, railway crossings
LAMP_BLUE = (0x1E, 0x6B, 0xFF)

# --------------------------------------------------------------------------
# the marks of the scenario diagrams


def tint(base, color, amount):
    """`color` laid over `base` at `amount` opacity, as one opaque colour (the canvas
    paints opaque colours; a shaded area is painted over bare asphalt or grass)."""
    return tuple(int(round(b * (1.0 - amount) + c * amount)) for b, c in zip(base, color))


PATH = WHITE                        # arrows for paths, white with a dark edge
PATH_EDGE = (0x22, 0x25, 0x2A)
BLIND = (0xFF, 0x8A, 0x00)          # blind spots: orange
MARGIN = (0x3C, 0xD0, 0x70)         # space margins and escape routes: green
BLIND_ON_ROAD = tint(ASPHALT, BLIND, 0.45)
MARGIN_ON_ROAD = tint(ASPHALT, MARGIN, 0.4)
DANGER_ON_ROAD = tint(ASPHALT, (0xFF, 0x30, 0x30), 0.35)
