#!/bin/bash
# The logs of this directory: bench_fused.py on main (the first tree, built
# in place from `git archive main`) and on later trees, 40^3 and 64^3.
# usage: run.sh 1|default TREE... > LOG   (1: one thread, default: the default team)
set -e
here=$(dirname "$(readlink -f "$0")")
threads=$1
shift
echo "# date: $(date -u +%Y-%m-%dT%H:%MZ)"
echo "# machine: $(lscpu | grep 'Model name' | cut -d: -f2 | xargs), $(nproc) cores; $(gcc --version | head -1)"
echo "# trees: $* (branch head $(git -C "$here" rev-parse --short HEAD), main $(git -C "$here" rev-parse --short main))"
echo "# load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "# command: python bench_fused.py --trees $* --rounds 3 --seconds 1 --sizes 40 64 --threads $threads"
python "$here/bench_fused.py" --trees "$@" --rounds 3 --seconds 1 --sizes 40 64 --threads "$threads" 2>&1
echo "# load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
