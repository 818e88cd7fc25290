#!/usr/bin/env bash
# The device calls for the device's CFL loop of every configuration (forcing
# drawn ahead, entropy and the scalar, CUDA graphs): this tree (B) against
# main before the change (A, 70e1f9b, carried as .trees/base-tree and built
# in /tmp/base).  Logs to $OUT.
#   check: build B, every GPU test, the CUDA bit-for-bit fixture compared
#          (and made again into $OUT when it differs), sweep_rates.py in B
#   loops: build B; loop_rates.py (the host's loop, the device's, in graphs or not) in B
#   ab:    build B then A; the GPU tests of the loops; scripts/ab.py's rows
#          and the walls bench in both trees
#   sweeps: (warm, after ab) sweep_rates.py in both trees, loop_rates.py in B
#   final: build B; the GPU tests of the loops, loop_rates.py and sweep_rates.py in B
set -uo pipefail
cd "$(dirname "$0")/../../.."
ROOT=$PWD
OUT=${OUT:-device-logs}
mkdir -p "$OUT"
export PYTHONUNBUFFERED=1
HERE=benchmarks/results/2026-11-27-h100-device-loop
SWEEPS=benchmarks/results/2026-11-27-h100-run-in-c/sweep_rates.py
header() {
    echo "# device: $(nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader | head -1)"
    echo "# date: $(date -u '+%Y-%m-%d %H:%M:%S UTC')"
    echo "# commit: A = 70e1f9b (/tmp/base), B = ${COMMIT:-unknown} ($ROOT)"
    echo "# command: $*"
}
build_b() {
    { header "python3 setup.py build_ext --inplace (B)"
      python3 setup.py build_ext --inplace > /tmp/b-build.log 2>&1
      grep -E "error|forcing_sample" -A2 /tmp/b-build.log | head -40
      ls -l astaroth/_core*.so; } > "$OUT/build-b.log" 2>&1
}
rates() { # sweep_rates.py in the trees given
    for tree in "$@"; do
        { header "python3 $SWEEPS (in $tree)"
          (cd "$tree" && PYTHONPATH=$tree timeout 150 python3 "$ROOT/$SWEEPS" 2>&1); } >> "$OUT/sweep-rates.log" 2>&1
    done
}
case "$1" in
check)
    build_b
    { header "pytest -q -m gpu (B)"
      PYTHONPATH=$ROOT timeout 300 python3 -m pytest -q -m gpu -p no:cacheprovider 2>&1 | tail -25; } > "$OUT/gpu-tests.log" 2>&1
    { header "python3 scripts/make_bitwise_fixture.py cuda --compare tests/data/bitwise_cuda.npz"
      PYTHONPATH=$ROOT python3 scripts/make_bitwise_fixture.py cuda --compare tests/data/bitwise_cuda.npz 2>&1 | tail -40 ||
      PYTHONPATH=$ROOT python3 scripts/make_bitwise_fixture.py cuda "$OUT/bitwise_cuda.npz"; } > "$OUT/bitwise-cuda.log" 2>&1
    rates "$ROOT"
    tail -4 "$OUT/gpu-tests.log"; tail -3 "$OUT/bitwise-cuda.log"; grep -v "^#" "$OUT/sweep-rates.log" ;;
loops)
    build_b
    { header "python3 $HERE/loop_rates.py (B)"
      PYTHONPATH=$ROOT timeout 420 python3 "$HERE/loop_rates.py" 2>&1; } > "$OUT/loop-rates.log" 2>&1
    grep -v "^#" "$OUT/loop-rates.log" ;;
ab)
    # builds of B and A, the GPU tests of the loops, scripts/ab.py's kernel rows and the walls bench
    rm -rf /tmp/base && cp -r .trees/base-tree /tmp/base
    build_b
    (cd /tmp/base && python3 setup.py build_ext --inplace > /tmp/base-build.log 2>&1); ls -l /tmp/base/astaroth/_core*.so >> "$OUT/build-b.log"
    { header "pytest -q -m gpu tests/test_run_in_c.py tests/test_device_cfl.py tests/test_ensemble.py tests/test_bitwise.py tests/test_forcing.py (B)"
      PYTHONPATH=$ROOT timeout 150 python3 -m pytest -q -m gpu -p no:cacheprovider tests/test_run_in_c.py tests/test_device_cfl.py \
          tests/test_ensemble.py tests/test_bitwise.py tests/test_forcing.py 2>&1 | tail -15; } > "$OUT/gpu-tests-loops.log" 2>&1
    { header "AB_GROUPS=${AB_GROUPS:-terms,entropy} python3 scripts/ab.py 2 /tmp/base $ROOT"
      AB_GROUPS=${AB_GROUPS:-terms,entropy} timeout 150 python3 scripts/ab.py 2 /tmp/base "$ROOT" 2>&1; } > "$OUT/ab.log" 2>&1
    for tree in /tmp/base "$ROOT"; do
        { header "python3 -m astaroth bench --backend cuda --walls --sizes 256 (in $tree)"
          (cd "$tree" && PYTHONPATH=$tree timeout 40 python3 -m astaroth bench --backend cuda --walls --sizes 256 2>&1 | tail -8); } >> "$OUT/bench-walls.log" 2>&1
    done
    tail -4 "$OUT/gpu-tests-loops.log"; tail -14 "$OUT/ab.log"; grep -v "^# d\|^# c" "$OUT/bench-walls.log" ;;
sweeps)
    # on the machine the ab stage left warm: sweep_rates.py in A and B, loop_rates.py in B
    rates /tmp/base "$ROOT"
    { header "python3 $HERE/loop_rates.py ${LOOPS:-hydro mhd} (B)"
      PYTHONPATH=$ROOT timeout 150 python3 "$HERE/loop_rates.py" ${LOOPS:-hydro mhd} 2>&1; } > "$OUT/loop-rates.log" 2>&1
    grep -v "^# d\|^# c" "$OUT/sweep-rates.log"; grep -v "^#" "$OUT/loop-rates.log" ;;
final)
    # B alone (its shock instances' PTX is A's again): the GPU tests of the loops, loop_rates.py, sweep_rates.py
    build_b
    { header "pytest -q -m gpu tests/test_run_in_c.py tests/test_device_cfl.py tests/test_ensemble.py tests/test_bitwise.py tests/test_forcing.py (B)"
      PYTHONPATH=$ROOT timeout 150 python3 -m pytest -q -m gpu -p no:cacheprovider tests/test_run_in_c.py tests/test_device_cfl.py \
          tests/test_ensemble.py tests/test_bitwise.py tests/test_forcing.py 2>&1 | tail -15; } > "$OUT/gpu-tests-loops.log" 2>&1
    { header "python3 $HERE/loop_rates.py (B)"
      PYTHONPATH=$ROOT timeout 200 python3 "$HERE/loop_rates.py" 2>&1; } > "$OUT/loop-rates.log" 2>&1
    rates "$ROOT"
    tail -3 "$OUT/gpu-tests-loops.log"; grep -v "^#" "$OUT/loop-rates.log"; grep -v "^#" "$OUT/sweep-rates.log" ;;
esac
