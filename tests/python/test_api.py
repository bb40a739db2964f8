"""The rfx Python package's functions (python/rfx/__init__.py): the lists,
errors of the C library as exceptions, bad arrays, the features and
variances against the rfx command's for the same arguments, and every
estimator's features against the kernel by Monte Carlo.

Expected values come from outside the code under test: the kernel from its
formula in NumPy, TrigRF's feature norms and variance from their
derivation, the command line's numbers from a separate process.
"""
import ctypes
import os
import subprocess
import unittest

import numpy as np

import rfx

RFX = os.environ.get("RFX")


def gauss(x, y):
    """K(x, y) = exp(-|x - y|^2 / 2), independently of rfx."""
    return float(np.exp(-0.5 * np.sum((np.asarray(x) - np.asarray(y)) ** 2)))


def run_rfx(*args, env=None):
    r = subprocess.run([RFX] + list(args), capture_output=True, text=True,
                       env=env)
    return r.returncode, r.stdout, r.stderr


def same_blas_env():
    """The environment for an rfx that runs this process's OpenBLAS
    kernels: rfx picks the CPU's own core when OpenBLAS fell back to an
    older one (lib/num/blas.h), a library never does, and bytes of
    products depend on the kernels. None when the BLAS is not OpenBLAS."""
    try:
        get = rfx._lib.openblas_get_corename
    except AttributeError:
        return None
    get.restype = ctypes.c_char_p
    env = dict(os.environ)
    env["OPENBLAS_CORETYPE"] = get().decode()
    return env


def has_command(name):
    if not RFX:
        return False
    rc, out, err = run_rfx("help")
    return any(ln.split()[:1] == [name] for ln in out.splitlines())


class TestLists(unittest.TestCase):
    def test_estimators(self):
        es = rfx.estimators()
        names = [e.name for e in es]
        self.assertGreaterEqual(len(es), 15)
        self.assertEqual(len(set(names)), len(names))
        for n in ("trig", "pos", "oprf", "gerf", "hyb", "pois", "geom"):
            self.assertIn(n, names)
        by = {e.name: e for e in es}
        self.assertTrue(by["trig"].complex and not by["trig"].positive)
        self.assertTrue(by["oprf"].positive and by["oprf"].params == ("A",))
        self.assertTrue(by["pois"].discrete)

    def test_estimators_match_cli(self):
        """The registry seen from Python is the one `rfx variance --method
        all` runs, in the same order."""
        if not RFX:
            self.skipTest("$RFX not set")
        rc, out, err = run_rfx("variance", "--x", "0.1,0.2", "--y",
                               "0.3,-0.1", "--method", "all")
        self.assertEqual(rc, 0, err)
        cli = [ln.split("\t")[0] for ln in out.splitlines()[1:]]
        self.assertEqual(cli, [e.name for e in rfx.estimators()])

    def test_projections(self):
        p = rfx.projections()
        self.assertEqual(p[:2], ["iid", "ort"])
        self.assertIn("sorf", p)

    def test_version(self):
        self.assertRegex(rfx.version(), r"^\d+\.\d+\.\d+$")


