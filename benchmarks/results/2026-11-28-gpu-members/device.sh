#!/usr/bin/env bash
# Ensembles of every configuration the device loop runs, in shared launches
# (csrc/cuda/members.cuh's wide member table, per-member signal-speed
# reduction and forcing).  This tree's extension (B) and main's before the
# change (A: its astaroth package and extension in .trees/try.tar.xz) were
# built elsewhere for the device's Python (nvcc 13.0, Python 3.12) and carried.
#   check: the GPU tests of ensembles and of the device loop; the bitwise
#          fixture; astaroth bench --sweeps --physics all at 32^3 and 64^3
#          (the ensembles 64 x 32^3 and 16 x 64^3) in A and B
set -uo pipefail
cd "$(dirname "$0")/../../.."
ROOT=$PWD
OUT=${OUT:-device-logs}
mkdir -p "$OUT"
export PYTHONUNBUFFERED=1
header() {
    echo "# device: $(nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader | head -1)"
    echo "# date: $(date -u '+%Y-%m-%d %H:%M:%S UTC')"
    echo "# commit: B = ${COMMIT:-unknown} (extension carried); A = ${BASE:-main before} (/tmp/t-A)"
    echo "# command: $*"
}
case ${1:-check} in
check)
    rm -rf /tmp/tryso /tmp/main-src /tmp/t-A
    tar -C /tmp -xJf .trees/try.tar.xz
    mkdir -p /tmp/t-A && cp -r /tmp/main-src/astaroth /tmp/t-A/ && cp /tmp/tryso/B.so /tmp/t-A/astaroth/_core.cpython-312-x86_64-linux-gnu.so
    { header "python3 -m pytest -q -rs -m gpu tests/test_ensemble.py tests/test_device_cfl.py"
      PYTHONPATH=$ROOT timeout 150 python3 -m pytest -q -rs -p no:cacheprovider -m gpu tests/test_ensemble.py tests/test_device_cfl.py 2>&1 | tail -15
    } > "$OUT/gpu-tests.log" 2>&1
    grep -E "passed|failed|error" "$OUT/gpu-tests.log" | tail -3
    grep -E "^(FAILED|ERROR)" "$OUT/gpu-tests.log" | head -12
    { header "python3 scripts/make_bitwise_fixture.py cuda --compare tests/data/bitwise_cuda.npz"
      PYTHONPATH=$ROOT timeout 40 python3 scripts/make_bitwise_fixture.py cuda --compare tests/data/bitwise_cuda.npz 2>&1 | tail -3
    } > "$OUT/bitwise-cuda.log" 2>&1
    tail -1 "$OUT/bitwise-cuda.log"
    for k in A B; do
        t=$ROOT; [ $k = A ] && t=/tmp/t-A
        { header "python3 -m astaroth bench --backend cuda --sweeps --physics all --sizes 32 64 --dtype float32 (tree $k)"
          (cd $t && PYTHONPATH=$t timeout ${BENCH_TIMEOUT:-130} python3 -m astaroth bench --backend cuda --sweeps --physics all --sizes 32 64 --dtype float32 2>&1 | tail -12)
        } > "$OUT/bench-sweeps-$k.log" 2>&1
        grep -vE "^# (device|date|commit|command)" "$OUT/bench-sweeps-$k.log"
    done
    ;;
esac
