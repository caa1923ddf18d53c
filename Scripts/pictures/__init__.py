"""Drawing code shared by the picture scripts (Scripts/render-*-pictures).

raster -- anti-aliased signed-distance shapes, the canvas that paints them,
          the deterministic PNG writer and the write / --check driver
font   -- a small stroke font in the style of the highway-sign alphabets
          (capitals, digits, k m h for "km/h", a few symbols)

Standard library only.
"""
