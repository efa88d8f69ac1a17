# 2026-12-02T12:53Z, gpp 4a60bbf9a982 on h200 (scripts/regenerate-docs.sh; run from the checkout)
export OMP_NUM_THREADS=16 OMP_PROC_BIND=spread OMP_PLACES=threads
# the ceilings read, as measured earlier:
# 2026-12-02T12:51Z, gpp 4a60bbf9a982 on h200 (scripts/regenerate-docs.sh; run from the checkout)
gpp ceilings --space device --json docs/roofline/ceilings-h200.json
gpp ceilings --space host --json docs/roofline/ceilings-h200-host.json
gpp roofline inputs/si214.toml --policy v0-collapse3,v1-reciprocal,v2-branch2,v3-noabs,v4-collapse2,v5-iw-outside,v6-blocked,v7-swapped,v8-bounded,tuned --space device --repeat 3 --tuning none --ncu auto --ceilings docs/roofline/ceilings-h200.json --csv docs/roofline/roofline-si214-h200.csv
python3 tools/gpp_plot.py path --deck si214 --csv docs/roofline/roofline-si214-h200.csv --ceilings docs/roofline/ceilings-h200.json --out docs/roofline/path-si214-h200 --formats png,svg
python3 tools/gpp_plot.py times --deck si214 --csv docs/roofline/roofline-si214-h200.csv --paper --out docs/roofline/times-si214-h200 --formats png,svg
python3 tools/gpp_plot.py roofline --deck si214 --csv docs/roofline/roofline-si214-h200.csv --ceilings docs/roofline/ceilings-h200.json --policy tuned --out docs/roofline/roofline-tuned-si214-h200 --formats png,svg
python3 tools/gpp_plot.py roofline --deck si214 --csv docs/roofline/roofline-si214-h200.csv --ceilings docs/roofline/ceilings-h200.json --policy v8-bounded --out docs/roofline/roofline-v8-bounded-si214-h200 --formats png,svg
python3 tools/gpp_plot.py roofline --deck si214 --csv docs/roofline/roofline-si214-h200.csv --ceilings docs/roofline/ceilings-h200.json --policy v0-collapse3 --out docs/roofline/roofline-v0-collapse3-si214-h200 --formats png,svg
