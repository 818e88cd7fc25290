#!/usr/bin/env bash
# One call on the GPU machine: build in place, run every test (GPU tests
# included), compute-sanitizer on a small run, and the benchmark.  Logs go
# to $OUT (or ./device-logs); each log names device, date, commit, command.
#   usage: [PREBUILT=1] COMMIT=<sha> scripts/device-check.sh [quick | no-notebooks | perf | tune | issues1 | issues2 | many
#          | speed rows | speed sweeps]
#   (full and no-notebooks also profile the 55-point kernel and run the
#   1024^3 memory check)
#   perf: build, the GPU agreement tests, a 55p tile sweep, the 55p bench at
#   256^3 and 512^3 and an Nsight Compute profile of the 55-point substep
#   (NCU_EXTRA: of more shapes; at most 8 files come back from the device).
set -uo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
OUT=${OUT:-device-logs}
mkdir -p "$OUT"
export PYTHONPATH=$PWD PYTHONUNBUFFERED=1
PY=${PYTHON:-python3}
# tune and perf sweep the tile shapes: build their instances too (csrc/cuda/schedules.cuh)
case "${1:-}" in tune | perf) export ASTAROTH_TUNING=1 ;; esac

header() {
    echo "# device: $(nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader 2>/dev/null | head -1)"
    echo "# date: $(date -u '+%Y-%m-%d %H:%M:%S UTC')"
    echo "# commit: ${COMMIT:-unknown}"
    echo "# command: $*"
}

# PREBUILT=1 keeps the extension carried with the tree (built elsewhere for
# this machine's Python), so that a short call spends no time compiling.
if [ -n "${PREBUILT:-}" ]; then
    { header "(prebuilt extension carried with the tree)"; ls -l astaroth/_*.so; } > "$OUT/build.log" 2>&1
else {
    header "${ASTAROTH_TUNING:+ASTAROTH_TUNING=1 }python3 setup.py build_ext --inplace"
    nvcc --version | tail -2
    rm -rf build astaroth/_core*.so
    $PY setup.py build_ext --inplace 2>&1 | grep -E "error|warning|ptxas info|bytes stack|nvcc|gcc" || true
    ls -l astaroth/_core*.so
} > "$OUT/build.log" 2>&1
fi
if ! ls astaroth/_core*.so >/dev/null 2>&1; then cat "$OUT/build.log"; exit 1; fi

# The largest grids: 1024^3 float32 takes steps on one 80 GB GPU; a grid
# that does not fit is a MemoryError naming its size.
memory_check() {
    {
        header "python3 (1024^3 float32 55p: three steps; then 1400^3 float32 and 1024^3 float64)"
        nvidia-smi --query-gpu=memory.used,memory.total --format=csv
        $PY -c "
import time, numpy as np, astaroth as ac
from astaroth.device import memory_info
sim = ac.Simulation(shape=(1024,) * 3, backend='cuda', dtype='float32', method='55p', nu=1e-3)
free, total = memory_info()
print(f'1024^3 float32 allocated: {(total - free) / 2**30:.1f} GiB of {total / 2**30:.1f} GiB in use')
sim['ux'] = np.sin(sim.x)[:, None, None].astype(np.float32)
sim.step(1e-4)
t0 = time.perf_counter()
sim.step(1e-4)
sim.step(1e-4)
sim.check_finite()
dt = (time.perf_counter() - t0) / 2
print(f'steps {sim.steps}, t {sim.t:.4g}, {dt * 1e3:.1f} ms per step, {1024**3 / dt / 1e6:.0f} M/s, fields finite')
del sim
for shape, dtype in (((1400,) * 3, 'float32'), ((1024,) * 3, 'float64')):
    try:
        ac.Simulation(shape=shape, backend='cuda', dtype=dtype)
        print(shape, dtype, 'fits')
    except MemoryError as e:
        print('MemoryError:', e)
" 2>&1
    } >> "$OUT/bench.log" 2>&1  # (a log of its own would be a ninth file)
    tail -6 "$OUT/bench.log"
}

