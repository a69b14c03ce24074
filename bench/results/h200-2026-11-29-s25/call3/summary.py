import json, collections, sys
R = sys.argv[1]
res = collections.defaultdict(dict); plan = {}
for lib in ['new', 'old', 'new2', 'old2']:
    for suf in ['', '-ntom']:
        try:
            for l in open('%s/%s%s.jsonl' % (R, lib, suf)):
                d = json.loads(l)
                if 'median_ms' in d:
                    res[d['case'] + ' ' + d['precision']][lib] = d['median_ms']
                    if lib == 'new': plan[d['case'] + ' ' + d['precision']] = d.get('chosen', '')
        except OSError:
            pass
for c, v in res.items():
    o = min(v.get('old', 1e9), v.get('old2', 1e9)); n = min(v.get('new', 1e9), v.get('new2', 1e9))
    print('%-28s old %.4f new %.4f old/new %.3f  %s' % (c, o, n, o / n, plan.get(c, '')[:90]))
