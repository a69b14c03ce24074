#!/usr/bin/env python3
"""The automatic SpMV plan of one bench/spmv.sh run against the oracle of another (issue #22).

    python3 bench/spmv_vs_oracle.py AUTO_RUN/spmv.json ORACLE_RUN/spmv.json > table.md

The oracle (clpk-bench-spmv --impls clpk-oracle) depends on the corpus and its seed only, so a run that re-measures
the automatic plan after a model change is set against an earlier oracle run; the oracle time taken is the smaller
of the oracle's and the new automatic plan's. cuSPARSE comes from the AUTO run (or the ORACLE run if absent).
"""
import json, math, sys
new=json.load(open(sys.argv[1])); old=json.load(open(sys.argv[2]))
def idx(d): return {(r['case'],r['precision'],r['impl']):r for r in d}
N, O = idx(new), idx(old)
rows=[]; g=[]; within=0; below=0; n=0
print("| case | prec | auto ms | plan s | oracle ms | auto/oracle | cuSPARSE ms | auto/cuSPARSE | auto params |")
print("|---|---|---:|---:|---:|---:|---:|---:|---|")
for (c,p,i),r in sorted(N.items()):
    if i!='clpk-auto': continue
    orc=O.get((c,p,'clpk-oracle'))
    peer=N.get((c,p,'cusparse')) or O.get((c,p,'cusparse'))
    peer_ms = peer['median_ms'] if peer else float('nan')
    om=min(orc['median_ms'], r['median_ms']) if orc else float('nan')
    ratio=om/r['median_ms']; vs=peer_ms/r['median_ms']
    n+=1; g.append(math.log(vs)); within += ratio>=0.909; below += vs<0.95
    pr=r['params'].replace('flag_bits=32,','').replace('sync=adjacent,skip_scan=1,transpose=offline,','')
    print(f"| {c} | {p} | {r['median_ms']:.4f} | {r['plan_s']:.2f} | {om:.4f} | {ratio:.3f} | {peer_ms:.4f} | {vs:.2f} | {pr[:70]} |")
print(f"\ngeomean auto/cuSPARSE {math.exp(sum(g)/n):.3f} over {n}; below 0.95: {below}; within 10% of oracle: {within}/{n}")
