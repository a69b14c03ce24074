#!/usr/bin/env bash
# session 21, call 3: CSR row sums four entries at a time. The held-out SpMV corpus with the automatic plan (shipped
# H200 profile) and the CSR row kernels as variants, this library; the short-row matrices' CSR variants with the
# previous library (.gpu/s21/old) in the same call; the fair cuSPARSE peer on the same data. Then ptxas -v over the
# programs the run cached (registers, spills) for the record.
set -u
. .gpu/enter
BASE_LD=$LD_LIBRARY_PATH
NEW=$PWD/.gpu/build OLD=$PWD/.gpu/s21/old
export LD_LIBRARY_PATH=$NEW:$BASE_LD CLPK_CACHE_DIR=/tmp/clpk-cache
B=.gpu/build/bin
R=/tmp/res; mkdir -p $R
t0=$(date +%s)
left() { local l=$(( ${1:-${LIMIT:-560}} - ($(date +%s) - t0) )); [ $l -lt 1 ] && l=1; echo $l; }
stamp() { echo "$(( $(date +%s) - t0 )) s: $*" | tee -a $R/steps.log; }
stamp start
M=$PWD/.gpu/data/matrices
specs=()
while read -r label spec; do
    case "$label" in ''|'#'*) continue ;; esac
    specs+=(--spec "$label=${spec//MATRICES/$M}")
done < bench/spmv_corpus.txt
N=$(mktemp -d)
timeout $(left 300) $B/clpk-bench-spmv --cases none --impls clpk-auto "${specs[@]}" \
    --variant csr1=format=csr,csr_vec=1 --variant csr4=format=csr,csr_vec=4 \
    --npy-dir $N --json $R/spmv-clpk.json > $R/spmv-clpk.txt 2>&1
stamp "spmv new rc $?"
short=()
for l in zeniosx800 bayer10x200 stencil3d cryg2500x1200 pdx1000 rajat01x400 lp_e226x3000; do
    for ((i = 1; i < ${#specs[@]}; i += 2)); do [[ ${specs[$i]} == $l=* ]] && short+=(--spec "${specs[$i]}"); done
done
LD_LIBRARY_PATH=$OLD:$BASE_LD timeout $(left 400) $B/clpk-bench-spmv --cases none --impls none "${short[@]}" \
    --variant csr1=format=csr,csr_vec=1 --variant csr4=format=csr,csr_vec=4 \
    --json $R/spmv-old.json > $R/spmv-old.txt 2>&1
stamp "spmv old rc $?"
timeout $(left 520) python3 bench/peers/cusparse_spmv.py $N/* --precision f32,f64 --json $R/spmv-peer.json \
    > $R/spmv-peer.txt 2>&1
stamp "spmv peer rc $?"
python3 bench/spmv_report.py --clpk $R/spmv-clpk.json --peer $R/spmv-peer.json --out $R/spmv.json \
    --markdown $R/spmv.md > $R/spmv-report.log 2>&1
rm -rf $N
mkdir -p /tmp/ptx; export PATH=$PATH:/usr/local/cuda/bin; ls -d /usr/local/cuda*/bin/ptxas > $R/ptxas-where.txt 2>&1
python3 - <<'PY' > $R/ptxas.txt 2>&1
import glob, os, re, struct, subprocess
for f in sorted(glob.glob('/tmp/clpk-cache/*.clbin')):
    b = open(f, 'rb').read()
    i = b.find(b'.version')
    if not b.startswith(b'CLPKBIN1') or i < 0:
        continue
    klen = struct.unpack('<I', b[8:12])[0]
    key = b[12:12 + klen].decode('latin1')
    ptx = b[i:].rstrip(b'\0')
    out = '/tmp/ptx/' + os.path.basename(f) + '.ptx'
    open(out, 'wb').write(ptx)
    entries = re.findall(rb'\.entry\s+(\w+)', ptx)
    opts = ' '.join(t for t in key.split() if t.startswith('-D'))[:400]
    print('==', os.path.basename(f), opts)
    try:
        r = subprocess.run(['ptxas', '-arch=sm_90', '-v', out, '-o', '/dev/null'], capture_output=True, text=True,
                           timeout=30)
        for line in r.stderr.splitlines():
            if 'Compiling' in line or 'registers' in line or 'spill' in line:
                print('  ', line.strip())
    except Exception as e:
        print('  ptxas:', e)
PY
stamp "ptxas done"
tar czf $OUT/results.tgz -C $R .
cat $R/steps.log
grep -E "csr1|csr4" $R/spmv-old.txt | cut -c1-80
grep -E "csr1|csr4|clpk-auto" $R/spmv-clpk.txt | cut -c1-110
head -c 1500 $R/ptxas.txt
