"""rfx's estimators as a scikit-learn transformer.

    from rfx.sklearn import RandomFeatures
    from sklearn.pipeline import make_pipeline
    from sklearn.linear_model import RidgeClassifier
    clf = make_pipeline(RandomFeatures(method="oprf", n_components=256,
                                       gamma=0.1, random_state=0),
                        RidgeClassifier()).fit(X, y)

RandomFeatures(method=m) is a drop-in for RBFSampler with any estimator of
rfx (rfx.estimators()): TrigRF ("trig", RBFSampler's map, with the sine
kept instead of a random phase), PosRF, OPRF, GERF, the hybrids, the
discretely induced ones. `fit` draws the projections and fits the
estimator's parameters to the training inputs; `transform` returns real
features whose inner products estimate the kernel
K(x, y) = exp(-gamma |x - y|^2) (or exp(2 gamma x . y) for kernel="softmax").
"""
import numpy as np
from sklearn.base import (BaseEstimator, ClassNamePrefixFeaturesOutMixin,
                          TransformerMixin)
from sklearn.utils import check_random_state
from sklearn.utils.validation import check_is_fitted

from . import Model, _is_int

__all__ = ["RandomFeatures"]


class RandomFeatures(ClassNamePrefixFeaturesOutMixin, TransformerMixin,
                     BaseEstimator):
    """Random features of the Gaussian (or softmax) kernel from librfx.

    Parameters
    ----------
    method : str, default="oprf"
        An estimator of rfx.estimators(): "trig", "pos", "oprf", "gerf",
        "hyb", "posh", "ang", ...
    n_components : int, default=256
        The budget M in the estimator's unit: projections for PosRF and
        OPRF, complex features for TrigRF (two real columns each), the
        whole structure for the hybrids. The number of output columns is
        n_features_out_ (2M for TrigRF).
    projection : str, default="ort"
        How the Gaussian projections are drawn: "iid", "ort" (block
        orthogonal), "sorf", "halton-scr", ... (rfx.projections()).
        Estimators with discrete randomness (rfx.estimators()' discrete
        flag) take "iid" only.
    gamma : float, default=0.5
        Kernel width: K(x, y) = exp(-gamma |x - y|^2), as RBFSampler's.
        The inputs are multiplied by sqrt(2 gamma) before rfx's unit-width
        maps (gamma = 0.5 leaves them untouched).
    kernel : {"gauss", "softmax"}, default="gauss"
        "softmax" estimates exp(2 gamma x . y) instead.
    params : dict or str, default=None
        Estimator parameters to fix instead of fitting them, e.g.
        {"A": -0.1} or "A=-0.1" (rfx.fit returns such a dict).
    side : {1, 2}, default=1
        Which side of K(x, y) transform gives. Every estimator's side 1
        map dotted with its side 2 map estimates the kernel. In their real
        form the two maps are equal for every estimator but the hybrids
        ("hyb", "ang", "ang-ind", "gauss-hyb"), whose side 2 carries the
        conjugate of the trigonometric part: for those, transform gives
        side `side` and transform_other the other, and
        transform(X) @ transform_other(Y).T estimates K(X, Y).
    random_state : int, RandomState instance or None, default=None
        An int is the seed itself: RandomFeatures(random_state=7) gives
        the features of `rfx features --seed 7`. None or a RandomState
        draws a seed from NumPy's generator.
    reuse_output : bool, default=True
        transform writes into the memory of an earlier output of the same
        shape once the caller holds neither it nor any view of it, instead
        of a fresh array whose pages the kernel zeroes first (about as long
        as the map itself at 65536 x 512). An array the caller holds is
        never written to. At most one such spare buffer is kept, until the
        estimator is freed or release_spare() is called (rfx.Model).

    Attributes
    ----------
    seed_ : int
        The seed of the projections.
    params_ : dict
        The parameters fitted (or fixed).
    params_text_ : str
        The same as rfx writes them ("A=-0.03;t=1").
    n_features_in_ : int
    n_features_out_ : int
        Output columns.
    """

    def __init__(self, method="oprf", n_components=256, projection="ort",
                 gamma=0.5, kernel="gauss", params=None, side=1,
                 random_state=None, reuse_output=True):
        self.method = method
        self.n_components = n_components
        self.projection = projection
        self.gamma = gamma
        self.kernel = kernel
        self.params = params
        self.side = side
        self.random_state = random_state
        self.reuse_output = reuse_output

    def _scale(self):
        g = self.gamma
        if not isinstance(g, (int, float, np.integer, np.floating)) or \
                not np.isfinite(g) or g <= 0:
            raise ValueError("gamma must be a positive number, got %r" % (g,))
        return float(np.sqrt(2.0 * g))

    def _scaled(self, X):
        """X times sqrt(2 gamma), float32 kept float32 (the float32 path)."""
        s = self._scale()
        X = np.asarray(X)
        if X.dtype != np.float32:
            X = np.asarray(X, dtype=np.float64)
        return X if s == 1.0 else X * X.dtype.type(s)

    def fit(self, X, y=None):
        """Fits the parameters to X and draws the projections."""
        X = self._validate_data(X, dtype=[np.float64, np.float32])
        if self.side not in (1, 2):
            raise ValueError("side must be 1 or 2, got %r" % (self.side,))
        if _is_int(self.random_state):
            seed = int(self.random_state)
        else:
            rs = check_random_state(self.random_state)
            seed = int(rs.randint(np.iinfo(np.int32).max))
        Xs = self._scaled(X).astype(np.float64, copy=False)
        m = Model(self.method, X.shape[1], self.n_components,
                  self.projection, self.kernel)
        m.set_params(self.params)
        m.fit(Xs, Xs)
        m.draw(seed)
        self._model = m
        self.seed_ = seed
        self.params_text_ = m.params_text
        self.params_ = m.params
        self.n_features_out_ = m.dim
        return self

    @property
    def _n_features_out(self):
        return self.n_features_out_

    def _get_model(self):
        """The fitted model; rebuilt from params_text_ and seed_ after
        unpickling (every parameter fixed, so the fit keeps them)."""
        m = getattr(self, "_model", None)
        if m is None:
            m = Model(self.method, self.n_features_in_, self.n_components,
                      self.projection, self.kernel)
            m.set_params(self.params_text_)
            z = np.zeros((1, self.n_features_in_))
            m.fit(z, z)
            m.draw(self.seed_)
            self._model = m
        return m

    def _transform(self, X, side):
        check_is_fitted(self, "seed_")
        X = self._validate_data(X, dtype=[np.float64, np.float32],
                                reset=False)
        dtype = np.float32 if X.dtype == np.float32 else np.float64
        m = self._get_model()
        m.reuse_output = bool(self.reuse_output)
        return m.features(self._scaled(X), side, dtype)

    def transform(self, X):
        """Features of side `side`: float32 input runs rfx's float32 path
        (single precision throughout) and gives float32."""
        return self._transform(X, self.side)

    def transform_other(self, X):
        """Features of the other side: transform(X) @ transform_other(Y).T
        estimates the kernel matrix K(X, Y)."""
        return self._transform(X, 3 - self.side)

    def release_spare(self):
        """Frees the output buffer kept for reuse (see reuse_output)."""
        m = getattr(self, "_model", None)
        if m is not None:
            m.release_spare()
        return self

    def __getstate__(self):
        state = super().__getstate__()
        state.pop("_model", None)   # a C handle: rebuilt on use
        return state

    def _more_tags(self):
        return {"preserves_dtype": [np.float64, np.float32]}