# Nsight Compute on one 55-point substep at 256^3: ncu_substep KERNEL_REGEX
# DTYPE LOG [TREE [PHYSICS]] profiles the first match after two steps, with
# the build in TREE (default: this one; the tree's own folder is first on
# sys.path), appended to LOG.
NCU_SECTIONS="--section SpeedOfLight --section MemoryWorkloadAnalysis --section Occupancy --section WarpStateStats --section LaunchStats --section ComputeWorkloadAnalysis"
ncu_substep() {
    local kernel=$1 dtype=$2 log=$3 tree=${4:-$ROOT} physics=${5:-hydro}
    {
        header "${ASTAROTH_STREAM_TILE:+ASTAROTH_STREAM_TILE=$ASTAROTH_STREAM_TILE }ncu $NCU_SECTIONS -k regex:$kernel --launch-skip 6 --launch-count 1 (256^3 $dtype, 55p, physics $physics, in $tree)"
        (cd "$tree" && PYTHONPATH=$PWD /usr/local/cuda/bin/ncu $NCU_SECTIONS -k regex:$kernel --launch-skip 6 \
            --launch-count 1 $PY -c "
import astaroth as ac, astaroth.bench as b
s = ac.Simulation(shape=(256,) * 3, backend='cuda', dtype='$dtype', method='55p', nu=1e-2, physics='$physics')
b.smooth_start(s); s.step(1e-4); s.step(1e-4); s.step(1e-4); print('ran', ac.__file__)" 2>&1)
    } >> "$OUT/$log" 2>&1
    grep -E "Duration|Throughput|Registers|Achieved Occupancy|Theoretical Occupancy|Issue Slots|Stall|L1/TEX Hit|L2 Hit|Block Limit" "$OUT/$log" | head -40
}

# NCU_EXTRA="shape:dtype ...": profile these ASTAROTH_STREAM_TILE shapes too
profile() {
    for dtype in float32 float64; do
        ncu_substep stream_substep $dtype ncu-$dtype.log
    done
    for dtype in float32 float64; do # MHD's seven fields, both precisions in one log
        ncu_substep stream_substep $dtype ncu-mhd.log "$ROOT" mhd
    done
    for extra in ${NCU_EXTRA:-}; do
        local shape=${extra%%:*} dtype=${extra##*:}
        ASTAROTH_STREAM_TILE=$shape ncu_substep stream_substep $dtype "ncu-${shape//,/-}-$dtype.log"
    done
}

# The 55p shape sweep (each shape beside its CPU agreement) at each size of
# TUNE_SIZES over TUNE_SHAPES (default: tune-tiles.py's list) into tune.log,
# then the 55p bench at 256^3 and 512^3 into bench.log.
sweep_and_bench() {
    {
        for n in $1; do
            header "python3 scripts/tune-tiles.py 55p $n ${TUNE_SHAPES:-}"
            $PY scripts/tune-tiles.py 55p $n ${TUNE_SHAPES:-} 2>&1
        done
    } > "$OUT/tune.log" 2>&1
    cat "$OUT/tune.log"
    {
        header "python3 -m astaroth bench --backend cuda --sizes 256 512 --methods 55p"
        $PY -m astaroth bench --backend cuda --sizes 256 512 --methods 55p 2>&1
    } > "$OUT/bench.log" 2>&1
    cat "$OUT/bench.log"
}

# issues1 / issues2: the open issues' GPU items in two calls of at most ten
# minutes each.  issues1: the CUDA bit-for-bit fixture, every GPU test,
# compute-sanitizer on walls, gravity and entropy, and the convection run at
# 128^2 x 64.  issues2: the interleaved A/B at 256^3 against the tree in
# .trees/base-tree (scripts/ab.py: the terms, 19p and entropy rows), the
# entropy rows with the copy bandwidth, and z walls against periodic
# (.trees/base-tree: e.g. `mkdir -p .trees/base-tree && git archive 8a8e381 |
# tar -x -C .trees/base-tree`, untracked, so that `run` carries it).
if [ "${1:-}" = "issues1" ]; then
    { header "python3 scripts/make_bitwise_fixture.py cuda --compare tests/data/bitwise_cuda.npz"
      timeout 120 $PY scripts/make_bitwise_fixture.py cuda --compare tests/data/bitwise_cuda.npz 2>&1 | tail -3; } > "$OUT/bitwise.log" 2>&1
    tail -1 "$OUT/bitwise.log"
    { header "python3 -m pytest -q -m gpu tests/"
      timeout 240 $PY -m pytest -q -m gpu tests/ 2>&1 | grep -v excepthook | tail -20; } > "$OUT/tests-gpu.log" 2>&1
    tail -2 "$OUT/tests-gpu.log"
    { header "compute-sanitizer --tool memcheck python3 (walls in z with gravity, hydro and MHD with entropy, 32x24x16)"
      timeout 120 compute-sanitizer --tool memcheck $PY -c "
import numpy as np, astaroth as ac
for physics in ('hydro', 'mhd'):
    for dtype in ('float32', 'float64'):
        walls = {'ux': 's', 'uy': 's', 'uz': 'a', 'lnrho': 'a2', 'ss': 'set:0.1'}
        if physics == 'mhd':
            walls.update(ax='a', ay='a', az='s')
        s = ac.Simulation(shape=(32, 24, 16), backend='cuda', dtype=dtype, physics=physics, energy='entropy', chi=1e-2,
                          boundaries={'z': walls}, gravity=(0, 0, -0.5))
        s['ux'] = 0.01 * np.sin(s.x)[:, None, None]
        s.run(until=0.05); s.check_finite()
        print(physics, dtype, s.steps, float(np.abs(s['uz']).max()))
" 2>&1 | tail -8; } > "$OUT/sanitizer.log" 2>&1
    tail -2 "$OUT/sanitizer.log"
    { header "python3 scripts/convection_gpu.py \$OUT (128 x 128 x 64, cuda)"
      timeout 200 $PY scripts/convection_gpu.py "$OUT" 2>&1 | tail -8; } > "$OUT/convection-run.log" 2>&1
    tail -3 "$OUT/convection-run.log"
    exit 0
fi
if [ "${1:-}" = "issues2" ]; then
    if [ -d .trees/base-tree ]; then
        (cd .trees/base-tree && $PY setup.py build_ext --inplace > /dev/null 2>&1)
        { header "AB_GROUPS=terms,19p,entropy python3 scripts/ab.py 2 .trees/base-tree . (A: base-tree, B: this tree)"
          AB_GROUPS=terms,19p,entropy timeout 330 $PY scripts/ab.py 2 "$ROOT/.trees/base-tree" "$ROOT" 2>&1; } > "$OUT/ab.log" 2>&1
        tail -18 "$OUT/ab.log"
    fi
    { header "python3 -m astaroth bench --backend cuda --energy entropy --physics all --sizes 256"
      timeout 100 $PY -m astaroth bench --backend cuda --energy entropy --physics all --sizes 256 2>&1 | tail -10
      header "python3 -m astaroth bench --backend cuda --walls --sizes 256"
      timeout 100 $PY -m astaroth bench --backend cuda --walls --sizes 256 2>&1 | tail -10; } > "$OUT/bench.log" 2>&1
    cat "$OUT/bench.log"
    exit 0
fi

# many: on a machine of several GPUs (nvidia-h200-x2, -x4), what a split
# run must show on separate GPUs, in one call of under ten minutes: the
# split GPU tests; a forced float64 run on every GPU against one GPU, bit for
# bit, by each exchange; weak scaling (256^3 a GPU, hydro and MHD+entropy,
# both precisions) and strong scaling (512^3 and 1024^3, float32 hydro),
# each on one GPU and on all; sim.run's CFL steps (how=run); and a split
# run's steps in C against those sequenced from Python (scripts/split_steps.py).
# MANY_STAGES picks stages (default: tests check weak strong run csteps).
# docs/performance/scaling.md turns the scaling lines into efficiencies.
if [ "${1:-}" = "many" ]; then
    NGPU=$(nvidia-smi -L | wc -l)
    MPIRUN="mpirun --allow-run-as-root --oversubscribe --bind-to none"
    stages=" ${MANY_STAGES:-tests check weak strong run csteps} "
    many() { # LOG SECONDS COMMAND...: appended to $OUT/LOG after its header, the last ${TAIL:-3} lines
        local log=$1 limit=$2
        shift 2
        { header "$*"; timeout "$limit" "$@" 2>&1 | tail -"${TAIL:-3}"; } >> "$OUT/$log" 2>&1
    }
    echo "GPUs: $NGPU"
    if [[ $stages == *" tests "* ]]; then
        TAIL=20 many mpi-gpu-tests.log 240 $PY -m pytest -q -rs -p no:cacheprovider tests/test_mpi_gpu.py
        tail -n 2 "$OUT/mpi-gpu-tests.log"
    fi
    if [[ $stages == *" check "* ]]; then
        for ex in auto host; do many check.log 90 $MPIRUN -np "$NGPU" $PY scripts/scaling.py check $ex; done
        grep -E "^check" "$OUT/check.log"
    fi
    scale() { many scaling.log 120 $MPIRUN -np "$1" $PY scripts/scaling.py "${@:2}"; }
    if [[ $stages == *" weak "* ]]; then
        for args in "weak 256 float32 hydro" "weak 256 float64 hydro" "weak 256 float32 mhd+entropy" \
            "weak 256 float64 mhd+entropy"; do
            scale 1 $args
            scale "$NGPU" $args
        done
    fi
    if [[ $stages == *" strong "* ]]; then
        for n in 512 1024; do
            scale 1 strong $n float32 hydro
            scale "$NGPU" strong $n float32 hydro
        done
    fi
    if [[ $stages == *" run "* ]]; then
        for args in "weak 256 float32 mhd+entropy run" "strong 512 float32 hydro run"; do
            scale 1 $args
            scale "$NGPU" $args
        done
    fi
    grep -hE "^weak|^strong|Error" "$OUT/scaling.log" 2>/dev/null
    if [[ $stages == *" csteps "* ]]; then
        for physics in hydro mhd; do
            TAIL=6 many split-steps.log 120 $MPIRUN -np "$NGPU" $PY scripts/split_steps.py 128 $physics 20 cuda float32
        done
        tail -n 12 "$OUT/split-steps.log"
    fi
    exit 0
fi

# speed rows / speed sweeps: every speed row the design's targets name, in
# two calls of under ten minutes each, to be run on each kind of GPU lent
# (docs/performance/gpu.md).  rows: the bench's 55-point rows with the copy
# bandwidth at 256^3 and 512^3 (hydro, both precisions), 1024^3 (float32),
# MHD, hydro and MHD with entropy, and the terms against none, at 256^3.
# sweeps: --sweeps --physics all in both precisions (each physics' fixed-dt
# row, sim.run's fraction of it, the ensembles' fraction of the run).
if [ "${1:-}" = "speed" ]; then
    bench() { # LOG SECONDS ARGS...: astaroth bench ARGS, appended to $OUT/LOG after its header
        local log=$1 limit=$2
        shift 2
        { header "python3 -m astaroth bench --backend cuda $*"
          timeout "$limit" $PY -m astaroth bench --backend cuda "$@" 2>&1; } >> "$OUT/$log" 2>&1
    }
    case "${2:-rows}" in
    rows)
        bench rows.log 150 --sizes 256 512 --methods 55p
        bench rows.log 90 --sizes 1024 --methods 55p --dtype float32
        bench rows.log 90 --physics mhd --sizes 256
        bench rows.log 120 --energy entropy --physics all --sizes 256
        bench rows.log 150 --terms --physics all --sizes 256
        cat "$OUT/rows.log"
        ;;
    sweeps)
        for dtype in float32 float64; do
            bench sweeps.log 280 --sweeps --physics all --sizes 32 64 256 --dtype "$dtype" --methods 55p
        done
        cat "$OUT/sweeps.log"
        ;;
    *)
        echo "speed: rows or sweeps" >&2
        exit 2
        ;;
    esac
    exit 0
