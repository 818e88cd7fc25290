#!/usr/bin/env bash
# The device calls of 2026-11-28 (third session): shock viscosity beside the
# shearing box on the GPU (csrc/cuda/shock.cuh's passes with shifted x
# images), then notebooks/mri.ipynb with it to tens of orbits.  The extension
# is built elsewhere for the device's Python (nvcc 13.0, Python 3.12,
# ASTAROTH_PORTABLE=1) and carried as astaroth/_core.cpython-312-x86_64-linux-gnu.so,
# so that a call spends no time building.  Logs to $OUT.
#   check: the GPU tests of the shearing box and of every configuration
#          with the shear or shock viscosity; the bitwise fixture; the MRI
#          box's step with and without shock viscosity (step_cost.py)
#   mri:   notebooks/mri.ipynb for ASTAROTH_MRI_WALL seconds (default 480)
set -uo pipefail
cd "$(dirname "$0")/../../.."
ROOT=$PWD
OUT=${OUT:-device-logs}
mkdir -p "$OUT"
export PYTHONUNBUFFERED=1 PYTHONPATH=$ROOT
header() {
    echo "# device: $(nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader | head -1)"
    echo "# date: $(date -u '+%Y-%m-%d %H:%M:%S UTC')"
    echo "# commit: ${COMMIT:-unknown} (extension built at ${CARRIED_AT:-?} and carried)"
    echo "# command: $*"
}
case ${1:-check} in
check)
    tests="tests/test_shear_gpu.py tests/test_instances.py"
    { header "python3 -m pytest -q -rs -m gpu $tests; tests/test_configurations_gpu.py -k 'shear or shock'"
      timeout 200 python3 -m pytest -q -rs -p no:cacheprovider -m gpu $tests 2>&1 | tail -8
      timeout 150 python3 -m pytest -q -rs -p no:cacheprovider tests/test_configurations_gpu.py -k "shear or shock" 2>&1 | tail -4
    } > "$OUT/gpu-tests.log" 2>&1
    grep -E "passed|failed|error" "$OUT/gpu-tests.log" | tail -4
    { header "python3 scripts/make_bitwise_fixture.py cuda --compare tests/data/bitwise_cuda.npz"
      timeout 60 python3 scripts/make_bitwise_fixture.py cuda --compare tests/data/bitwise_cuda.npz 2>&1 | tail -4
    } > "$OUT/bitwise-cuda.log" 2>&1
    tail -2 "$OUT/bitwise-cuda.log"
    grep -E "^(FAILED|ERROR)" "$OUT/gpu-tests.log" | head -20
    { header "python3 benchmarks/results/2026-11-28-gpu-shear-shock/step_cost.py"
      timeout 120 python3 benchmarks/results/2026-11-28-gpu-shear-shock/step_cost.py 2>&1
    } > "$OUT/step-cost.log" 2>&1
    tail -6 "$OUT/step-cost.log"
    ;;
mri)
    COMMIT=${COMMIT:-unknown} ASTAROTH_BUILT=1 ASTAROTH_MRI_WALL=${ASTAROTH_MRI_WALL:-480} bash scripts/mri_gpu.sh "$OUT" |
        grep -vE "^\s+n = " | tail -16
    ;;
esac