class TestErrors(unittest.TestCase):
    X = np.random.default_rng(5).normal(size=(6, 3)) * 0.4

    def test_unknown_method(self):
        with self.assertRaises(rfx.RfxError) as cm:
            rfx.features(self.X, "fourier", 8)
        self.assertIsInstance(cm.exception, ValueError)
        self.assertEqual(cm.exception.code, 1)
        msg = str(cm.exception)
        self.assertIn("'fourier'", msg)
        self.assertIn("oprf", msg)             # the valid names follow

    def test_message_is_the_libraries(self):
        """The exception's text is the C library's message, unchanged
        (compared with the command's for the same mistake)."""
        if not RFX:
            self.skipTest("$RFX not set")
        with self.assertRaises(ValueError) as cm:
            rfx.log_variance([0.1, 0.2], [0.3, 0.1], "oprf", 8,
                             params={"A": 0.5})
        rc, out, err = run_rfx("variance", "--x", "0.1,0.2", "--y",
                               "0.3,0.1", "--method", "oprf", "--features",
                               "8", "--param", "A=0.5")
        self.assertEqual(rc, 2)
        self.assertIn(str(cm.exception), err)

    def test_bad_arguments(self):
        cases = [
            (lambda: rfx.features(self.X, "trig", 0), "features"),
            (lambda: rfx.features(self.X, "trig", 8, projection="orth"), "orth"),
            (lambda: rfx.features(self.X, "pois", 8, projection="ort"), "iid"),
            (lambda: rfx.features(self.X, "trig", 8, kernel="laplace"), "laplace"),
            (lambda: rfx.features(self.X, "trig", 8, side=3), "side"),
            (lambda: rfx.features(self.X, "oprf", 8, params={"B": 1}), "B"),
            (lambda: rfx.features(self.X, "oprf", 8, params="A=x"), "A"),
            (lambda: rfx.features(self.X, "trig", 8, dtype=np.int32), "dtype"),
            (lambda: rfx.features(self.X, "trig", 8, seed=-1), "seed"),
            (lambda: rfx.features(self.X, "oprf", 8, fit_to=self.X), "pair"),
            (lambda: rfx.features(self.X, "oprf", 8, fit_to=(self.X,)), "pair"),
        ]
        for f, part in cases:
            with self.assertRaises(ValueError) as cm:
                f()
            self.assertIn(part, str(cm.exception))
        # wrong types: TypeError, not a silent conversion (int(1.5) = 1)
        for f, part in [
            (lambda: rfx.features(self.X, "trig", 8, seed=1.5), "seed"),
            (lambda: rfx.features(self.X, "trig", 8, seed="7"), "seed"),
            (lambda: rfx.features(self.X, None, 8), "method"),
            # a bool is an int to Python: True would be a budget of 1
            (lambda: rfx.features(self.X, "trig", True), "n_features"),
            (lambda: rfx.Model("trig", True, 8), "d and n_features"),
            (lambda: rfx.features(self.X, "trig", 8.0), "n_features"),
        ]:
            with self.assertRaises(TypeError) as cm:
                f()
            self.assertIn(part, str(cm.exception))

    def test_bad_arrays(self):
        nan = self.X.copy()
        nan[2, 1] = np.nan
        inf = self.X.copy()
        inf[0, 0] = -np.inf
        big = self.X.copy()
        big[1, 2] = 1e76
        cases = [
            (nan, "row 2 column 1 is not finite"),
            (inf, "row 0 column 0 is not finite"),
            (big, "beyond"),
            (self.X[0], "2-D"),
            (self.X[None], "2-D"),
            (self.X + 1j, "complex"),
            (np.array([["a", "b"], ["c", "d"]]), "numeric"),
            (np.array([[1.0, "b"]], dtype=object), "numeric"),
        ]
        for X, part in cases:
            with self.assertRaises(ValueError) as cm:
                rfx.features(X, "oprf", 8)
            self.assertIn(part, str(cm.exception))

    def test_wrong_dimension(self):
        m = rfx.Model("oprf", 3, 8).fit(self.X).draw(1)
        with self.assertRaises(ValueError) as cm:
            m.features(np.zeros((2, 4)))
        self.assertIn("4 columns, expected 3", str(cm.exception))

    def test_empty(self):
        with self.assertRaises(ValueError):
            rfx.fit(np.zeros((0, 3)), np.zeros((0, 3)), "oprf")
        m = rfx.Model("oprf", 3, 8).fit(self.X).draw(1)
        self.assertEqual(m.features(np.zeros((0, 3))).shape, (0, 8))

    def test_out_of_memory_is_an_error(self):
        # an ort draw's d x d QR block at d = 5e6 is 200 TB, beyond x86-64's
        # address space: GSL's failed allocation aborted the interpreter
        X = np.zeros((1, 5000000))
        with self.assertRaises(rfx.RfxError) as cm:
            rfx.features(X, "trig", 1, "ort", seed=1)
        self.assertIn("out of memory for the 5000000 x 5000000 blocks of ort",
                      str(cm.exception))
        # iid needs no such block: trig's features of x = 0 are cos 0 and
        # sin 0 over sqrt(M), so their squares sum to k(0, 0) = 1
        F = rfx.features(X, "trig", 3, "iid", seed=1)
        self.assertAlmostEqual(float(F @ F.T), 1.0, delta=1e-15)

    def test_not_picklable(self):
        import pickle
        with self.assertRaises(TypeError):
            pickle.dumps(rfx.Model("trig", 3, 4))


