"""rfx.sklearn.RandomFeatures as scikit-learn sees it: its own
check_estimator suite, a Pipeline with GridSearchCV, pickling, the float32
path, random_state as rfx's seed, the two sides of an asymmetric
estimator, and the gamma of RBFSampler's kernel."""
import os
import pickle
import subprocess
import sys
import unittest

import numpy as np

import rfx

try:
    import sklearn  # noqa: F401
    from sklearn.utils.estimator_checks import check_estimator
    HAVE_SKLEARN = True
except ImportError:
    HAVE_SKLEARN = False


@unittest.skipUnless(HAVE_SKLEARN, "scikit-learn (python3-sklearn) missing")
class TestRandomFeatures(unittest.TestCase):
    def setUp(self):
        from rfx.sklearn import RandomFeatures
        self.RF = RandomFeatures
        rng = np.random.default_rng(12)
        self.X = rng.normal(size=(60, 5)) * 0.4

    def test_check_estimator(self):
        """scikit-learn's own battery, for the default (OPRF on orthogonal
        projections), TrigRF, GERF's second side and a discrete estimator."""
        for rf in (self.RF(), self.RF(method="trig", n_components=16),
                   self.RF(method="gerf", n_components=8, projection="iid",
                           side=2),
                   self.RF(method="pois", n_components=8, projection="iid")):
            with self.subTest(method=rf.method):
                check_estimator(rf)

    def test_pipeline_grid_search(self):
        from sklearn.datasets import make_classification
        from sklearn.linear_model import RidgeClassifier
        from sklearn.model_selection import GridSearchCV
        from sklearn.pipeline import Pipeline
        from sklearn.preprocessing import StandardScaler
        X, y = make_classification(n_samples=240, n_features=6,
                                   n_informative=4, random_state=0)
        pipe = Pipeline([("scale", StandardScaler()),
                         ("rf", self.RF(random_state=0)),
                         ("clf", RidgeClassifier(alpha=1e-2))])
        grid = GridSearchCV(pipe, {"rf__method": ["trig", "oprf"],
                                   "rf__n_components": [32, 64],
                                   "rf__gamma": [0.05, 0.2]}, cv=3)
        grid.fit(X, y)
        self.assertEqual(len(grid.cv_results_["params"]), 8)
        self.assertIn(grid.best_params_["rf__method"], ("trig", "oprf"))
        self.assertGreater(grid.best_score_, 0.75)   # chance is 0.5
        self.assertEqual(grid.predict(X).shape, (240,))

    def test_seed_is_the_clis(self):
        """random_state=S gives rfx.features(..., seed=S), hence
        `rfx features --seed S`."""
        rf = self.RF(method="oprf", n_components=32, projection="ort",
                     random_state=77).fit(self.X)
        self.assertEqual(rf.seed_, 77)
        self.assertEqual(rf.transform(self.X).tobytes(),
                         rfx.features(self.X, "oprf", 32, "ort", seed=77)
                         .tobytes())

    def test_pickle(self):
        rf = self.RF(method="gauss-hyb", n_components=16, projection="iid",
                     random_state=5).fit(self.X)
        back = pickle.loads(pickle.dumps(rf))
        self.assertEqual(back.transform(self.X).tobytes(),
                         rf.transform(self.X).tobytes())

    def test_reuse_output(self):
        """transform reuses a dropped output's memory (rfx.Model), the same
        bytes as reuse_output=False, which allocates every output."""
        rf = self.RF(method="trig", n_components=16, projection="iid",
                     random_state=3).fit(self.X)
        fresh = self.RF(method="trig", n_components=16, projection="iid",
                        random_state=3, reuse_output=False).fit(self.X)
        want = fresh.transform(self.X).tobytes()
        self.assertTrue(fresh.transform(self.X).flags.owndata)
        F = rf.transform(self.X)
        held = rf.transform(self.X)
        where = F.__array_interface__["data"][0]
        self.assertFalse(np.shares_memory(F, held))
        del F
        G = rf.transform(self.X)
        self.assertEqual(G.__array_interface__["data"][0], where)
        self.assertEqual((G.tobytes(), held.tobytes()), (want, want))
        del G
        back = pickle.loads(pickle.dumps(rf.release_spare()))
        self.assertEqual(back.transform(self.X).tobytes(), want)

    def test_float32(self):
        rf = self.RF(method="trig", n_components=16, random_state=1)
        F64 = rf.fit_transform(self.X)
        F32 = rf.fit(self.X).transform(self.X.astype(np.float32))
        self.assertEqual(F32.dtype, np.float32)
        # the same features from float32 inputs: the inputs' rounding
        # moves each feature by at most |w||dx| ~ 1e-7
        self.assertTrue(np.allclose(F32, F64, atol=1e-5))
        self.assertEqual(F64.shape, (60, rf.n_features_out_))
        self.assertEqual(rf.n_features_out_, 32)
        self.assertEqual(len(rf.get_feature_names_out()), 32)

    def test_two_sides(self):
        """The hybrids' two maps differ (side 2 carries the conjugate of the
        trigonometric part): transform(X) @ transform_other(Y).T averages to
        K(X, Y) over seeds, the mean of R = 400 draws within 3 standard
        errors of K entry by entry (at most 1% of the 900 entries may miss:
        at 3 sigma, 0.27% do on average) and none beyond 5."""
        rng = np.random.default_rng(2)
        X = rng.normal(size=(30, 3)) * 0.4
        Y = rng.normal(size=(30, 3)) * 0.4
        est = []
        for s in range(400):
            rf = self.RF(method="hyb", n_components=8, projection="iid",
                         random_state=s).fit(np.vstack([X, Y]))
            A, B = rf.transform(X), rf.transform_other(Y)
            if s == 0:
                self.assertFalse(np.array_equal(A, rf.transform_other(X)))
            est.append(A @ B.T)
        est = np.array(est)
        K = np.exp(-0.5 * np.sum((X[:, None] - Y[None]) ** 2, axis=2))
        z = (est.mean(0) - K) / (est.std(0, ddof=1) / np.sqrt(len(est)))
        self.assertLessEqual(np.mean(np.abs(z) > 3), 0.01)
        self.assertLess(np.max(np.abs(z)), 5)

    def test_gamma(self):
        """gamma scales the inputs by sqrt(2 gamma): K = exp(-gamma |x-y|^2)."""
        rf = self.RF(method="pos", n_components=16, gamma=2.0,
                     random_state=3).fit(self.X)
        self.assertEqual(rf.transform(self.X).tobytes(),
                         rfx.features(self.X * 2.0, "pos", 16, "ort", seed=3)
                         .tobytes())
        with self.assertRaises(ValueError):
            self.RF(gamma=-1.0).fit(self.X)

    def test_errors(self):
        with self.assertRaises(ValueError) as cm:
            self.RF(method="nope").fit(self.X)
        self.assertIn("'nope'", str(cm.exception))
        with self.assertRaises(ValueError):
            self.RF(side=0).fit(self.X)


    def test_example(self):
        """examples/classify.py runs (small: 64 features, one seed, no
        exact kernel) and every method beats chance (0.1) by far on the
        digits."""
        top = os.environ.get("RFX_TOP") or os.path.join(
            os.path.dirname(os.path.abspath(__file__)), "..", "..")
        r = subprocess.run([sys.executable,
                            os.path.join(top, "examples", "classify.py"),
                            "--features", "64", "--seeds", "1",
                            "--no-exact"], capture_output=True, text=True)
        self.assertEqual(r.returncode, 0, r.stderr)
        rows = [ln.split() for ln in r.stdout.splitlines()
                if ln.startswith(("RBFSampler", "rfx "))]
        self.assertEqual(len(rows), 7, r.stdout)
        for row in rows:
            acc = float(row[-3])
            self.assertGreater(acc, 0.8, " ".join(row))


if __name__ == "__main__":
    unittest.main()
