"""Render an lbm density field (ompref --vtk-every output) with ParaView.

Usage: pvpython scripts/render_lbm_paraview.py IN.vti|IN.pvd OUT.png [--iso RHO] [--step N]
Headless: xvfb-run -a -s "-noreset -screen 0 1280x1024x24" pvpython ...
(-noreset: ParaView opens and closes a probe connection first, and an Xvfb
that resets when its last client leaves then intermittently refuses the real
window: "bad X server connection".) pvbatch runs it too.

Shows the liquid as a translucent density isosurface over a density slice
through the z plane holding the most liquid, the solid walls and the domain
outline. For a .pvd the last step is drawn unless --step is given.
"""
import argparse
import math
import re

from paraview.simple import (Contour, CreateView, GetActiveCamera, GetColorTransferFunction,
                             GetScalarBar, OpenDataFile, SaveScreenshot, Show, Slice, Text,
                             Threshold, servermanager)

p = argparse.ArgumentParser()
p.add_argument("data")
p.add_argument("png")
# Midway between the settled liquid (2.649) and gas (0.0733) densities of the
# default G = -6, i.e. the middle of the diffuse interface.
p.add_argument("--iso", type=float, default=1.36)
p.add_argument("--step", type=float, default=None)
p.add_argument("--size", default="1200x800")
a = p.parse_args()
w, h = (int(v) for v in a.size.split("x"))

reader = OpenDataFile(a.data)
if reader is None:
    raise SystemExit(f"ParaView cannot open {a.data}")
reader.UpdatePipelineInformation()
times = list(getattr(reader, "TimestepValues", None) or [])
t = a.step if a.step is not None else (times[-1] if times else 0.0)
reader.UpdatePipeline(t)

# The droplets sit off-centre, so a fixed mid-plane slice can miss them: cut
# at the z plane holding the most liquid instead, found from the data itself.
img = servermanager.Fetch(reader)
nx, ny, nz = img.GetDimensions()
rho = img.GetPointData().GetArray("density")
best_z, best_n = nz // 2, -1
for z in range(nz):
    base = z * nx * ny
    n = sum(1 for i in range(base, base + nx * ny) if rho.GetValue(i) > a.iso)
    if n > best_n:
        best_z, best_n = z, n

view = CreateView("RenderView")
view.ViewSize = [w, h]
view.ViewTime = t
view.OrientationAxesVisibility = 1
# 5.10+ takes the background from the palette unless told otherwise.
if hasattr(view, "UseColorPaletteForBackground"):
    view.UseColorPaletteForBackground = 0
view.Background = [1.0, 1.0, 1.0]

outline = Show(reader, view)
outline.SetRepresentationType("Outline")
outline.ColorArrayName = ["POINTS", ""]
outline.AmbientColor = outline.DiffuseColor = [0.2, 0.2, 0.2]

# Solid cells are the walls at y = 0 and ny-1 (cases drops, flat; gravity
# pulls towards y = 0); drawn faintly so the camera, which looks down, sees through the top one.
walls = Threshold(Input=reader)
walls.Scalars = ["POINTS", "solid"]
# The walls are one point layer thick: keep cells touching a solid point.
walls.AllScalars = 0
if hasattr(walls, "LowerThreshold"):
    walls.LowerThreshold, walls.UpperThreshold = 0.5, 1.5
else:
    walls.ThresholdRange = [0.5, 1.5]
wd = Show(walls, view)
wd.ColorArrayName = ["POINTS", ""]
wd.AmbientColor = wd.DiffuseColor = [0.6, 0.6, 0.6]
wd.Opacity = 0.25

sl = Slice(Input=reader)
sl.SliceType = "Plane"
sl.SliceType.Origin = [0.5 * (nx - 1), 0.5 * (ny - 1), best_z]
sl.SliceType.Normal = [0.0, 0.0, 1.0]
sd = Show(sl, view)
sd.ColorArrayName = ["POINTS", "density"]
lut = GetColorTransferFunction("density")
lut.ApplyPreset("Cool to Warm", True)
# Fixed range (gas to liquid) so images of different steps compare.
lut.RescaleTransferFunction(0.0, 2.7)
sd.LookupTable = lut
sd.Opacity = 0.55
bar = GetScalarBar(lut, view)
bar.Title = "density"
bar.ComponentTitle = ""
bar.RangeLabelFormat = "%.1f"
bar.TitleColor = bar.LabelColor = [0.1, 0.1, 0.1]
sd.SetScalarBarVisibility(view, True)

iso = Contour(Input=reader)
iso.ContourBy = ["POINTS", "density"]
iso.Isosurfaces = [a.iso]
iso.ComputeNormals = 1
idisp = Show(iso, view)
# On the isosurface rho is constant, hence so is p(rho): pressure would paint
# it one colour. Plain and translucent instead, so the slice's liquid core
# shows through the surface.
idisp.ColorArrayName = ["POINTS", ""]
idisp.AmbientColor = idisp.DiffuseColor = [0.55, 0.75, 0.95]
idisp.Specular = 0.5
idisp.Opacity = 0.4

name = a.data.rsplit("/", 1)[-1]
# A lone .vti carries no time; ompref puts the step in its name.
m = re.search(r"_(\d+)\.vti$", name)
if not times and m:
    t = float(m.group(1))
has_walls = img.GetPointData().GetArray("solid").GetRange()[1] > 0.5
label = Text(Text=f"lbm {name}  step {t:g}\nisosurface density = {a.iso:g}, slice z = {best_z}"
             + (f"\nwalls (grey) at y = 0 and {ny - 1}" if has_walls else ""))
ld = Show(label, view)
ld.Color = [0.1, 0.1, 0.1]
ld.FontSize = 14
ld.WindowLocation = "Upper Left Corner"
ld.Justification = "Left"

# Gravity is along -y: keep y up, and look mostly along -z so the slice is
# seen nearly face-on, from a little left and above so the surface reads 3D.
c = [0.5 * (nx - 1), 0.5 * (ny - 1), 0.5 * (nz - 1)]
view.CameraFocalPoint = c
view.CameraPosition = [c[0] - 0.9 * nx, c[1] + 0.7 * ny, c[2] + 2.0 * nz]
view.CameraViewUp = [0.0, 1.0, 0.0]
view.ResetCamera(False)
# ResetCamera fits the default 30 degree lens; a narrower one from further
# back (same framing) flattens the box's perspective.
k = math.tan(math.radians(15)) / math.tan(math.radians(9))
GetActiveCamera().Dolly(1.0 / k)
view.CameraViewAngle = 18

SaveScreenshot(a.png, view, ImageResolution=[w, h], TransparentBackground=0)
print(f"wrote {a.png} (step {t:g}, slice z = {best_z})")
