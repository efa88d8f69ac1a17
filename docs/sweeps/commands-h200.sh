# 2026-12-02T12:59Z, gpp 4a60bbf9a982 on h200 (scripts/regenerate-docs.sh; run from the checkout)
export OMP_NUM_THREADS=16 OMP_PROC_BIND=spread OMP_PLACES=threads
gpp sweep inputs/si214.toml --policy tuned --band-block 16,32,64,96,128 --team-size 32,64,128 --repeat 3 --csv docs/sweeps/sweep-si214-tuned-h200.csv --tuning-out docs/sweeps/tuning-h200.json
gpp sweep inputs/si214.toml --policy v8-bounded --band-block 32,64,128 --team-size 128,256,512 --repeat 3 --csv docs/sweeps/sweep-si214-v8-h200.csv
gpp sweep inputs/miniapp-benchmark.toml --policy tuned --band-block 16,32,64,96,128 --team-size 32,64,128 --repeat 3 --csv docs/sweeps/sweep-miniapp-tuned-h200.csv --tuning-out docs/sweeps/tuning-h200.json
gpp sweep inputs/miniapp-benchmark.toml --policy host --space host --band-block 16,32,64 --ig-block 128,256,512,1024 --repeat 1 --warmup 0 --csv docs/sweeps/sweep-miniapp-host-h200.csv --tuning-out docs/sweeps/tuning-h200.json
python3 tools/gpp_plot.py sweep-heatmap --csv docs/sweeps/sweep-si214-tuned-h200.csv --policy tuned --out docs/sweeps/heatmap-si214-tuned-h200
python3 tools/gpp_plot.py sweep-heatmap --csv docs/sweeps/sweep-si214-v8-h200.csv --policy v8-bounded --out docs/sweeps/heatmap-si214-v8-h200
python3 tools/gpp_plot.py sweep-heatmap --csv docs/sweeps/sweep-miniapp-tuned-h200.csv --policy tuned --out docs/sweeps/heatmap-miniapp-tuned-h200
python3 tools/gpp_plot.py sweep-heatmap --csv docs/sweeps/sweep-miniapp-host-h200.csv --policy host --out docs/sweeps/heatmap-miniapp-host-h200
python3 tools/gpp_plot.py sweep-lines --csv docs/sweeps/sweep-si214-tuned-h200.csv --policy tuned --out docs/sweeps/lines-si214-tuned-h200
