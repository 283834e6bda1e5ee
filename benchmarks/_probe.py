import time, tempfile, numpy as np
from pathlib import Path
from benchmarks.index_store import IndexStore
from benchmarks.data import clustered_unit_vectors, exact_topk, recall_at_k
N=100_000
v,_ = clustered_unit_vectors(N+200)
q = v[N:]; v = v[:N]
d = Path(tempfile.mkdtemp())
s = IndexStore(d/"idx"); s.set_key("k0")
t=time.perf_counter()
for i in range(0,N,2000):
    s.add_batch([str(j) for j in range(i,min(N,i+2000))], [f"#{j}" for j in range(i,min(N,i+2000))], v[i:i+2000])
    if i % 20000 == 0: print(i, time.perf_counter()-t, flush=True)
s.commit()
print("add", N/(time.perf_counter()-t))
truth = exact_topk(v,q)
lat=[]; found=[]
for qq in q:
    t=time.perf_counter(); found.append([int(x) for x in s.search(qq)]); lat.append(time.perf_counter()-t)
print("recall", recall_at_k(found, truth), "p50 ms", np.percentile(lat,50)*1e3, "p95", np.percentile(lat,95)*1e3)