fi

# tune: build, the sweep at TUNE_SIZES (default 256 512), the 55p bench.
if [ "${1:-}" = "tune" ]; then
    sweep_and_bench "${TUNE_SIZES:-256 512}"
    exit 0
fi

if [ "${1:-}" = "perf" ]; then
    {
        header "python3 -m pytest -q -x tests/test_gpu.py"
        $PY -m pytest -q -x tests/test_gpu.py 2>&1
    } > "$OUT/tests.log" 2>&1
    tail -3 "$OUT/tests.log"
    sweep_and_bench "${TUNE_SIZES:-256}"
    if [ -d .old ]; then # an earlier commit's tree, for the profile of its kernel
        (cd .old && $PY setup.py build_ext --inplace >/dev/null 2>&1)
        ncu_substep substep_kernel float32 ncu-before-float32.log "$ROOT/.old"
    fi
    [ -n "${NO_NCU:-}" ] || profile
    exit 0
fi

{
    header "python3 -m pytest -v -rs tests"
    $PY -c "import astaroth as ac; print('backends:', ac.backends())"
    $PY -m pytest -v -rs tests 2>&1
} > "$OUT/tests.log" 2>&1
tail -5 "$OUT/tests.log"

{
    header "compute-sanitizer --tool memcheck python3 (32x24x16 run, both methods and precisions; MHD with helical forcing)"
    compute-sanitizer --tool memcheck $PY -c "
import gc, numpy as np, astaroth as ac
for method in ('55p', '19p'):
    for dtype in ('float32', 'float64'):
        s = ac.Simulation(shape=(32, 24, 16), backend='cuda', method=method, dtype=dtype)
        s['ux'] = 0.1 * np.sin(s.x)[:, None, None]
        s.run(until=0.05); s.rhs(); s.check_finite()
        print(method, dtype, s.steps, float(np.abs(s['ux']).max()))
        del s
        gc.collect()
for dtype in ('float32', 'float64'):
    s = ac.Simulation(shape=(32, 24, 16), backend='cuda', dtype=dtype, physics='mhd', eta=1e-2, b_ext=(0, 0, 0.3))
    s.forcing = ac.Forcing(kmin=1, kmax=2, f0=0.05, seed=3, relhel=1.0)
    ac.init.beltrami_field(s, k=1, amplitude=0.1, axis='z')
    s.run(until=0.05); s.rhs(); s.check_finite()
    print('mhd', dtype, s.steps, float(np.abs(s['ax']).max()))
    del s
    gc.collect()
" 2>&1
} > "$OUT/sanitizer.log" 2>&1
tail -3 "$OUT/sanitizer.log"

