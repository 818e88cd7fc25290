#!/bin/bash
# Microseconds per grid point and RK3 step, one core, 64^3 float64: the
# Pencil Code's run directories (RUNS/<physics>64, made from pencil/ here,
# their own 'Wall clock time/timestep/meshpoint' over nt=200 steps) against
# astaroth's CPU backend on the same problem (ours.py, 200 steps of
# Grid.step), interleaved: every round runs each physics' Pencil and ours
# back to back.  A pair is "LABEL:PENCIL_RUNS_DIR:ASTAROTH_TREE" (the tree
# on PYTHONPATH, a built extension in it); several pairs are interleaved
# round by round (e.g. an AVX-512 and an AVX2 build of both codes).
# usage: compare.sh ROUNDS "PHYSICS..." PAIR... > LOG   (physics: hydro mhd entropy mhdentropy)
set -e
rounds=$1; physics=$2; shift 2
here=$(cd "$(dirname "$0")" && pwd)
export OMP_NUM_THREADS=1
echo "# date: $(date -u +%Y-%m-%dT%H:%MZ); machine: $(lscpu | grep 'Model name' | cut -d: -f2 | xargs), $(nproc --all) cores;" \
     "$(grep -o 'avx512f\|avx2' /proc/cpuinfo | sort -u | xargs)"
echo "# rounds: $rounds; physics: $physics"
for pair in "$@"; do
    IFS=: read -r label runs tree <<< "$pair"
    echo "# $label: Pencil runs $runs ($(grep -o "'FFLAGS=[^']*'" "$runs/hydro64/build.log" | head -1));" \
         "astaroth $tree ($(git -C "$tree" rev-parse --short HEAD 2>/dev/null || echo 'not a git tree'))"
done
echo "# load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
for r in $(seq "$rounds"); do
    for phys in $physics; do
        for pair in "$@"; do
            IFS=: read -r label runs tree <<< "$pair"
            p=$(cd "$runs/${phys}64" && ./src/run.x > run.log 2>&1 &&
                grep "^ *Wall clock time/timestep/meshpoint" run.log | sed 's/.*= *//' | xargs)
            a=$(cd / && PYTHONPATH=$tree /tmp/venv/bin/python "$here/ours.py" "$phys" 200)
            echo "round $r $phys $label: pencil $p ours $a us/pt/step (load $(cut -d' ' -f1 /proc/loadavg))"
        done
    done
done
echo "# load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
