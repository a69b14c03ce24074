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
                           timeout=20)
        for line in r.stderr.splitlines():
            if 'Compiling' in line or 'registers' in line or 'spill' in line:
                print('  ', line.strip())
    except Exception as e:
        print('  ptxas:', e)