if [ "${1:-}" != "quick" ] && [ "${1:-}" != "no-notebooks" ]; then
    {
        header "python3 scripts/run_notebook.py notebooks/NAME.ipynb (GPU sizes)"
        for nb in sine_decay radial_explosion forced_turbulence parameter_sweep helical_dynamo; do
            echo "== $nb"
            $PY scripts/run_notebook.py notebooks/$nb.ipynb "$OUT/$nb.ipynb" 2>&1
        done
    } > "$OUT/notebooks.log" 2>&1
    tail -20 "$OUT/notebooks.log"
fi

if [ "${1:-}" != "quick" ]; then
    {
        header "python3 -m astaroth bench --backend cuda"
        $PY -m astaroth bench --backend cuda 2>&1
    } > "$OUT/bench.log" 2>&1
    cat "$OUT/bench.log"
    {
        header "python3 -m astaroth bench --backend cuda --sweeps --dtype float32 --methods 55p"
        $PY -m astaroth bench --backend cuda --sweeps --dtype float32 --methods 55p 2>&1
        header "python3 -m astaroth bench --backend cuda --physics mhd"
        $PY -m astaroth bench --backend cuda --physics mhd 2>&1
        header "python3 -m astaroth bench --backend cuda --terms --physics all"
        $PY -m astaroth bench --backend cuda --terms --physics all 2>&1
    } > "$OUT/bench_sweeps.log" 2>&1
    cat "$OUT/bench_sweeps.log"
    memory_check
    profile
    [ -n "${SKIP_OPS:-}" ] || {
        header "python3 -m astaroth bench ops"
        $PY -m astaroth bench ops 2>&1
        header "compute-sanitizer --tool memcheck python3 (ac.ops on device arrays: every kernel and layout)"
        compute-sanitizer --tool memcheck $PY -c "
import cupy, numpy as np, astaroth as ac
for dtype in ('float32', 'float64'):
    for order in ('C', 'F'):
        f = cupy.asarray(np.random.default_rng(0).standard_normal((36, 20, 12)), dtype=dtype, order=order)
        for axis in range(3):
            for n in (1, 2):
                for acc in (2, 4, 6, 8):
                    ac.ops.derivative(f, axis, n, acc, 0.1)
    f = cupy.asarray(np.ones((37, 5, 3)), dtype=dtype)[1:]   # misaligned rows: the tile kernel
    ac.ops.derivative(f, 0, 1, 6, 0.1)
cupy.cuda.Device().synchronize(); print('ops kernels ran')
" 2>&1 | tail -3
    } > "$OUT/bench_ops.log" 2>&1
    [ -n "${SKIP_OPS:-}" ] || cat "$OUT/bench_ops.log"
fi