class TestArrays(unittest.TestCase):
    """Layouts and dtypes are converted: the same values give the same bytes."""

    def test_layouts_and_dtypes(self):
        rng = np.random.default_rng(7)
        X = rng.normal(size=(30, 8)) * 0.3
        ref = rfx.features(X, "oprf", 16, "ort", seed=3)
        wide = np.zeros((30, 16))
        wide[:, ::2] = X
        self.assertTrue(np.array_equal(
            rfx.features(np.asfortranarray(X), "oprf", 16, "ort", seed=3), ref))
        self.assertTrue(np.array_equal(
            rfx.features(wide[:, ::2], "oprf", 16, "ort", seed=3), ref))
        self.assertTrue(np.array_equal(
            rfx.features(X.tolist(), "oprf", 16, "ort", seed=3), ref))
        Xi = np.arange(24).reshape(6, 4) % 3 - 1
        self.assertTrue(np.array_equal(
            rfx.features(Xi, "trig", 4, seed=1),
            rfx.features(Xi.astype(float), "trig", 4, seed=1)))
        X32 = X.astype(np.float32)
        self.assertTrue(np.array_equal(
            rfx.features(X32, "oprf", 16, "ort", seed=3, dtype=np.float64),
            rfx.features(X32.astype(np.float64), "oprf", 16, "ort", seed=3)))

    def test_float32_path(self):
        """float32 input keeps its dtype and runs the float32 path: each
        feature within the bound of lib/est/featmap32.h of the float64
        one (u = 2^-24; |w.x| off by (d + 2) u sum|w_l x_l| <= (d + 2) u
        6 |x|_1, |w_l| < 6 for these draws; trig absolute, scaled by
        1/sqrt(M); pos relative, plus (d + 2) u |x|^2 and 4u)."""
        u, d, M = 2.0 ** -24, 8, 16
        X = np.random.default_rng(3).normal(size=(50, d)) * 0.4
        X32 = X.astype(np.float32)
        l1 = np.abs(X).sum(1)[:, None]
        xx = (X * X).sum(1)[:, None]
        F32 = rfx.features(X32, "trig", M, seed=6)
        F64 = rfx.features(X, "trig", M, seed=6)
        self.assertEqual(F32.dtype, np.float32)
        bound = ((d + 2) * u * 6 * l1 + 2 * u) / np.sqrt(M) + u
        self.assertTrue(np.all(np.abs(F32 - F64) <= bound))
        P32 = rfx.features(X32, "pos", M, seed=6)
        P64 = rfx.features(X, "pos", M, seed=6)
        bound = ((d + 2) * u * (6 * l1 + xx) + 4 * u) * P64
        self.assertEqual(P32.dtype, np.float32)
        self.assertTrue(np.all(np.abs(P32 - P64) <= bound))
        for method, native in (("trig", True), ("pos", True), ("oprf", True),
                               ("sderf", True), ("gerf", False), ("ang", False)):
            m = rfx.Model(method, d, M).fit(X).draw(1)
            self.assertEqual(m.float_native, native, method)
            self.assertEqual(m.features(X32).dtype, np.float32)
        # no float32 map: the float64 features of the widened input, rounded
        m = rfx.Model("gerf", d, M).fit(X).draw(2)
        self.assertTrue(np.array_equal(
            m.features(X32), m.features(X32.astype(np.float64)).astype(np.float32)))
        with self.assertRaises(ValueError):
            rfx.features(np.full((2, d), np.nan, dtype=np.float32), "trig", M)

    def test_float32_output(self):
        X = np.random.default_rng(2).normal(size=(20, 5)) * 0.5
        F = rfx.features(X, "gerf", 8, seed=4)
        F32 = rfx.features(X, "gerf", 8, seed=4, dtype=np.float32)
        self.assertEqual(F32.dtype, np.float32)
        self.assertTrue(np.array_equal(F32, F.astype(np.float32)))

    def test_log_scale_keeps_tiny_features(self):
        """PosRF's features of K are e^{w.x - |x|^2}/sqrt(M): at |x|^2 =
        3136 every one underflows to 0 (|w.x| is about |x| = 56), while
        log_scale keeps them: entries of modulus <= 1 (one exactly 1 per
        row) and a scale near -|x|^2."""
        X = np.full((2, 4), 28.0)
        m = rfx.Model("pos", 4, 8).fit(X * 0.01).draw(2)
        F = m.features(X)
        L, s = m.features(X, log_scale=True)
        self.assertTrue(np.all(F == 0.0))
        self.assertTrue(np.all(np.isfinite(L)) and np.all(np.isfinite(s)))
        self.assertTrue(np.all(np.abs(L) <= 1.0))
        self.assertTrue(np.all(np.max(L, axis=1) == 1.0))
        self.assertTrue(np.all(np.abs(s + 3136.0) < 10 * 56.0))
        near = np.full((1, 4), 0.3)
        L, s = m.features(near, log_scale=True)
        self.assertTrue(np.allclose(L * np.exp(s)[:, None], m.features(near),
                                    rtol=1e-15))


