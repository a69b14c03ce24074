import json, collections, sys
R = sys.argv[1]
res = collections.defaultdict(dict)
for lib in ['main', 'prune', 'walk', 'both', 'both2', 'walk2', 'prune2', 'main2']:
    for suf in ['', '-f64', '-ntom']:
        try:
            for l in open('%s/%s%s.jsonl' % (R, lib, suf)):
                d = json.loads(l)
                if d.get('n_out', 0) >= 1000 and 'median_ms' in d:
                    res[d['case'] + ' ' + d['precision']][lib] = d['median_ms']
        except OSError:
            pass
for c, v in res.items():
    h = min(v.get('main', 1e9), v.get('main2', 1e9))
    print('%-28s' % c, ' '.join('%s=%.3f(%.3f)' % (k, x, h / x if x else 0) for k, x in sorted(v.items())))
