"""`astaroth bench ops`: bandwidth of the astaroth.ops derivative kernels on the GPU.

A program, not a test.  On an n^3 float32 CuPy array (default 256^3), x
fastest as ``sim.view`` is, it times the first-derivative kernels along x,
y and z (csrc/cuda/ops_impl.cuh, called through the binding into an output
array allocated once) and, in the same run, device-to-device copies.  The
traffic counted is the minimum, one read and one write of the array, so
GB/s = 2 n^3 4 B / time; "of copy" divides by the fastest copy measured:
the same array copied with cudaMemcpyAsync timed like the kernels, and
astaroth's own copy test (``_core.cuda_copy_bandwidth``) at that size and
at 1 GiB.  Each time is the fastest of `repeats` launches queued back to
back on the stream with an event between each two, so that no launch waits
for the host.
"""
import math
import platform
import sys
import time

import numpy as np

from . import _core, ops

TARGET_FRACTION = 0.8  # the goal: every first-derivative kernel at >= 80% of the copy


class NoDevice(RuntimeError):
    """What the GPU benchmark needs and did not find."""


def _cupy_on_a_gpu():
    try:
        cupy = ops._cupy()  # the device path's own check: a CUDA build and CuPy
    except (RuntimeError, ImportError) as e:
        raise NoDevice(str(e)) from None
    if _core.cuda_device_count() < 1:
        raise NoDevice("no CUDA GPU is visible")
    return cupy


def best_seconds(launch, repeats, cupy):
    """(fastest, median) seconds of one launch() among `repeats` queued back to back."""
    stream = cupy.cuda.get_current_stream()
    launch()  # warm-up: first-launch costs, clocks up
    events = [cupy.cuda.Event() for _ in range(repeats + 1)]
    for i in range(repeats):
        events[i].record(stream)
        launch()
    events[repeats].record(stream)
    events[repeats].synchronize()
    ms = sorted(cupy.cuda.get_elapsed_time(events[i], events[i + 1]) for i in range(repeats))
    return ms[0] * 1e-3, ms[len(ms) // 2] * 1e-3


def sine_field(cupy, n):
    """f = sin x + sin 2y + sin 3z on [0, 2 pi)^3, x fastest (Fortran order), float32; and h."""
    h = 2 * math.pi / n
    c = cupy.arange(n, dtype=cupy.float64) * h
    f = (cupy.sin(c)[:, None, None] + cupy.sin(2 * c)[None, :, None] + cupy.sin(3 * c)[None, None, :])
    return cupy.asfortranarray(f.astype(cupy.float32)), c, h


def run_bench_ops(n=256, repeats=50, accuracies=(6, 8), out=print):
    """Print the table; returns the rows (dicts) and the copy bandwidth used."""
    cupy = _cupy_on_a_gpu()
    device = cupy.cuda.Device()
    props = cupy.cuda.runtime.getDeviceProperties(device.id)
    name = props["name"].decode() if isinstance(props["name"], bytes) else props["name"]
    out(f"# astaroth bench ops: device={name} (sm_{props['major']}{props['minor']}, "
        f"{props['totalGlobalMem'] / 2**30:.0f} GiB), host={platform.node()}, cupy={cupy.__version__}, "
        f"numpy={np.__version__}, date={time.strftime('%Y-%m-%d %H:%M:%S %Z')}")
    f, coords, h = sine_field(cupy, n)
    nbytes = f.nbytes
    traffic = 2 * nbytes  # one read and one write
    out(f"# first derivatives of a {n}^3 float32 array, x fastest ({nbytes / 2**20:.0f} MiB); GB/s = "
        f"{traffic / 2**20:.0f} MiB (one read + one write) / fastest of {repeats} back-to-back launches")

    stream = cupy.cuda.get_current_stream()
    copy_dst = cupy.empty_like(f, order="F")
    copy_kind = cupy.cuda.runtime.memcpyDeviceToDevice
    copy_s, _ = best_seconds(lambda: cupy.cuda.runtime.memcpyAsync(copy_dst.data.ptr, f.data.ptr, nbytes, copy_kind,
                                                                   stream.ptr), repeats, cupy)
    copies = {f"cudaMemcpyAsync {nbytes / 2**20:.0f} MiB, back to back": traffic / copy_s,
              f"_core.cuda_copy_bandwidth {nbytes / 2**20:.0f} MiB": _core.cuda_copy_bandwidth(nbytes, repeats),
              "_core.cuda_copy_bandwidth 1 GiB": _core.cuda_copy_bandwidth(1 << 30, 10)}
    for label, bw in copies.items():
        out(f"# device-to-device copy ({label}): {bw / 1e9:.0f} GB/s")
    copy_bw = max(copies.values())
    out(f"# of copy = GB/s / {copy_bw / 1e9:.0f} GB/s, the fastest copy above")

    exact = [cupy.cos(coords)[:, None, None], 2 * cupy.cos(2 * coords)[None, :, None],
             3 * cupy.cos(3 * coords)[None, None, :]]
    result = cupy.empty_like(f, order="F")
    strides = tuple(s // f.itemsize for s in f.strides)
    out(f"{'axis':<6}{'accuracy':>9}{'us':>9}{'GB/s':>8}{'of copy':>9}{'median GB/s':>13}{'max error':>11}")
    rows = []
    for accuracy in accuracies:
        for axis in range(3):
            def launch():
                _core.derivative_device(f.data.ptr, result.data.ptr, f.shape, strides, strides, False, axis, 1,
                                        accuracy, h, stream.ptr)

            fastest, median = best_seconds(launch, repeats, cupy)
            error = float(cupy.max(cupy.abs(result - exact[axis])))  # the timed kernel did the work
            row = dict(axis="xyz"[axis], accuracy=accuracy, seconds=fastest, gbs=traffic / fastest / 1e9,
                       fraction=traffic / fastest / copy_bw, median_gbs=traffic / median / 1e9, error=error)
            rows.append(row)
            out(f"{row['axis']:<6}{accuracy:>9}{fastest * 1e6:>9.1f}{row['gbs']:>8.0f}{row['fraction']:>9.2f}"
                f"{row['median_gbs']:>13.0f}{error:>11.2e}")
    default = [r for r in rows if r["accuracy"] == 6] or rows
    ok = all(r["fraction"] >= TARGET_FRACTION for r in default)
    out(f"# x, y, z at accuracy {default[0]['accuracy']}: "
        f"{'all' if ok else 'NOT all'} at >= {TARGET_FRACTION:.0%} of copy "
        f"(lowest {min(r['fraction'] for r in default):.2f})")
    return rows, copy_bw


def main(n=256, repeats=50):
    """Entry point of `astaroth bench ops`: 0, or 1 with a message where there is no GPU to run on."""
    try:
        run_bench_ops(n=n, repeats=repeats)
    except NoDevice as e:
        print(f"astaroth bench ops: needs a CUDA GPU, CuPy and a build with the CUDA backend: {e}", file=sys.stderr)
        return 1
    return 0