class TestOutputReuse(unittest.TestCase):
    """Model.features writes into an earlier output's memory only once the
    caller holds neither that array nor any view of it; the reference
    bytes come from a model with reuse_output=False, every output fresh."""
    d, M = 6, 16
    rng = np.random.default_rng(21)
    X1 = rng.normal(size=(40, d)) * 0.4
    X2 = rng.normal(size=(40, d)) * 0.4

    def models(self, method="trig"):
        m = rfx.Model(method, self.d, self.M).fit(self.X1).draw(8)
        ref = rfx.Model(method, self.d, self.M, reuse_output=False)
        return m, ref.fit(self.X1).draw(8)

    @staticmethod
    def addr(a):
        return a.__array_interface__["data"][0]

    def test_dropped_output_is_reused(self):
        m, ref = self.models()
        F = m.features(self.X1)
        where = self.addr(F)
        del F
        G = m.features(self.X2)
        self.assertEqual(self.addr(G), where)    # the same memory
        self.assertEqual(G.tobytes(), ref.features(self.X2).tobytes())
        self.assertEqual(G.shape, (40, 2 * self.M))
        self.assertTrue(G.flags.writeable and G.flags.c_contiguous)
        fresh = ref.features(self.X1)
        self.assertTrue(fresh.flags.owndata)      # no reuse: plain arrays

    def test_held_output_is_never_written(self):
        m, ref = self.models()
        F = m.features(self.X1)
        keep = F.copy()
        G = m.features(self.X2)
        self.assertFalse(np.shares_memory(F, G))
        self.assertEqual(F.tobytes(), keep.tobytes())
        V = G[3:7, ::2]                           # a view keeps it too
        del G
        H = m.features(self.X1)
        self.assertFalse(np.shares_memory(V, H))
        self.assertEqual(V.tobytes(),
                         ref.features(self.X2)[3:7, ::2].tobytes())
        self.assertEqual(H.tobytes(), keep.tobytes())
        T = H.T.reshape(-1)[::3]                  # a view of a view
        del H
        J = m.features(self.X2)
        self.assertFalse(np.shares_memory(T, J))
        self.assertEqual(T.tobytes(), keep.T.reshape(-1)[::3].tobytes())

    def test_kinds_and_shapes(self):
        """Float32 outputs, log-scaled ones and other row counts: each
        output has its fresh bytes, a spare of another shape or dtype is
        not used."""
        m, ref = self.models("oprf")
        X32 = self.X1.astype(np.float32)
        for _ in range(2):
            self.assertEqual(m.features(X32).tobytes(),
                             ref.features(X32).tobytes())
            self.assertEqual(m.features(self.X2[:7]).tobytes(),
                             ref.features(self.X2[:7]).tobytes())
            F, s = m.features(self.X1, log_scale=True)
            G, t = ref.features(self.X1, log_scale=True)
            self.assertEqual((F.tobytes(), s.tobytes()),
                             (G.tobytes(), t.tobytes()))
            del F
            self.assertEqual(
                m.features(self.X1, dtype=np.float32).tobytes(),
                ref.features(self.X1, dtype=np.float32).tobytes())
        self.assertEqual(m.features(np.zeros((0, self.d))).shape,
                         (0, self.M))

    def test_copies_and_pickles(self):
        import copy
        import io
        import pickle
        m, _ = self.models()
        F = m.features(self.X1)
        b = F.tobytes()
        for other in (pickle.loads(pickle.dumps(F)), copy.deepcopy(F),
                      copy.copy(F), np.array(F)):
            self.assertEqual(other.tobytes(), b)
            self.assertFalse(np.shares_memory(other, F))
        f = io.BytesIO()
        np.save(f, F)
        f.seek(0)
        self.assertEqual(np.load(f).tobytes(), b)

    def test_error_leaves_no_output(self):
        """A NaN input raises, also into a reused buffer, and the next
        call is right."""
        m, ref = self.models()
        del_me = m.features(self.X1)
        del del_me
        bad = self.X2.copy()
        bad[30, 4] = np.nan
        with self.assertRaises(ValueError) as cm:
            m.features(bad)
        self.assertIn("row 30 column 4 is not finite", str(cm.exception))
        self.assertEqual(m.features(self.X2).tobytes(),
                         ref.features(self.X2).tobytes())

    def test_one_spare_and_release(self):
        """At most one spare buffer: the model holds nothing the caller
        does not hold once release_spare is called."""
        import gc
        import weakref
        m, _ = self.models()
        outs = [m.features(self.X1) for _ in range(4)]
        self.assertIsNone(m._spare.buf)           # all four are held
        del outs
        self.assertIsNotNone(m._spare.buf)        # one of them kept
        gone = weakref.ref(m._spare.buf)
        m.release_spare()
        gc.collect()
        self.assertIsNone(gone())
        F = m.features(self.X1)                   # a spare outliving its
        del m                                     # model is freed with
        del F                                     # its last output

    def test_threads(self):
        """Two threads on one model: every output has its own bytes."""
        import threading
        m, ref = self.models()
        want = {0: ref.features(self.X1).tobytes(),
                1: ref.features(self.X2).tobytes()}
        bad = []

        def work(k):
            X = self.X1 if k == 0 else self.X2
            for _ in range(50):
                if m.features(X).tobytes() != want[k]:
                    bad.append(k)

        th = [threading.Thread(target=work, args=(k,)) for k in (0, 1)]
        for t in th:
            t.start()
        for t in th:
            t.join()
        self.assertEqual(bad, [])


