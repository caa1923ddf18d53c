"""Drawing code shared by the picture scripts (Scripts/render-*-pictures).

raster -- anti-aliased signed-distance shapes, the canvas that paints them
          and the deterministic PNG writer
colors -- the palettes: sign faces, signal heads, the road from above, road users
driver -- the command line: render every picture at every size in worker
          processes, write the PNGs that changed or --check them
font   -- a small stroke font in the style of the highway-sign alphabets
          (capitals, digits, k m h for "km/h", a few symbols)

Standard library only.
"""
