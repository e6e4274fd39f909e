"""igraph's Leiden (and Louvain) on an edge list, for benchmarks/leiden.ts.

    /usr/bin/python3 benchmarks/leiden_igraph.py EDGES N SEEDS OUT

EDGES: one "u v" pair per line, nodes 0..N-1. Runs community_leiden (modularity objective,
n_iterations=2, igraph's defaults otherwise) and community_multilevel once per seed, timing only
the community detection, and writes JSON to OUT: versions, times, igraph's modularity, memberships.
"""
import json
import random
import sys
import time

import igraph as ig


def main() -> None:
    edges_path, n, seeds, out = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
    with open(edges_path) as f:
        edges = [tuple(map(int, line.split())) for line in f if line.strip()]
    graph = ig.Graph(n=n, edges=edges, directed=False)
    runs = {"leiden": [], "multilevel": []}
    for seed in (int(s) for s in seeds.split(",")):
        random.seed(seed)
        t = time.perf_counter()
        part = graph.community_leiden(objective_function="modularity", n_iterations=2)
        ms = (time.perf_counter() - t) * 1000
        runs["leiden"].append({"seed": seed, "ms": ms, "modularity": part.modularity, "membership": part.membership})
        random.seed(seed)
        t = time.perf_counter()
        part = graph.community_multilevel()
        ms = (time.perf_counter() - t) * 1000
        runs["multilevel"].append({"seed": seed, "ms": ms, "modularity": part.modularity, "membership": part.membership})
    with open(out, "w") as f:
        json.dump({"igraph": ig.__version__, "python": sys.version.split()[0], "runs": runs}, f)


if __name__ == "__main__":
    main()
