#!/usr/bin/env bash
# The device calls that check main on the GPU: every GPU test, the CUDA
# bit-for-bit fixture, compute-sanitizer, the dynamo-onset notebook at its GPU
# size, and the A/B timings against main before the redesign (A, carried as
# .trees/base-tree, built in /tmp/base).  Logs to $OUT.
#   check: build; pytest -m gpu; the bitwise fixture; sanitizer; the notebook
#   second: build; the GPU tests of the second week's device paths; the
#          sanitizer; sweep_profile.py
#   onset: build; the GPU tests of the diagnostics; sweep_profile.py; the
#          dynamo-onset notebook at its GPU size
#   loops: build; the GPU tests of the loops, walls, gravity and the bitwise fixture
#   all:   build; every GPU test; the bitwise fixture; the sanitizer;
#          astaroth bench --terms --physics all at 256^3
#   ab:    build this tree (B) and A; scripts/ab.py's rows, the walls and
#          sweeps benches in both
set -uo pipefail
cd "$(dirname "$0")/../../.."
ROOT=$PWD
OUT=${OUT:-device-logs}
mkdir -p "$OUT"
export PYTHONUNBUFFERED=1 PYTHONPATH=$ROOT
header() {
    echo "# device: $(nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader | head -1)"
    echo "# date: $(date -u '+%Y-%m-%d %H:%M:%S UTC')"
    echo "# commit: ${COMMIT:-unknown} ($ROOT)${BASE:+, A = $BASE (/tmp/base)}"
    echo "# command: $*"
}
build() {
    { header "python3 setup.py build_ext --inplace"
      t0=$(date +%s)
      python3 setup.py build_ext --inplace > /tmp/build.log 2>&1
      grep -E "error" -A3 /tmp/build.log | head -40
      echo "built in $(( $(date +%s) - t0 )) s"
      ls -l astaroth/_core*.so; python3 -c "import astaroth as ac; print('backends:', ac.backends())"; } > "$OUT/build.log" 2>&1
    tail -2 "$OUT/build.log"
}
sanitizer() {
    { header "compute-sanitizer --tool memcheck python3 (forced MHD+entropy device loop, an ensemble in one graph, walls with gravity; 32x24x16)"
      timeout 150 compute-sanitizer --tool memcheck python3 -c "
import numpy as np, astaroth as ac
for dtype in ('float32', 'float64'):
    s = ac.Simulation(shape=(32, 24, 16), backend='cuda', dtype=dtype, physics='mhd', energy='entropy', chi=1e-2, eta=1e-2)
    s.forcing = ac.Forcing(kmin=1, kmax=2, f0=0.05, seed=3, relhel=1.0)
    s.run(until=0.05); s.check_finite(); print('forced mhd+entropy', dtype, s.steps)
    ms = [ac.Simulation(shape=(16, 16, 16), backend='cuda', dtype=dtype, physics='mhd', eta=1e-2 * (1 + k)) for k in range(3)]
    for k, m in enumerate(ms):
        m.forcing = ac.Forcing(kmin=1, kmax=2, f0=0.05, seed=k)
    ac.Ensemble(ms).run(until=0.05); print('ensemble', dtype, [m.steps for m in ms])
    w = ac.Simulation(shape=(32, 24, 16), backend='cuda', dtype=dtype, energy='entropy', chi=1e-2,
                      boundaries={'z': {'ux': 's', 'uy': 's', 'uz': 'a', 'lnrho': 'a2', 'ss': 'set:0.1'}}, gravity=(0, 0, -0.5))
    w['ux'] = 0.01 * np.sin(w.x)[:, None, None]
    w.run(until=0.05); w.check_finite(); print('walls', dtype, w.steps)
" 2>&1 | tail -12; } > "$OUT/sanitizer.log" 2>&1
    tail -2 "$OUT/sanitizer.log"
}
every_gpu_test() { # every GPU test, then the CUDA bit-for-bit fixture
    { header "python3 -m pytest -q -m gpu -rs tests"
      timeout 300 python3 -m pytest -q -m gpu -rs -p no:cacheprovider tests 2>&1 | grep -v excepthook | tail -40; } > "$OUT/gpu-tests.log" 2>&1
    tail -3 "$OUT/gpu-tests.log"
    { header "python3 scripts/make_bitwise_fixture.py cuda --compare tests/data/bitwise_cuda.npz"
      timeout 120 python3 scripts/make_bitwise_fixture.py cuda --compare tests/data/bitwise_cuda.npz 2>&1 | tail -5; } > "$OUT/bitwise-cuda.log" 2>&1
    tail -1 "$OUT/bitwise-cuda.log"
}
HERE=benchmarks/results/2026-11-27-gpu-checks
case "$1" in
check)
    build
    every_gpu_test
    sanitizer
    python3 -c "import pandas" 2>/dev/null && { timeout 200 bash scripts/dynamo_onset_gpu.sh "$OUT/onset" > /dev/null 2>&1; tail -5 "$OUT/onset/dynamo_onset.log"; rm -f "$OUT/onset/build.log"; } || echo "no pandas here"
    ;;
