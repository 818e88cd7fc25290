#!/usr/bin/env bash
# One device call: forced members in shared launches (tree B = the working
# tree, its extension carried), the GPU ensemble tests, the members against
# their solo runs field by field (tree D: B with every configuration allowed
# to share launches, to find why MHD+entropy in double did not), and the
# sweep rows of main (A) and B, interleaved (SWEEPS_ONLY=1: those alone;
# DTYPES: their precisions).  Tree A (and D) come in .trees/try.tar.xz
# (astaroth/*.py and the extension built for this Python).
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
if [ "${SWEEPS_ONLY:-0}" != 1 ]; then
    {
        header "python3 -m pytest -q -rs -m gpu tests/test_ensemble.py tests/test_device_cfl.py tests/test_bitwise.py (B)"
        python3 -m pytest -q -rs -p no:cacheprovider -m gpu tests/test_ensemble.py tests/test_device_cfl.py tests/test_bitwise.py 2>&1 | tail -40
    } > "$OUT/gpu-tests-B.log" 2>&1
    {
        header "REPO=$ROOT PYTHONPATH=/tmp/tryso/D python3 members_against_solo.py (D)"
        cd /tmp && REPO=$ROOT PYTHONPATH=/tmp/tryso/D timeout 200 python3 "$ROOT/benchmarks/results/2026-11-28-gpu-forced-members/members_against_solo.py" \
            mhd-entropy:float64 mhd-entropy:float32 mhd:float64 entropy:float64 2>&1 | tail -80
        cd "$ROOT"
    } > "$OUT/members-against-solo-D.log" 2>&1
fi
for dtype in ${DTYPES:-float32}; do
    for round in ${ROUNDS:-1 2}; do
        for t in A B; do
            path=/tmp/tryso/$t
            [ "$t" = B ] && path=$ROOT
            {
                header "PYTHONPATH=$path python3 -m astaroth bench --backend cuda --sweeps --physics all --sizes 32 64 256 --dtype $dtype --methods 55p (tree $t, round $round)"
                cd /tmp && PYTHONPATH=$path python3 -m astaroth bench --backend cuda --sweeps --physics all --sizes 32 64 256 --dtype $dtype --methods 55p 2>&1 | tail -30
                cd "$ROOT"
            } > "$OUT/sweeps-$dtype-$t-round$round.log" 2>&1
        done
    done
done