class TestCommandLine(unittest.TestCase):
    """The same arguments give the command's numbers."""

    x = [0.31, -0.27, 0.52, 0.08]
    y = [0.12, 0.41, -0.23, 0.35]

    def test_log_variance_matches_pair_mode(self):
        """rfx.log_variance(x, y, m, M) is `rfx variance --x --y --method
        m --features M`'s log_variance: the parameters are fitted to the
        pair the same way."""
        if not RFX:
            self.skipTest("$RFX not set")
        rc, out, err = run_rfx(
            "variance", "--x", ",".join(map(repr, self.x)), "--y",
            ",".join(map(repr, self.y)), "--method", "all", "--features", "8")
        self.assertEqual(rc, 0, err)
        lines = out.splitlines()
        head = lines[0].split("\t")
        im, ip, iv = head.index("method"), head.index("params"), \
            head.index("log_variance")
        self.assertGreaterEqual(len(lines) - 1, 15)
        for ln in lines[1:]:
            f = ln.split("\t")
            got = rfx.log_variance(self.x, self.y, f[im], 8)
            self.assertEqual(got, float(f[iv]), f[im])
            self.assertEqual(rfx.Model(f[im], 4, 8).fit(
                [self.x], [self.y]).params_text, f[ip])

    def test_features_match_cli(self):
        """rfx.features equals `rfx features` byte for byte in float64
        (to 1e-13 when rfx is a sanitized build, other code)."""
        if not has_command("features"):
            self.skipTest("no 'rfx features' command")
        tmp = os.environ.get("TMPDIR", "/tmp")
        rng = np.random.default_rng(11)
        X = rng.normal(size=(300, 6)) * 0.35
        path = os.path.join(tmp, "x.npy")
        np.save(path, X)
        for method, proj, side, M in (("oprf", "ort", 1, 64),
                                      ("trig", "sorf", 1, 32),
                                      ("gerf", "iid", 2, 16),
                                      ("hyb", "iid", 2, 16),
                                      ("pois+", "iid", 1, 8)):
            out = os.path.join(tmp, "f.npy")
            rc, _, err = run_rfx("features", "--x-file", path, "--method",
                                 method, "--features", str(M),
                                 "--projection", proj, "--side", str(side),
                                 "--seed", "12345", "-o", out,
                                 env=same_blas_env())
            self.assertEqual(rc, 0, err)
            cli = np.load(out)
            py = rfx.features(X, method, M, projection=proj, seed=12345,
                              side=side)
            self.assertEqual(cli.dtype, np.float64)
            self.assertEqual(cli.shape, py.shape)
            if os.environ.get("RFX_SANITIZED"):
                self.assertTrue(np.allclose(cli, py, rtol=1e-13, atol=0),
                                method)
            else:
                self.assertEqual(cli.tobytes(), py.tobytes(), method)


