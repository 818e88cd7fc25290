#!/usr/bin/env bash
# One device call: the CFL reduction's ghost fill as one launch of the faces
# a first derivative reads (tree F = the working tree, its extension
# carried) against main (tree B, from .trees/try.tar.xz): the GPU tests
# of the runs that reduce the signal speed, then the sweep rows of both.
set -uo pipefail
ROOT=$PWD
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
export PYTHONUNBUFFERED=1
tar -xJf .trees/try.tar.xz -C /tmp
header() {
    echo "# device: $(nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader | head -1)"
    echo "# date: $(date -u '+%Y-%m-%d %H:%M:%S UTC')"
    echo "# commit: ${COMMIT:-unknown}"
    echo "# command: $*"
}
TESTS="tests/test_ensemble.py tests/test_device_cfl.py tests/test_bitwise.py tests/test_mhd.py tests/test_gpu.py tests/test_run_in_c.py"
{
    header "PYTHONPATH=$ROOT python3 -m pytest -q -rfs -m gpu $TESTS (F)"
    PYTHONPATH=$ROOT timeout 200 python3 -m pytest -q -rfs -p no:cacheprovider -m gpu $TESTS 2>&1 | tail -15
} > "$OUT/gpu-tests-F.log" 2>&1
for dtype in ${DTYPES:-float32}; do
    for t in B F; do
        path=/tmp/tryso/$t
        [ "$t" = F ] && path=$ROOT
        {
            header "PYTHONPATH=$path python3 -m astaroth bench --backend cuda --sweeps --physics all --sizes 32 64 256 --dtype $dtype --methods 55p (tree $t)"
            cd /tmp && PYTHONPATH=$path python3 -m astaroth bench --backend cuda --sweeps --physics all --sizes 32 64 256 --dtype $dtype --methods 55p 2>&1 | tail -12
            cd "$ROOT"
        } > "$OUT/sweeps-$dtype-$t.log" 2>&1
    done
done
