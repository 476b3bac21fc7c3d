"""What a user would write instead of `simulate --distance resistance --owners 4`:
the dense route R = diag(G) + diag(G)ᵀ − 2G with G = inv(L + J/n), then the
rows of four owners. The performance peer of exact resistance (issue 37).
usage: numpy_resistance.py EDGES
"""
import sys
import time

import numpy as np


def main():
    t0 = time.time()
    e = np.loadtxt(sys.argv[1], dtype=np.int64, comments=["#", "%"])
    ids, inv = np.unique(e.ravel(), return_inverse=True)
    n = len(ids)
    e = inv.reshape(-1, 2)
    L = np.zeros((n, n))
    np.add.at(L, (e[:, 0], e[:, 1]), -1.0)
    np.add.at(L, (e[:, 1], e[:, 0]), -1.0)
    L[np.arange(n), np.arange(n)] = 0.0
    L[np.arange(n), np.arange(n)] = -L.sum(axis=1)
    t1 = time.time()
    G = np.linalg.inv(L + 1.0 / n)
    d = np.diag(G)
    owners = np.random.default_rng(1).choice(n, 4, replace=False)
    R = d[owners, None] + d[None, :] - 2 * G[owners, :]
    t2 = time.time()
    print(f"RESULT load {t1-t0:.3f}s inverse+rows {t2-t1:.3f}s total {t2-t0:.3f}s "
          f"n {n} mean_R {R.mean():.6f}")


if __name__ == "__main__":
    main()
