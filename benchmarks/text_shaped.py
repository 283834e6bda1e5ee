"""Vectors shaped like embeddings of real text, at any count: a Gaussian mixture fitted to the
cached MiniLM vectors of every REALTALK and LoCoMo turn, sampled and normalised.

Why: the 1M benchmark needs a million embeddings of real text, and embedding that many with
MiniLM takes this 2-core machine hours, while the real turns number 14,826. The isotropic
clustered vectors of ``data.clustered_unit_vectors`` spread each cluster's variance evenly over
all 384 directions (half of it lies in 137 of them), where real turns put half of theirs in 24;
HNSW's recall and cost follow that shape. The mixture keeps the real spectrum: its components are
k-means centres of the real turns, and each draws its spread from the turns' pooled
within-component covariance. Fewer components make the data harder for HNSW; ``COMPONENTS`` is
the count at which, at the real data's own size, recall is no higher than on the real data at
beams 100 and 200 (bench_ltm_1m's shape check measures that again on every run).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

COMPONENTS = 8
_KMEANS_ROUNDS = 25
_BLOCK = 100_000


def _kmeans(vectors: np.ndarray, k: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """(centres (k, d), label of each row): Lloyd's rounds from k distinct rows."""
    centres = vectors[rng.choice(len(vectors), k, replace=False)].copy()
    for _ in range(_KMEANS_ROUNDS):
        labels = np.argmax(vectors @ centres.T - 0.5 * (centres * centres).sum(axis=1), axis=1)
        for j in range(k):
            members = vectors[labels == j]
            if len(members):
                centres[j] = members.mean(axis=0)
    return centres, labels


@dataclass(frozen=True)
class TextShape:
    """A Gaussian mixture over embedding space: ``means`` (k, d) with ``weights`` (k,), all
    components sharing the covariance whose Cholesky factor is ``factor`` (d, d)."""

    means: np.ndarray
    weights: np.ndarray
    factor: np.ndarray

    @classmethod
    def fit(cls, vectors: np.ndarray, components: int = COMPONENTS, seed: int = 0) -> TextShape:
        if len(vectors) < 2 * components:
            raise ValueError(f"{len(vectors)} vectors cannot fit {components} components")
        x = np.asarray(vectors, dtype=np.float64)
        centres, labels = _kmeans(x, components, np.random.default_rng(seed))
        residuals = x - centres[labels]
        covariance = residuals.T @ residuals / len(x) + 1e-6 * np.eye(x.shape[1])
        weights = np.bincount(labels, minlength=components) / len(x)
        return cls(centres, weights, np.linalg.cholesky(covariance))

    def sample(self, n: int, seed: int) -> np.ndarray:
        """``n`` unit rows (float32), drawn in blocks so a million stay within memory."""
        rng = np.random.default_rng(seed)
        out = np.empty((n, self.means.shape[1]), dtype=np.float32)
        for start in range(0, n, _BLOCK):
            end = min(n, start + _BLOCK)
            picks = rng.choice(len(self.weights), end - start, p=self.weights)
            noise = rng.standard_normal((end - start, self.means.shape[1])) @ self.factor.T
            block = self.means[picks] + noise
            out[start:end] = block / np.linalg.norm(block, axis=1, keepdims=True)
        return out


def variance_directions(vectors: np.ndarray, shares: tuple[float, ...] = (0.5, 0.8, 0.9)
                        ) -> list[int]:
    """How many principal directions hold each share of the variance: the shape compared."""
    centred = vectors - vectors.mean(axis=0)
    power = np.linalg.svd(centred, compute_uv=False) ** 2
    return [int(d) + 1 for d in np.searchsorted(np.cumsum(power / power.sum()), shares)]


def main() -> None:
    """``python -m benchmarks.text_shaped --components 8 16 512``: HNSW recall@10 on the real
    turn vectors against a stand-in of each component count, at the real data's size (how
    ``COMPONENTS`` was chosen). ``--write PATH --count N``: N stand-in rows as little-endian
    float32 instead (for the Java harnesses, benchmarks/java/GraphDensity.java); with
    ``--real``, the real turn vectors followed by the first 500 questions' vectors."""
    import argparse

    from .bench_ltm import NARROW_BEAM
    from .real_text_recall import real_vectors, recall_by_beam

    parser = argparse.ArgumentParser(description=main.__doc__)
    parser.add_argument("--components", type=int, nargs="+", default=[COMPONENTS])
    parser.add_argument("--write", help="a file for --count stand-in rows (float32)")
    parser.add_argument("--count", type=int, default=100_500)
    parser.add_argument("--real", action="store_true", help="--write the real turns instead")
    args = parser.parse_args()
    real = real_vectors()
    if isinstance(real, str):
        raise SystemExit(real)
    data, questions = real
    if args.write and args.real:
        np.concatenate([data, questions[:500]]).astype("<f4").tofile(args.write)
        return
    if args.write:
        TextShape.fit(data).sample(args.count, seed=args.count).astype("<f4").tofile(args.write)
        return
    beams = (NARROW_BEAM, None)

    def recalls(items: np.ndarray, queries: np.ndarray) -> str:
        measured = recall_by_beam(items, queries, beams)
        return " / ".join(f"{m['recall_at_10']:.3f}" for m in measured.values())

    print(f"recall@10 at beam {NARROW_BEAM} / default, {len(data):,} items, "
          f"{len(questions):,} queries")
    print(f"real text: {recalls(data, questions)}")
    for k in args.components:
        sample = TextShape.fit(data, components=k).sample(len(data) + len(questions), seed=1)
        print(f"{k} components: {recalls(sample[:len(data)], sample[len(data):])}")


if __name__ == "__main__":
    main()
