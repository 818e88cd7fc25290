#!/usr/bin/env bash
# One call on 4 GPUs of one host: main's split-grid exchange (one round of
# messages, field-to-field copies) tested and timed against the exchange axis
# by axis (A = 748a354), in the same call.  Trees built for the device's
# Python 3.12, carried in .trees/try.tar.xz: /tmp/tryso/A and /tmp/tryso/$NEW.
# Run from the repository root; logs to $OUT.
set -uo pipefail
cd "$(dirname "$0")/../../.."
OUT=${OUT:-device-logs}
mkdir -p "$OUT" /tmp/tryso
export PYTHONUNBUFFERED=1
NEW=${NEW:-M}
HERE=$PWD/benchmarks/results/2026-11-28-gpu-x4-final
PREV=$PWD/benchmarks/results/2026-11-28-gpu-x4-messages
NGPU=$(nvidia-smi -L | wc -l)
[ -d /tmp/tryso/$NEW/astaroth ] || tar -xJf .trees/try.tar.xz -C /tmp/tryso
MPIRUN="mpirun --allow-run-as-root --oversubscribe --bind-to none"
header() {
    echo "# device: $(nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader | sort | uniq -c | tr -s ' ')"
    echo "# date: $(date -u '+%Y-%m-%d %H:%M:%S UTC')"
    echo "# commit: $1 = $(cat /tmp/tryso/$1/COMMIT)"
    echo "# command: ${*:2}"
}
in_tree() { # tree log timeout cmd...
    local t=$1 log=$2 limit=$3; shift 3
    { header $t "$*"; (cd /tmp/tryso/$t && PYTHONPATH=/tmp/tryso/$t timeout $limit "$@" 2>&1 | tail -${TAIL:-3}); } >> "$OUT/$log" 2>&1
}
if [[ " ${STAGES:-tests scaling snapshot} " == *" tests "* ]]; then
    TAIL=30 in_tree $NEW gpu-tests.log 300 python3 -m pytest -q -rs -p no:cacheprovider -m gpu tests/test_mpi_gpu.py
    tail -n 2 "$OUT/gpu-tests.log"
    for ex in auto host; do in_tree $NEW check.log 90 $MPIRUN -np $NGPU python3 scripts/scaling.py check $ex; done
    grep -E "^check" "$OUT/check.log"
fi
if [[ " ${STAGES:-tests scaling snapshot} " == *" scaling "* ]]; then
    run() { local t=$1 n=$2; shift 2; in_tree $t scaling.log 120 $MPIRUN -np $n python3 scripts/scaling.py "$@"; }
    for args in "weak 256 float32 hydro" "weak 256 float64 hydro" "weak 256 float32 mhd+entropy" "weak 256 float64 mhd+entropy"; do
        run $NEW 1 $args; run A $NGPU $args; run $NEW $NGPU $args
    done
    for n in 512 1024; do
        args="strong $n float32 hydro"
        run $NEW 1 $args; run A $NGPU $args; run $NEW $NGPU $args; run $NEW $NGPU $args step 1x1x$NGPU
    done
    run A 2 strong 512 float32 hydro; run $NEW 2 strong 512 float32 hydro
    for args in "weak 256 float32 hydro run" "weak 256 float32 mhd+entropy run" "strong 512 float32 hydro run"; do
        run $NEW 1 $args; run $NEW $NGPU $args
    done
    for physics in hydro mhd+entropy; do
        in_tree $NEW phases.log 120 $MPIRUN -np $NGPU python3 $PREV/phases.py 256 float32 $physics
    done
    grep -E "^weak|^strong|^phases|Error|error" "$OUT/scaling.log" "$OUT/phases.log"; true
fi
if [[ " ${STAGES:-tests scaling snapshot} " == *" snapshot "* ]] && [ $NGPU -ge 4 ]; then
    mkdir -p /tmp/snap; df -h /tmp | tail -1 > "$OUT/snapshot1024.log"
    TAIL=5 in_tree $NEW snapshot1024.log 240 $MPIRUN -np 4 python3 $PREV/snapshot1024.py /tmp/snap/big.h5
    rm -rf /tmp/snap; tail -2 "$OUT/snapshot1024.log"
