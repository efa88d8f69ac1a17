# 2026-12-02T12:51Z, gpp 4a60bbf9a982 on h200 (scripts/regenerate-docs.sh; run from the checkout)
export OMP_NUM_THREADS=16 OMP_PROC_BIND=spread OMP_PLACES=threads
gpp bench inputs/si214.toml --policies v0-collapse3,v1-reciprocal,v2-branch2,v3-noabs,v4-collapse2,v5-iw-outside,v6-blocked,v7-swapped,v8-bounded,tuned --space device --repeat 5 --tuning none --csv docs/measurements/bench-si214-h200.csv
gpp bench inputs/si214.toml --policies host --space host --repeat 3 --tuning none --csv docs/measurements/bench-si214-h200-host.csv
gpp bench inputs/miniapp-benchmark.toml --policies v0-collapse3,v1-reciprocal,v2-branch2,v3-noabs,v4-collapse2,v5-iw-outside,v6-blocked,v7-swapped,v8-bounded,tuned --space device --repeat 5 --tuning none --csv docs/measurements/bench-miniapp-h200.csv
gpp bench inputs/miniapp-benchmark.toml --policies host --space host --repeat 3 --tuning none --csv docs/measurements/bench-miniapp-h200-host.csv
