"""One host-driven 256^3 step (astaroth.bench.backend_stepper, as `astaroth bench`
times it) between cudaProfilerStart and Stop, after three unprofiled ones:
run under `ncu --profile-from-start off --metrics gpu__time_duration.sum` it
lists every kernel the step launches and its time.
  python kernels.py PHYSICS DTYPE [NAME=VALUE ...] [walls]   (walls: in z, as `astaroth bench --walls`)"""
import sys
import cupy
import astaroth.bench as b
physics, dtype = sys.argv[1:3]
terms = {k: float(v) for k, v in (a.split("=") for a in sys.argv[3:] if a != "walls")}
if "walls" in sys.argv[3:]:
    faces = dict(lnrho="a2", ux="s", uy="s", uz="a")
    if physics == "mhd":
        faces.update(ax="a", ay="a", az="s")
    terms["boundaries"] = {"z": faces}
st = b.backend_stepper("cuda", "55p", dtype, 256, physics=physics, **terms)
for _ in range(3):
    st.step()
cupy.cuda.runtime.deviceSynchronize()
cupy.cuda.profiler.start()
st.step()
cupy.cuda.runtime.deviceSynchronize()
cupy.cuda.profiler.stop()
print("ran", b.__file__)
