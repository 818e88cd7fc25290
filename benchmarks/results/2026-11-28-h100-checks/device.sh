#!/usr/bin/env bash
# The device calls of 2026-11-28: main (this tree, B) against main before the
# term-table redesign (A = 74dd058, carried as .trees/base-tree) and the one
# parameter route (branch one-params2, carried as .trees/op2-tree, C; the
# first calls carried .trees/op2v-tree, which also built D: C with its
# streaming kernel's parameter pieces one 4-byte word later, -DAC_TRY_PAD=1).
# Builds go to /tmp, so that a call soon after another finds them.  Logs to
# $OUT.
#   first: build the trees at once; every GPU test and the bitwise fixture on
#          B and C at once; scripts/ab.py over the MHD float32 rows
#   tests: build the trees; every GPU test and the bitwise fixture on B and C
#          at once, then test_gpu.py's memory test alone on each (the two
#          suites share the GPU's memory)
#   ab:    scripts/ab.py over every row of AB_TREES (default A B C);
#          bench --walls in the same trees; with SWEEPS=1 bench --sweeps
set -uo pipefail
cd "$(dirname "$0")/../../.."
ROOT=$PWD
OUT=${OUT:-device-logs}
mkdir -p "$OUT"
export PYTHONUNBUFFERED=1
header() {
    echo "# device: $(nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader | head -1)"
    echo "# date: $(date -u '+%Y-%m-%d %H:%M:%S UTC')"
    echo "# commit: B = ${COMMIT:-unknown} ($ROOT); A = 74dd058 (/tmp/base); C = one-params2 ${OP2:-} (/tmp/op2)${TREES_D:+; D = C with -DAC_TRY_PAD=1 (/tmp/op2e)}"
    echo "# command: $*"
}
declare -A TREE=([A]=/tmp/base [B]=$ROOT [C]=/tmp/op2 [D]=/tmp/op2e)
build_all() {
    [ -e /tmp/base/astaroth ] || cp -r .trees/base-tree /tmp/base
    OP2_TREE=.trees/op2-tree; [ -d .trees/op2v-tree ] && OP2_TREE=.trees/op2v-tree
    [ -e /tmp/op2/astaroth ] || cp -r $OP2_TREE /tmp/op2
    [ -n "${TREES_D:-}" ] && { [ -e /tmp/op2e/astaroth ] || cp -r $OP2_TREE /tmp/op2e; }
    t0=$(date +%s)
    for k in A B C ${TREES_D:+D}; do
        flags=""; [ $k = D ] && flags="-DAC_TRY_PAD=1"
        (cd "${TREE[$k]}" && ASTAROTH_BUILD_JOBS=4 ASTAROTH_NVCC_FLAGS="$flags" python3 setup.py build_ext --inplace > /tmp/build-$k.log 2>&1; echo "$k rc=$?") &
    done
    wait
    { header "python3 setup.py build_ext --inplace, in each tree at once (D: ASTAROTH_NVCC_FLAGS=-DAC_TRY_PAD=1)"
      echo "built in $(( $(date +%s) - t0 )) s"
      for k in A B C ${TREES_D:+D}; do ls -l ${TREE[$k]}/astaroth/_core*.so; grep -E " error" -A3 /tmp/build-$k.log | head -10; done
      for k in B C ${TREES_D:+D}; do echo "== ptxas of $k"; grep -E "Compiling entry function|Used [0-9]+ registers" /tmp/build-$k.log | paste - - | grep stream_substep_kernel_f32 | sed -E 's/.*(stream_substep_kernel_f32I[^ ]*).*Used ([0-9]+) registers.*/\1 \2/'; done
    } > "$OUT/build.log" 2>&1
    head -12 "$OUT/build.log" | grep -E "built|\.so|error"
}
gpu_tests() { # $1: tree key
    local t=${TREE[$1]}
    { header "python3 -m pytest -q -m gpu -rs tests (tree $1)"
      (cd "$t" && PYTHONPATH=$t timeout 330 python3 -m pytest -q -m gpu -rs -p no:cacheprovider tests 2>&1 | grep -v excepthook | tail -40)
      echo "# python3 scripts/make_bitwise_fixture.py cuda --compare tests/data/bitwise_cuda.npz (tree $1)"
      (cd "$t" && PYTHONPATH=$t timeout 120 python3 scripts/make_bitwise_fixture.py cuda --compare tests/data/bitwise_cuda.npz 2>&1 | tail -5)
    } > "$OUT/gpu-tests-$1.log" 2>&1
}
ab() { # $1: rounds, $2: log name, $3...: tree keys
    local rounds=$1 name=$2; shift 2
    local trees=(); for k in "$@"; do trees+=("${TREE[$k]}"); done
    { header "AB_GROUPS=$AB_GROUPS python3 scripts/ab.py $rounds ${trees[*]} (trees $*)"
      timeout ${AB_TIMEOUT:-300} python3 scripts/ab.py "$rounds" "${trees[@]}" 2>&1; } > "$OUT/$name.log" 2>&1
    grep -v "^#" "$OUT/$name.log" | tail -30
}
case "$1" in
first)
    build_all
    gpu_tests B & gpu_tests C & wait
    tail -n 3 "$OUT/gpu-tests-B.log" "$OUT/gpu-tests-C.log"
    AB_GROUPS=terms:mhd:float32 AB_TIMEOUT=150 ab 2 ab-mhd-f32 A B C D
    ;;
tests)
    build_all
    gpu_tests B & gpu_tests C & wait
    for k in B C; do
        (cd "${TREE[$k]}" && PYTHONPATH=${TREE[$k]} timeout 60 python3 -m pytest -q -p no:cacheprovider \
            tests/test_gpu.py::test_create_and_free_leaves_device_memory_where_it_was 2>&1 | tail -1 | sed "s/^/# alone: /") >> "$OUT/gpu-tests-$k.log"
    done
    tail -n 4 "$OUT/gpu-tests-B.log" "$OUT/gpu-tests-C.log"
    ;;
ab)
    build_all
    AB_GROUPS=${AB_GROUPS:-terms,19p,entropy} ab ${ROUNDS:-2} ab-all ${AB_TREES:-A B C}
    for k in ${AB_TREES:-A B C}; do
        t=${TREE[$k]}
        { header "python3 -m astaroth bench --backend cuda --walls --sizes 256 (tree $k)"
          (cd "$t" && PYTHONPATH=$t timeout 60 python3 -m astaroth bench --backend cuda --walls --sizes 256 2>&1 | tail -6); } >> "$OUT/bench-walls.log" 2>&1
    done
    grep -v "^#" "$OUT/bench-walls.log"
    if [ -n "${SWEEPS:-}" ]; then
        for k in ${AB_TREES:-A B C}; do
            t=${TREE[$k]}
            { header "python3 -m astaroth bench --backend cuda --sweeps --physics all --dtype float32 --methods 55p --sizes 256 (tree $k)"
              (cd "$t" && PYTHONPATH=$t timeout 150 python3 -m astaroth bench --backend cuda --sweeps --physics all --dtype float32 --methods 55p --sizes 256 2>&1 | tail -40); } >> "$OUT/bench-sweeps.log" 2>&1
        done
        grep -v "^# [dc]" "$OUT/bench-sweeps.log" | tail -60
    fi
    ;;
esac
