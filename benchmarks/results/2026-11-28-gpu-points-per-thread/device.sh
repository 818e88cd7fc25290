#!/usr/bin/env bash
# One device call for register blocking (points a thread along x), its
# three stages at once on three GPUs of one host: the branch's GPU tests
# (GPU 2), bench rows of the base A and the branch K interleaved over two
# rounds (GPU 0), and ncu of the streaming substep in each (GPU 1).
# Run from the repository root; logs to $OUT.  Trees (built for the
# device's Python 3.12, carried in .trees/try.tar.xz):
#   /tmp/tryso/A = main 748a354 (the base), /tmp/tryso/K = kernel-points
#   b959717 (main merged in), each a whole tree with its extension built.
set -uo pipefail
cd "$(dirname "$0")/../../.."
HERE=$PWD/benchmarks/results/2026-11-28-gpu-points-per-thread
OUT=${OUT:-device-logs}
mkdir -p "$OUT" /tmp/tryso
export PYTHONUNBUFFERED=1
[ -d /tmp/tryso/K/astaroth ] || tar -xJf .trees/try.tar.xz -C /tmp/tryso
declare -A COMMIT=([A]=$(cat /tmp/tryso/A/COMMIT) [K]=$(cat /tmp/tryso/K/COMMIT))
header() { # $1: tree, $2: GPU, rest: command
    local t=$1 g=$2; shift 2
    echo "# device: $(nvidia-smi -i "$g" --query-gpu=name,memory.total,driver_version --format=csv,noheader)"
    echo "# date: $(date -u '+%Y-%m-%d %H:%M:%S UTC')"
    echo "# commit: $t = ${COMMIT[$t]} (/tmp/tryso/$t), CUDA_VISIBLE_DEVICES=$g"
    echo "# command: $*"
}
NCU=$(command -v ncu || ls /usr/local/cuda/bin/ncu /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -1)
tests() {
    local cmd="python3 -m pytest -q -rs -p no:cacheprovider -m gpu tests/test_bitwise.py tests/test_gpu.py tests/test_device_cfl.py tests/test_ensemble.py tests/test_configurations_gpu.py"
    { header K 2 "$cmd"; (cd /tmp/tryso/K && CUDA_VISIBLE_DEVICES=2 PYTHONPATH=/tmp/tryso/K timeout 420 $cmd 2>&1 | tail -40); } > "$OUT/gpu-tests-K.log" 2>&1
}
bench() {
    for round in 1 2; do
        for t in A K; do
            for physics in hydro mhd entropy; do
                local cmd="python3 -m astaroth bench --backend cuda --sizes 256 --dtype float32 float64 --methods 55p"
                [ $physics = mhd ] && cmd="$cmd --physics mhd"
                [ $physics = entropy ] && cmd="$cmd --energy entropy --physics all" # hydro and MHD with entropy
                { header $t 0 "$cmd (round $round)"; (cd /tmp/tryso/$t && CUDA_VISIBLE_DEVICES=0 PYTHONPATH=/tmp/tryso/$t timeout 150 $cmd 2>&1 | tail -12); } >> "$OUT/bench-$physics.log" 2>&1
            done
        done
    done
}
profile() {
    for t in K A; do
        local cmd="$NCU --set full --kernel-name regex:stream_substep --launch-skip 6 --launch-count 1 python3 $HERE/ncu_run.py /tmp/tryso/$t"
        { header $t 1 "$cmd"; (cd /tmp && CUDA_VISIBLE_DEVICES=1 timeout 200 $cmd 2>&1 | tail -400); } > "$OUT/ncu-hydro-f32-$t.log" 2>&1
    done
}
tests & bench & profile & wait
tail -3 "$OUT/gpu-tests-K.log"
grep -h -E "commit|astaroth|M/s|Mup" "$OUT"/bench-*.log | tail -60
for t in K A; do grep -E "Duration|Registers Per|Achieved Occupancy|Executed Ipc A|Block Limit" "$OUT/ncu-hydro-f32-$t.log" | head -8; done