second)
    build
    { header "python3 -m pytest -q -m gpu -rs tests/test_ops_gpu.py tests/test_diagnostics_during_run.py tests/test_live_parameters.py tests/test_gpu.py"
      timeout 200 python3 -m pytest -q -m gpu -rs -p no:cacheprovider tests/test_ops_gpu.py tests/test_diagnostics_during_run.py \
        tests/test_live_parameters.py tests/test_gpu.py -v 2>&1 | grep -E "PASS|FAIL|SKIP|ERROR|passed|failed" | tail -150; } > "$OUT/gpu-tests-second-week.log" 2>&1
    tail -2 "$OUT/gpu-tests-second-week.log"
    sanitizer
    { header "python3 $HERE/sweep_profile.py 20"
      timeout 240 python3 "$HERE/sweep_profile.py" 20 2>&1 | head -80; } > "$OUT/sweep-profile.log" 2>&1
    head -12 "$OUT/sweep-profile.log" | grep -v "^#"
    ;;
onset)
    build
    { header "python3 -m pytest -q -m gpu -rs tests/test_ops_gpu.py tests/test_diagnostics_during_run.py tests/test_sweep.py tests/test_live_parameters.py"
      timeout 150 python3 -m pytest -q -m gpu -rs -p no:cacheprovider tests/test_ops_gpu.py tests/test_diagnostics_during_run.py \
        tests/test_sweep.py tests/test_live_parameters.py -v 2>&1 | grep -E "PASS|FAIL|SKIP|ERROR|passed|failed" | tail -80; } > "$OUT/gpu-tests-diagnostics.log" 2>&1
    tail -1 "$OUT/gpu-tests-diagnostics.log"
    { header "python3 $HERE/sweep_profile.py 20"
      timeout 100 python3 "$HERE/sweep_profile.py" 20 2>&1 | head -60; } > "$OUT/sweep-profile.log" 2>&1
    head -6 "$OUT/sweep-profile.log" | grep -v "^#"
    timeout 330 bash scripts/dynamo_onset_gpu.sh "$OUT/onset" > /dev/null 2>&1; tail -12 "$OUT/onset/dynamo_onset.log"; rm -f "$OUT/onset/build.log"
    ;;
loops)
    build
    { header "python3 -m pytest -q -m gpu -rs tests/test_run_in_c.py tests/test_device_cfl.py tests/test_ensemble.py tests/test_walls.py tests/test_walls_entropy.py tests/test_stratified.py tests/test_bitwise.py tests/test_forcing.py"
      timeout 300 python3 -m pytest -q -m gpu -rs -p no:cacheprovider tests/test_run_in_c.py tests/test_device_cfl.py tests/test_ensemble.py \
        tests/test_walls.py tests/test_walls_entropy.py tests/test_stratified.py tests/test_bitwise.py tests/test_forcing.py 2>&1 | grep -v excepthook | tail -30; } > "$OUT/gpu-tests-loops.log" 2>&1
    tail -2 "$OUT/gpu-tests-loops.log"
    ;;
all)
    build
    every_gpu_test
    sanitizer
    { header "python3 -m astaroth bench --backend cuda --terms --physics all --sizes 256"
      timeout 150 python3 -m astaroth bench --backend cuda --terms --physics all --sizes 256 2>&1 | tail -20; } > "$OUT/bench-terms.log" 2>&1
    grep -v "^#" "$OUT/bench-terms.log"
    ;;
ab)
    rm -rf /tmp/base && cp -r .trees/base-tree /tmp/base
    build
    (cd /tmp/base && python3 setup.py build_ext --inplace > /tmp/base-build.log 2>&1); ls -l /tmp/base/astaroth/_core*.so >> "$OUT/build.log"
    { header "AB_GROUPS=${AB_GROUPS:-terms,19p,entropy} python3 scripts/ab.py 2 /tmp/base . (A: /tmp/base, B: this tree)"
      AB_GROUPS=${AB_GROUPS:-terms,19p,entropy} timeout 330 python3 scripts/ab.py 2 /tmp/base "$ROOT" 2>&1; } > "$OUT/ab.log" 2>&1
    grep -v "^#" "$OUT/ab.log" | tail -30
    for tree in /tmp/base "$ROOT"; do
        { header "python3 -m astaroth bench --backend cuda --walls --sizes 256 (in $tree)"
          (cd "$tree" && PYTHONPATH=$tree timeout 60 python3 -m astaroth bench --backend cuda --walls --sizes 256 2>&1 | tail -6); } >> "$OUT/bench-walls.log" 2>&1
    done
    grep -v "^#" "$OUT/bench-walls.log"
    ;;
esac
