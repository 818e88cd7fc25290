"""One host-driven 256^3 MHD+entropy step (astaroth.bench.backend_stepper, as
`astaroth bench --energy entropy` times it) between cudaProfilerStart and Stop,
after three unprofiled ones; for ncu --profile-from-start off.
  python kernels_entropy.py PHYSICS DTYPE"""
import sys
import cupy
import astaroth.bench as b
physics, dtype = sys.argv[1:3]
st = b.backend_stepper("cuda", "55p", dtype, 256, physics=physics, energy="entropy")
for _ in range(3):
    st.step()
cupy.cuda.runtime.deviceSynchronize()
cupy.cuda.profiler.start()
st.step()
cupy.cuda.runtime.deviceSynchronize()
cupy.cuda.profiler.stop()
print("ran", b.__file__)
