#!/bin/bash
# loadtest.py for hydro and MHD, the default team and one thread, quiet and
# with one other busy process (`yes > /dev/null`), interleaved, 2 rounds.
cd "$(dirname "$0")"
echo "# machine: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), $(nproc) cores; date: $(date -u '+%Y-%m-%d %H:%M UTC'); commit: $(git rev-parse --short HEAD)"
echo "# command: bash loadtest.sh (python loadtest.py PHYSICS THREADS; M/s of four 1.5-s batches)"
for state in quiet loaded; do
    echo "## $state (load average $(cut -d' ' -f1-3 /proc/loadavg))"
    [ $state = loaded ] && { yes > /dev/null & busy=$!; }
    for round in 1 2; do
        for physics in hydro mhd; do
            python loadtest.py $physics 0
            python loadtest.py $physics 1
        done
    done
    [ $state = loaded ] && kill $busy
done
