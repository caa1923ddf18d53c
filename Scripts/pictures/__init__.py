"""Drawing code shared by the picture scripts: Scripts/render-category-pictures,
Scripts/render-road-pictures and Scripts/render-scenarios.

Each module draws one kind of thing; a script holds only its catalog of
pictures, the drawing of each, and its command line.  From the bottom up:

colors     -- the palettes: sign faces, signal heads, the road from above,
              road users, the diagrams' shading
raster     -- anti-aliased signed-distance shapes, the canvas that paints them
              and the deterministic PNG writer
font       -- a small stroke font in the style of the highway-sign alphabets
              (capitals, digits, k m h for "km/h", a few symbols), and label()
              to paint it
road       -- the road from above: grass, paving, lane lines, crosswalks,
              lane arrows, whole crossings, a roundabout, a railway track
marks      -- what a scenario diagram writes on the scene: letters, numbered
              discs, path arrows, shaded areas, flashing lamps
road_users -- people, bicycles and vehicles: one-colour pictograms for signs
              and lenses, and the lettered road users of the diagrams
signs      -- sign blanks, borders, legends and shared sign symbols, and the
              small no-word signs of the diagrams
signals    -- lamps and signal heads close up, and the diagrams' heads on
              their mast arms
driver     -- the command line: render every picture at every size in worker
              processes, write the PNGs that changed or --check them

Standard library only.
"""
