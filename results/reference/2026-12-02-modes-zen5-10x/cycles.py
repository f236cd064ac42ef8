"""The seed-000 figure in cycles: median real time per op x the core clock the run measured at its start, per backend and pool; usage: cycles.py seed000-cbc.benchmark.json"""
import json,statistics,collections,sys
doc=json.load(open(sys.argv[1])); clk=float(doc['context']['core_clock_ghz'])
d=collections.defaultdict(list)
for b in doc['benchmarks']:
  if b.get('run_type')=='iteration': d['/'.join(p for p in b['name'].split('/') if p.startswith(('backend','pool')))].append(b['real_time'])
for k,v in sorted(d.items()): m=statistics.median(v); print(f'{k:30s} {m:7.1f} ns {m*clk:5.0f} cycles  range {min(v)*clk:.0f}-{max(v)*clk:.0f}  {1e6/m:,.0f} ops/ms')
print('clock', clk, doc['context']['aes_limits'], doc['context']['git_commit'], doc['context']['load_avg'])