def lognormal_kurtosis(relvar, M):
    """Kurtosis of the mean of M i.i.d. lognormal terms whose mean has
    relative variance relvar = Var / K^2: each term has e^{s^2} - 1 =
    M relvar and kurtosis e^{4s^2} + 2e^{3s^2} + 3e^{2s^2} - 3, and the
    mean of M divides the excess over 3 by M."""
    u = 1.0 + M * relvar
    return 3.0 + (u ** 4 + 2 * u ** 3 + 3 * u ** 2 - 6) / M


def cexp_variance(a, x, y, M):
    """Var of the complex exponential estimators (HRF eqs. 13-18): with
    Z = a x + y / a (diagonal A = diag(a), complex for cexp-c) and
    Z^2 = sum Z_l^2 without conjugate, Var = K^2 ((Re e^{Z^2} +
    e^{|Z|^2}) / 2 - 1) / M: the per-feature estimate c e^{w.Z} has
    E (c e^{w.Z})^2 = SM^2 e^{Z^2} and E |c e^{w.Z}|^2 = SM^2 e^{|Z|^2}
    for w ~ N(0, I)."""
    Z = a * x + y / a
    z2, zz = np.sum(Z * Z), np.sum(np.abs(Z) ** 2)
    return gauss(x, y) ** 2 * ((np.exp(z2).real + np.exp(zz)) / 2 - 1) / M