fi
# STAGES=shock: the split GPU tests (shock viscosity among them) and the one-GPU shock tests of $NEW, then
# `astaroth bench` rows of A and $NEW one after the other on the same GPU, a row a GPU, four at once.
if [[ " ${STAGES:-} " == *" shock "* ]]; then
    TAIL=40 in_tree $NEW gpu-tests.log 400 python3 -m pytest -q -rs -p no:cacheprovider -m gpu tests/test_mpi_gpu.py
    tail -n 2 "$OUT/gpu-tests.log"
    TAIL=10 CUDA_VISIBLE_DEVICES=0 in_tree $NEW gpu-tests-one.log 300 python3 -m pytest -q -rs -p no:cacheprovider -k "shock or shear" tests/test_gpu.py tests/test_shear_gpu.py tests/test_bitwise.py
    tail -n 2 "$OUT/gpu-tests-one.log"
    rows=("--sizes 256 --methods 55p" "--physics mhd --sizes 256" "--terms --physics all --sizes 256"
          "--energy entropy --sizes 256" "--walls --sizes 256" "--sweeps --dtype float32 --methods 55p")
    for i in "${!rows[@]}"; do
        gpu=$((i % NGPU))
        ( for t in A $NEW; do
              CUDA_VISIBLE_DEVICES=$gpu TAIL=14 in_tree $t bench-$i.log 200 python3 -m astaroth bench --backend cuda ${rows[$i]}
          done ) &
        [ $(( (i + 1) % NGPU )) -eq 0 ] && wait
    done
    wait
    for i in "${!rows[@]}"; do cat "$OUT/bench-$i.log"; done > "$OUT/bench.log"; rm -f "$OUT"/bench-*.log
    grep -vE "^# (device|date)" "$OUT/bench.log" | tail -n 120
fi
# STAGES=reduce: one-GPU tests of the CFL loops and ensembles on GPU 0 beside the split tests on the others,
# then A and $NEW one after the other on the same GPU: bench rows (a row a GPU), a forced sim.run, and the
# parts of a split run's CFL step on every GPU.
if [[ " ${STAGES:-} " == *" reduce "* ]]; then
    ( CUDA_VISIBLE_DEVICES=0 TAIL=12 in_tree $NEW gpu-tests-one.log 260 python3 -m pytest -q -rs -p no:cacheprovider -m gpu tests/test_gpu.py tests/test_device_cfl.py tests/test_run_in_c.py tests/test_ensemble.py ) &
    CUDA_VISIBLE_DEVICES=1,2,3 TAIL=12 in_tree $NEW gpu-tests.log 260 python3 -m pytest -q -rs -p no:cacheprovider -m gpu tests/test_mpi_gpu.py -k "one_round and (z or xyz)"
    wait
    in_tree $NEW check.log 90 $MPIRUN -np $NGPU python3 scripts/scaling.py check auto
    tail -n 2 "$OUT/gpu-tests-one.log" "$OUT/gpu-tests.log"; grep -E "^check" "$OUT/check.log"
    rows=("--sizes 256 --methods 55p" "--sweeps --dtype float32 --methods 55p")
    for i in "${!rows[@]}"; do
        ( for t in A $NEW; do
              CUDA_VISIBLE_DEVICES=$i TAIL=12 in_tree $t bench-$i.log 150 python3 -m astaroth bench --backend cuda ${rows[$i]}
          done ) &
    done
    ( for t in A $NEW; do for n in 256 64; do
          CUDA_VISIBLE_DEVICES=2 in_tree $t forced.log 60 python3 $HERE/forced_run.py $n float32
      done; done ) &
    wait
    for i in "${!rows[@]}"; do cat "$OUT/bench-$i.log"; done > "$OUT/bench.log"; rm -f "$OUT"/bench-*.log
    for t in A $NEW; do in_tree $t parts.log 90 $MPIRUN -np $NGPU python3 $HERE/run_step_parts.py 256 float32; done
    grep -vE "^# (device|date)" "$OUT/bench.log" | grep -E "^# commit|astaroth cuda|sim.run|Ensemble|loop"
    grep -E "^# commit|^forced|^run step" "$OUT/forced.log" "$OUT/parts.log"
fi
# STAGES=run: sim.run's CFL steps on split grids (scaling.py ... run), A and $NEW in one call.
if [[ " ${STAGES:-} " == *" run "* ]]; then
    in_tree $NEW check.log 90 $MPIRUN -np $NGPU python3 scripts/scaling.py check auto
    grep -E "^check" "$OUT/check.log"
    for args in "weak 256 float32 hydro run" "weak 256 float32 mhd+entropy run" "strong 512 float32 hydro run"; do
        in_tree $NEW scaling.log 120 $MPIRUN -np 1 python3 scripts/scaling.py $args
        for t in A $NEW; do in_tree $t scaling.log 120 $MPIRUN -np $NGPU python3 scripts/scaling.py $args; done
    done
    grep -E "^# commit|^weak|^strong" "$OUT/scaling.log"
fi
