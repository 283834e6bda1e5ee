"""The 1M benchmark's stand-in for text embeddings keeps the fitted data's spectrum: a sampler
that drifted to isotropic noise would make its recall figures stand for nothing."""

import numpy as np
import pytest

from benchmarks.data import clustered_unit_vectors
from benchmarks.text_shaped import TextShape, variance_directions


def _anisotropic(n: int, dim: int = 64, seed: int = 0) -> np.ndarray:
    """Unit rows whose variance falls off steeply across directions, like text embeddings'."""
    rng = np.random.default_rng(seed)
    scales = np.arange(1, dim + 1) ** -0.75
    rows = rng.standard_normal((n, dim)) * scales + 0.2
    return (rows / np.linalg.norm(rows, axis=1, keepdims=True)).astype(np.float32)


def test_samples_are_unit_rows_of_the_fitted_dimension():
    shape = TextShape.fit(_anisotropic(2_000), components=4)
    sample = shape.sample(250_001, seed=3)  # crosses a sampling block
    assert sample.shape == (250_001, 64) and sample.dtype == np.float32
    assert np.allclose(np.linalg.norm(sample, axis=1), 1.0, atol=1e-5)


def test_samples_keep_the_spectrum_of_the_fitted_vectors():
    real = _anisotropic(4_000)
    sample = TextShape.fit(real, components=4).sample(4_000, seed=1)
    isotropic, _ = clustered_unit_vectors(4_000, 64, clusters=4, noise=0.2, seed=1)
    fitted, drawn = variance_directions(real), variance_directions(sample)
    assert all(abs(a - b) <= max(2, a // 5) for a, b in zip(fitted, drawn, strict=True))
    assert variance_directions(isotropic)[0] > 2 * drawn[0]


def test_the_same_seed_draws_the_same_vectors():
    shape = TextShape.fit(_anisotropic(1_000), components=4)
    assert np.array_equal(shape.sample(100, seed=7), shape.sample(100, seed=7))
    assert not np.array_equal(shape.sample(100, seed=7), shape.sample(100, seed=8))


def test_too_few_vectors_for_the_components_is_refused():
    with pytest.raises(ValueError, match="10 vectors cannot fit 8 components"):
        TextShape.fit(_anisotropic(10), components=8)