class TestMonteCarlo(unittest.TestCase):
    """For every estimator, the mean over R draws of the side-1 features of
    x dotted with the side-2 features of y estimates K(x, y): within 3
    standard errors (GSL's randist test). The sample variance agrees with
    the closed form log_variance (i.i.d. projections) within 3 standard
    errors of a sample variance, sqrt((m4 - s^4) / R).

    Both standard errors are the sample's only where R draws see the
    estimate's tail. The sample variance's relative standard error is
    sqrt((kurtosis - 1) / R), and the sample's own m4 estimates it only
    while that stays below about a third, kurtosis <= R / 10. The test
    bounds the kurtosis by that of a mean of lognormal terms with the
    closed form's relative variance (PosRF's and cexp's features are
    exactly lognormal; the others are lighter or bounded). Where that
    kurtosis exceeds R / 10 (cexp and cexp-c here: relative variance
    about 17, kurtosis about 5e6, so a run of R = 1000 sees a variance
    half the true one and a standard error a hundred times too small),
    the mean is checked with the closed form's standard error and the
    closed form against its derivation (cexp_variance) instead of the
    sample; an estimator that is heavy-tailed and has no derivation here
    fails. Seeds 1..R are fixed, so the test is deterministic."""

    R = 1000
    M = 4

    def test_every_estimator(self):
        x = np.array([[0.35, -0.2, 0.4, 0.1]])
        y = np.array([[0.05, 0.3, -0.15, 0.45]])
        K = gauss(x[0], y[0])
        self.assertAlmostEqual(rfx.kernel_log(x[0], y[0]), np.log(K), 14)
        # parameters fitted to sets, not to the pair: fitted to the pair
        # alone, PoisRF+, GeomRF+ and cexp-c are exact (variance 0)
        rng = np.random.default_rng(8)
        Xs = np.vstack([x, rng.normal(size=(5, 4)) * 0.35])
        Ys = np.vstack([y, rng.normal(size=(5, 4)) * 0.35])
        for e in rfx.estimators():
            with self.subTest(method=e.name):
                m = rfx.Model(e.name, 4, self.M).fit(Xs, Ys)
                est = np.empty(self.R)
                for r in range(self.R):
                    m.draw(r + 1)
                    est[r] = (m.features(x, 1) @ m.features(y, 2).T)[0, 0]
                mean, var = est.mean(), est.var(ddof=1)
                cf = np.exp(m.log_variance(x, y)[0, 0])
                if lognormal_kurtosis(cf / K ** 2, self.M) > self.R / 10:
                    self.assertIn(e.name, ("cexp", "cexp-c"),
                                  "%s: heavy-tailed, no derivation of its "
                                  "variance in this test" % e.name)
                    se = np.sqrt(cf / self.R)
                    self.assertLessEqual(abs(mean - K) / se, 3.0,
                                         "%s: %g +- %g, K = %g"
                                         % (e.name, mean, se, K))
                    exact = cexp_variance(m.params["a"], x[0], y[0], self.M)
                    self.assertAlmostEqual(cf / exact, 1.0, 12, e.name)
                    continue
                se = np.sqrt(var / self.R)
                self.assertGreater(se, 0.0, e.name)
                self.assertLessEqual(abs(mean - K) / se, 3.0,
                                     "%s: %g +- %g, K = %g"
                                     % (e.name, mean, se, K))
                m4 = np.mean((est - mean) ** 4)
                se_v = np.sqrt((m4 - var ** 2) / self.R)
                self.assertLessEqual(abs(var - cf) / se_v, 3.0,
                                     "%s: variance %g +- %g, closed form %g"
                                     % (e.name, var, se_v, cf))

    def test_trig_closed_forms(self):
        """TrigRF: each row's squared norm is 1 (cos^2 + sin^2 over M
        features of 1/sqrt(M)); Var = (1 - K^2)^2 / (2M) (E cos^2(w.z) =
        (1 + K^4)/2)."""
        rng = np.random.default_rng(3)
        X = rng.normal(size=(10, 5)) * 0.4
        Y = rng.normal(size=(7, 5)) * 0.4
        F = rfx.features(X, "trig", 32, "ort", seed=9)
        self.assertTrue(np.allclose(np.sum(F ** 2, axis=1), 1.0, atol=1e-14))
        lv = rfx.log_variance(X, Y, "trig", 32)
        D2 = np.sum((X[:, None, :] - Y[None, :, :]) ** 2, axis=2)
        K2 = np.exp(-D2)
        self.assertTrue(np.allclose(lv, np.log((1 - K2) ** 2 / 64), atol=1e-12))

    def test_softmax(self):
        """The softmax kernel's features are e^{|x|^2/2} times the Gaussian
        ones, and its variance e^{2(|x|^2 + |y|^2)/2} times."""
        rng = np.random.default_rng(4)
        X = rng.normal(size=(5, 3)) * 0.5
        Y = rng.normal(size=(4, 3)) * 0.5
        G = rfx.features(X, "oprf", 8, seed=1)
        S = rfx.features(X, "oprf", 8, seed=1, kernel="softmax")
        xx = np.sum(X ** 2, axis=1)
        self.assertTrue(np.allclose(S, G * np.exp(xx / 2)[:, None], rtol=1e-14))
        self.assertTrue(np.allclose(rfx.kernel_log(X, Y, "softmax"), X @ Y.T,
                                    rtol=1e-14))
        lg = rfx.log_variance(X, Y, "oprf", 8, fit_to=(X, Y))
        ls = rfx.log_variance(X, Y, "oprf", 8, kernel="softmax", fit_to=(X, Y))
        yy = np.sum(Y ** 2, axis=1)
        self.assertTrue(np.allclose(ls, lg + xx[:, None] + yy[None, :],
                                    rtol=1e-13))

    def test_fit_round_trip(self):
        """fit's parameters fed back give the same features."""
        rng = np.random.default_rng(6)
        X = rng.normal(size=(40, 4)) * 0.5
        for method in ("oprf", "gerf", "pois+", "gauss-hyb", "cexp-c"):
            p = rfx.fit(X, X, method, 8)
            a = rfx.features(X, method, 8, seed=2)
            b = rfx.features(X, method, 8, seed=2, params=p)
            self.assertEqual(a.tobytes(), b.tobytes(), method)


if __name__ == "__main__":
    unittest.main()
