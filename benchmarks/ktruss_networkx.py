"""Trussness of every edge with networkx, for benchmarks/ktruss.ts.

Usage: python3 ktruss_networkx.py <edge-file>

The file holds the node count on its first line, then one "u v" edge per line. networkx has no
truss-decomposition routine, so trussness is computed by chaining its own k-truss:
H = nx.k_truss(H, k) for k = 3, 4, ... until H has no edge (each call starts from the previous
truss, which contains the next one); an edge's trussness is the last k whose truss holds it (2 for
an edge in no triangle). Only that loop is timed (reading the file and building the graph are not).
Prints one JSON object: seconds, networkx version, and the histogram {trussness: edge count}.
"""

import json
import sys
import time
from collections import Counter

import networkx as nx


def main() -> None:
    path = sys.argv[1]
    graph = nx.Graph()
    with open(path, encoding="utf8") as handle:
        n = int(handle.readline())
        graph.add_nodes_from(range(n))
        graph.add_edges_from(tuple(map(int, line.split())) for line in handle if line.strip())

    started = time.perf_counter()
    trussness = {(u, v) if u < v else (v, u): 2 for u, v in graph.edges()}
    truss = graph
    k = 3
    while truss.number_of_edges() > 0:
        truss = nx.k_truss(truss, k)
        for u, v in truss.edges():
            trussness[(u, v) if u < v else (v, u)] = k
        k += 1
    seconds = time.perf_counter() - started

    histogram = Counter(trussness.values())
    print(
        json.dumps(
            {
                "seconds": seconds,
                "networkx": nx.__version__,
                "histogram": {str(key): histogram[key] for key in sorted(histogram)},
            }
        )
    )


if __name__ == "__main__":
    main()
