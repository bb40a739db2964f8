"""rfx from Python: random-feature estimators of the Gaussian kernel
K(x, y) = exp(-|x - y|^2 / 2) and the softmax kernel SM(x, y) = exp(x . y),
their feature maps and closed-form variances, over librfx.so (the C library
of include/rfx.h) through ctypes. NumPy arrays in and out; nothing is
compiled at install.

    import rfx
    rfx.estimators()                         # the estimators, with their flags
    F = rfx.features(X, "oprf", 256, projection="ort", seed=7)
    p = rfx.fit(X, Y, "oprf", 256)           # fitted parameters, a dict
    rfx.log_variance(x, y, "oprf", 256)      # log Var of the estimate of K(x, y)
    rfx.sklearn.RandomFeatures(...)          # a scikit-learn transformer

Inputs are one per row (n x d) and are converted to C-contiguous float64
(a copy only when needed), except that features keeps float32 inputs in
float32: they go through the library's float32 path (single-precision
projections and maps, about twice as fast; Model.float_native says whether
the estimator has one) and the features come back float32, as NumPy
functions preserve dtype; NaN, infinities, |x| > 1e75, a wrong number of
dimensions or columns, and non-numeric data raise ValueError (the C
library's RfxValueError for the values). An error of
the C library raises RfxError (a ValueError for invalid arguments, a
MemoryError when out of memory) with the library's message.

The same method, budget, projection, parameters and seed give the same
float64 bytes as `rfx features` on the command line, when both run the
same OpenBLAS kernels: on a CPU that OpenBLAS does not know, the rfx
program has it use the CPU's own (`rfx --version` then says "core set by
rfx"), while this package leaves the host process's BLAS as it is; set
OPENBLAS_CORETYPE to the same core for both to compare bytes.

Model.features reuses the memory of an output the caller has let go of
(see Model): a fresh NumPy array of 256 MiB costs the kernel as much time
to zero as the map takes to compute.

The library is looked up in this order: $RFX_LIBRARY; librfx.so.0 in the
source tree (python/../); PREFIX/lib/librfx.so.0 for a package installed by
`make install` in PREFIX/lib/python3/dist-packages; then the system's
search path.
"""
import ctypes
import os
import threading
from collections import namedtuple

import numpy as np

__all__ = ["RfxError", "Estimator", "Model", "estimators", "projections",
           "features", "fit", "log_variance", "kernel_log", "version",
           "DEFAULT_SEED"]

# rfx's fixed default seed (lib/base/rng.h RFX_DEFAULT_SEED), as the CLI's.
DEFAULT_SEED = 20221121

# enum rfx_status of include/rfx.h
_EINVAL, _ENOMEM = 1, 2
_ERR_MSG_MAX = 512
_SONAME = "librfx.so.0"


class RfxError(Exception):
    """An error reported by librfx; .code is its enum rfx_status value."""

    def __init__(self, message, code=None):
        super().__init__(message)
        self.code = code


class RfxValueError(RfxError, ValueError):
    """librfx's RFX_EINVAL: an argument or parameter out of its range."""


class RfxMemoryError(RfxError, MemoryError):
    """librfx's RFX_ENOMEM."""


class _Err(ctypes.Structure):
    _fields_ = [("code", ctypes.c_int), ("msg", ctypes.c_char * _ERR_MSG_MAX)]


def _find_library():
    here = os.path.dirname(os.path.abspath(__file__))
    env = os.environ.get("RFX_LIBRARY")
    candidates = [env] if env else []
    candidates += [
        os.path.join(here, "..", "..", _SONAME),              # source tree
        os.path.join(here, "..", "..", "..", _SONAME),        # PREFIX/lib/python3/dist-packages
    ]
    for c in candidates:
        if c and os.path.exists(c):
            return os.path.normpath(c)
    return _SONAME                                            # ld.so's search path


def _load():
    path = _find_library()
    try:
        lib = ctypes.CDLL(path)
    except OSError as e:
        raise ImportError("cannot load librfx ('%s'): %s; build it with "
                          "'make lib' or set RFX_LIBRARY" % (path, e)) from e
    P, I, U, S = ctypes.c_void_p, ctypes.c_int, ctypes.c_uint, ctypes.c_size_t
    D = ctypes.POINTER(ctypes.c_double)
    F = ctypes.POINTER(ctypes.c_float)
    C = ctypes.c_char_p
    E = ctypes.POINTER(_Err)
    sigs = {
        "rfx_version": (C, []),
        "rfx_estimator_at": (P, [I]),
        "rfx_estimator_name": (C, [P]),
        "rfx_estimator_title": (C, [P]),
        "rfx_estimator_flags": (U, [P]),
        "rfx_estimator_params": (S, [P, C, S]),
        "rfx_projection_at": (C, [I]),
        "rfx_model_alloc": (P, [C, I, I, C, C, E]),
        "rfx_model_free": (None, [P]),
        "rfx_model_set_param": (I, [P, C, E]),
        "rfx_model_fit": (I, [P, D, S, D, S, E]),
        "rfx_model_params": (S, [P, C, S]),
        "rfx_model_draw": (I, [P, ctypes.c_ulonglong, E]),
        "rfx_model_dim": (I, [P]),
        "rfx_model_features": (I, [P, I, D, S, D, E]),
        "rfx_model_features_f32": (I, [P, I, D, S, F, E]),
        "rfx_model_features_float": (I, [P, I, F, S, F, E]),
        "rfx_model_float_native": (I, [P]),
        "rfx_model_features_log": (I, [P, I, D, S, D, D, E]),
        "rfx_model_log_variance": (I, [P, D, S, D, S, D, E]),
        "rfx_kernel_log": (I, [C, D, S, D, S, I, D, E]),
    }
    for name, (res, args) in sigs.items():
        f = getattr(lib, name)
        f.restype = res
        f.argtypes = args
    return lib


_lib = _load()

# Flags of include/rfx.h
POSITIVE, COMPLEX, DISCRETE, SHIFTED, PAIRED = 0x01, 0x02, 0x04, 0x08, 0x20


def _raise(err):
    msg = err.msg.decode("utf-8", "replace")
    if err.code == _EINVAL:
        raise RfxValueError(msg, err.code)
    if err.code == _ENOMEM:
        raise RfxMemoryError(msg, err.code)
    raise RfxError(msg, err.code)


def _check(status, err):
    if status != 0:
        _raise(err)


def _ptr(a, ctype=ctypes.c_double):
    return a.ctypes.data_as(ctypes.POINTER(ctype))


def _bytes(s, what, required=False):
    """s as UTF-8 for the C library; None (the library's default) only
    where the argument has one."""
    if s is None and not required:
        return None
    if not isinstance(s, str):
        raise TypeError("%s must be a string, got %r" % (what, type(s).__name__))
    return s.encode("utf-8")


def _is_int(x):
    """An integer of Python or NumPy, not a bool (int(1.5) would
    truncate a float without a word)."""
    return isinstance(x, (int, np.integer)) and not isinstance(x, bool)


def _matrix(X, name="X", d=None, keep_f32=False):
    """X as a C-contiguous float64 n x d array (a copy only when needed);
    float32 stays float32 when keep_f32."""
    a = np.asarray(X)
    if a.dtype == object:
        try:
            a = a.astype(np.float64)
        except (TypeError, ValueError) as e:
            raise ValueError("%s must be numeric: %s" % (name, e)) from None
    if np.iscomplexobj(a):
        raise ValueError("%s must be real, got a complex array" % name)
    if not (np.issubdtype(a.dtype, np.number) or a.dtype == np.bool_):
        raise ValueError("%s must be numeric, got dtype %s" % (name, a.dtype))
    if a.ndim != 2:
        raise ValueError("%s must be a 2-D array (one input per row), got %d "
                         "dimension(s)" % (name, a.ndim))
    if d is not None and a.shape[1] != d:
        raise ValueError("%s has %d columns, expected %d" % (name, a.shape[1], d))
    # NaN, infinities and |x| > 1e75 are the C library's to refuse (one
    # pass, in C): RfxValueError "X row 2 column 1 is not finite (nan)"
    if keep_f32 and a.dtype == np.float32:
        return np.ascontiguousarray(a)
    return np.ascontiguousarray(a, dtype=np.float64)


Estimator = namedtuple("Estimator", "name title params complex positive "
                       "discrete shifted paired")
Estimator.__doc__ = """An estimator of the registry: its rfx name (the
method argument), its title in the papers, the names of its parameters, and
whether its features are complex (two real columns each), positive,
discrete (projection must be "iid"), act on x - c, or come in pairs."""


def _estimator(h):
    buf = ctypes.create_string_buffer(256)
    _lib.rfx_estimator_params(h, buf, len(buf))
    fl = _lib.rfx_estimator_flags(h)
    params = tuple(p for p in buf.value.decode().split(",") if p)
    return Estimator(_lib.rfx_estimator_name(h).decode(),
                     _lib.rfx_estimator_title(h).decode(), params,
                     bool(fl & COMPLEX), bool(fl & POSITIVE),
                     bool(fl & DISCRETE), bool(fl & SHIFTED), bool(fl & PAIRED))


def estimators():
    """Every estimator of librfx, in the registry's order (list of Estimator)."""
    out, i = [], 0
    while True:
        h = _lib.rfx_estimator_at(i)
        if not h:
            return out
        out.append(_estimator(h))
        i += 1


def projections():
    """The projection kinds ("iid", "ort", "sorf", ...)."""
    out, i = [], 0
    while True:
        p = _lib.rfx_projection_at(i)
        if p is None:
            return out
        out.append(p.decode())
        i += 1


def version():
    """librfx's version string."""
    return _lib.rfx_version().decode()


def _format_value(v):
    """A parameter value as rfx's command line writes it (exact round trip)."""
    if isinstance(v, str):
        return v
    if isinstance(v, complex):
        return "%r,%r" % (v.real, v.imag)
    a = np.asarray(v)
    if a.ndim == 0:
        return repr(float(a)) if a.dtype.kind == "f" else str(a.item())
    if np.iscomplexobj(a):
        return ",".join("%r:%r" % (float(z.real), float(z.imag)) if z.imag
                        else repr(float(z.real)) for z in a.ravel())
    return ",".join(repr(float(x)) for x in a.ravel())


def _parse_params(text):
    """rfx's "A=-0.03;t=1" into a dict of floats or float arrays."""
    out = {}
    if text in ("", "-"):
        return out
    for item in text.split(";"):
        name, _, value = item.partition("=")
        if ":" in value:
            z = []
            for v in value.split(","):
                re_, _, im = v.partition(":")
                z.append(complex(float(re_), float(im) if im else 0.0))
            out[name] = np.array(z)
        elif "," in value:
            vals = [float(v) for v in value.split(",")]
            out[name] = np.array(vals) if name in ("c", "a") else tuple(vals)
        else:
            f = float(value)
            out[name] = int(f) if name in ("t", "m1", "m3") else f
    return out


class _Spare:
    """A Model's spare output buffer: at most one array, which nobody but
    this object refers to (a _Lease puts it here only when it dies)."""

    __slots__ = ("buf", "lock", "__weakref__")

    def __init__(self):
        self.buf = None
        # reentrant: a collection inside take or put may free a _Lease,
        # whose __del__ puts on the same thread
        self.lock = threading.RLock()

    def take(self, shape, dtype):
        """The spare if it has this shape and dtype (it is then no longer
        the spare: two threads never get the same), else None."""
        with self.lock:
            b = self.buf
            if b is None or b.shape != shape or b.dtype != dtype:
                return None
            self.buf = None
            return b

    def put(self, buf):
        """buf becomes the spare, in place of any older one (freed)."""
        with self.lock:
            self.buf = buf


class _Lease:
    """The owner, as NumPy sees it, of an output handed out by
    Model.features: the returned array and every view of it have this
    object as their base, so it dies only when the caller holds none of
    them; it then gives the memory back to the model's spare. Exporting
    the buffer's __array_interface__ makes np.asarray wrap the same memory
    with this object as base."""

    __slots__ = ("buf", "spare", "__array_interface__")

    def __init__(self, buf, spare):
        self.buf = buf
        self.spare = spare
        self.__array_interface__ = buf.__array_interface__

    def __del__(self):
        try:
            self.spare.put(self.buf)
        except Exception:   # interpreter shutdown: the memory is freed anyway
            pass


class Model:
    """One estimator with its budget, projection kind, kernel, parameters
    and (after draw) one draw of its randomness: a handle on librfx's
    struct rfx_model. Use: Model(...), optionally set_param, fit, draw, then
    features and log_variance as often as wanted. set_param, fit and draw
    are not for concurrent use from two threads; features only reads the
    model (and takes the spare output under a lock), so threads may share
    a drawn model for it, as scikit-learn's threading backends do;
    separate Models are independent.

    n_features is the budget M in the estimator's own unit (complex
    features for TrigRF, projections for PosRF and OPRF, the whole
    structure for the hybrids); dim is the number of real columns that
    features returns.

    reuse_output (default True): features writes into the memory of an
    earlier output of the same shape and dtype once the caller holds
    neither it nor any view of it (it is then garbage: its base object
    has been freed), instead of a fresh NumPy array whose pages the kernel
    zeroes first (at 65536 x 512 float64, as long as computing the map).
    An array the caller still holds is never written to. The model keeps
    at most one such spare buffer, which lives as long as the model (or
    the last of its outputs) or until release_spare(). The arrays it
    returns do not own their memory (.base is an internal object); they
    are otherwise ordinary arrays: views, copies, pickling and np.save
    work as for any other. reuse_output=False allocates every output
    afresh.
    """

    def __init__(self, method, d, n_features, projection="iid",
                 kernel="gauss", reuse_output=True):
        err = _Err()
        if not _is_int(d) or not _is_int(n_features):
            raise TypeError("d and n_features must be integers, got %s and %s"
                            % (type(d).__name__, type(n_features).__name__))
        if not -2**31 <= d < 2**31 or not -2**31 <= n_features < 2**31:
            raise ValueError("d or n_features out of range")
        self._h = None
        self._h = _lib.rfx_model_alloc(_bytes(method, "method", True), int(d),
                                       int(n_features),
                                       _bytes(projection, "projection"),
                                       _bytes(kernel, "kernel"),
                                       ctypes.byref(err))
        if not self._h:
            _raise(err)
        self.method, self.d, self.n_features = method, int(d), int(n_features)
        self.projection, self.kernel = projection, kernel
        self.reuse_output = reuse_output
        self._spare = _Spare()

    def __del__(self):
        if getattr(self, "_h", None):
            _lib.rfx_model_free(self._h)
            self._h = None

    def __getstate__(self):
        raise TypeError("rfx.Model holds a C handle and cannot be pickled; "
                        "keep its arguments, params and seed instead")

    def release_spare(self):
        """Frees the spare output buffer kept for reuse (see the class);
        the next features call allocates afresh."""
        self._spare.put(None)

    def _output(self, shape, dtype):
        """An n x dim output array: the spare when it fits and reuse is
        on, else a new one; give it to the caller with _hand_out."""
        buf = self._spare.take(shape, dtype) if self.reuse_output else None
        return np.empty(shape, dtype=dtype) if buf is None else buf

    def _hand_out(self, buf, status, err):
        """buf as the caller gets it (leased, to come back to the spare
        when the caller drops it) after the C call's status: on an error
        buf goes back to the spare unseen and the error is raised."""
        if status != 0:
            if self.reuse_output:
                self._spare.put(buf)
            _raise(err)
        if not self.reuse_output:
            return buf
        return np.asarray(_Lease(buf, self._spare))

    def set_param(self, name, value=None):
        """Fixes one parameter: set_param("A", -0.1) or set_param("A=-0.1")."""
        text = name if value is None else "%s=%s" % (name, _format_value(value))
        err = _Err()
        _check(_lib.rfx_model_set_param(self._h, _bytes(text, "parameter"),
                                        ctypes.byref(err)), err)
        return self

    def set_params(self, params):
        """Fixes every parameter of a dict (or an rfx "A=..;t=.." string)."""
        if params is None:
            return self
        if isinstance(params, str):
            for item in params.split(";"):
                if item and item != "-":
                    self.set_param(item)
            return self
        for k, v in dict(params).items():
            self.set_param(k, v)
        return self

    def fit(self, X, Y=None):
        """Fits the parameters not fixed to the sets X and Y (Y = X by default)."""
        X = _matrix(X, "X", self.d)
        Y = X if Y is None else _matrix(Y, "Y", self.d)
        err = _Err()
        _check(_lib.rfx_model_fit(self._h, _ptr(X), X.shape[0], _ptr(Y),
                                  Y.shape[0], ctypes.byref(err)), err)
        return self

    @property
    def params_text(self):
        """The parameters as rfx writes them ("A=-0.0312;t=1", "-" for none)."""
        n = _lib.rfx_model_params(self._h, None, 0)
        buf = ctypes.create_string_buffer(n + 1)
        _lib.rfx_model_params(self._h, buf, n + 1)
        return buf.value.decode()

    @property
    def params(self):
        """The parameters as a dict (floats, ints, tuples or arrays)."""
        return _parse_params(self.params_text)

    def draw(self, seed=None):
        """Draws the projections from seed (DEFAULT_SEED when None)."""
        if seed is None:
            seed = DEFAULT_SEED
        elif _is_int(seed):
            seed = int(seed)
        else:
            raise TypeError("seed must be an integer, got %r" % (seed,))
        if not 0 <= seed < 2**64:
            raise ValueError("seed must be in [0, 2^64), got %d" % seed)
        err = _Err()
        _check(_lib.rfx_model_draw(self._h, seed, ctypes.byref(err)), err)
        return self

    @property
    def dim(self):
        """Real feature columns (0 before the fit)."""
        return _lib.rfx_model_dim(self._h)

    @property
    def float_native(self):
        """Whether float32 inputs run in single precision (trig, pos, oprf,
        the DERFs); otherwise they are widened and the features rounded."""
        return bool(_lib.rfx_model_float_native(self._h))

    def features(self, X, side=1, dtype=None, log_scale=False):
        """The n x dim real features of X for side 1 (x's) or 2 (y's).

        Row i of side 1 dotted with row k of side 2 estimates K(x_i, y_k)
        (SM for kernel="softmax"); a complex feature gives [Re, Im] on
        side 1, [Re, -Im] on side 2. dtype None keeps X's: float32 X goes
        through the float32 path (the draw rounded to float, the map in
        single precision) and gives float32; other X gives float64.
        dtype=float32 with float64 X rounds the float64 features once;
        dtype=float64 with float32 X widens X first. log_scale=True
        returns (F, s) in float64 with the features F[i] * exp(s[i]) and
        no overflow.
        """
        if dtype is None:
            dtype = np.float32 if (getattr(X, "dtype", None) == np.float32
                                   and not log_scale) else np.float64
        dtype = np.dtype(dtype)
        X = _matrix(X, "X", self.d, keep_f32=dtype == np.float32)
        n, D = X.shape[0], self.dim
        err = _Err()
        if side not in (1, 2):
            raise ValueError("side must be 1 (x) or 2 (y), got %r" % (side,))
        if log_scale and X.dtype == np.float32:
            X = X.astype(np.float64)
        if X.dtype == np.float32:
            out = self._output((n, D), np.float32)
            return self._hand_out(out, _lib.rfx_model_features_float(
                self._h, side, _ptr(X, ctypes.c_float), n,
                _ptr(out, ctypes.c_float), ctypes.byref(err)), err)
        if log_scale:
            out = self._output((n, D), np.float64)
            s = np.empty(n, dtype=np.float64)
            return self._hand_out(out, _lib.rfx_model_features_log(
                self._h, side, _ptr(X), n, _ptr(out), _ptr(s),
                ctypes.byref(err)), err), s
        if dtype == np.float32:
            out = self._output((n, D), np.float32)
            return self._hand_out(out, _lib.rfx_model_features_f32(
                self._h, side, _ptr(X), n, _ptr(out, ctypes.c_float),
                ctypes.byref(err)), err)
        if dtype != np.float64:
            raise ValueError("dtype must be float64 or float32, got %s" % dtype)
        out = self._output((n, D), np.float64)
        return self._hand_out(out, _lib.rfx_model_features(
            self._h, side, _ptr(X), n, _ptr(out), ctypes.byref(err)), err)

    def log_variance(self, X, Y):
        """log Var of the estimate for every pair of rows of X and Y (nx x ny)."""
        X = _matrix(X, "X", self.d)
        Y = _matrix(Y, "Y", self.d)
        out = np.empty((X.shape[0], Y.shape[0]), dtype=np.float64)
        err = _Err()
        _check(_lib.rfx_model_log_variance(self._h, _ptr(X), X.shape[0],
                                           _ptr(Y), Y.shape[0], _ptr(out),
                                           ctypes.byref(err)), err)
        return out


def _pairs_or_sets(x, y):
    """1-D x and y are one pair (flag True), 2-D ones two sets."""
    xa, ya = np.asarray(x), np.asarray(y)
    if xa.ndim == 1 and ya.ndim == 1:
        return _matrix(xa[None, :], "x"), _matrix(ya[None, :], "y"), True
    X = _matrix(x, "X")
    return X, _matrix(y, "Y", X.shape[1]), False


def features(X, method, n_features, projection="iid", seed=None, side=1,
             params=None, kernel="gauss", dtype=None, fit_to=None):
    """The real feature matrix of X (n x d) for estimator method with budget
    n_features, projections of kind projection drawn from seed (rfx's
    default seed when None), side 1 or 2. Parameters not given in params
    (a dict, or rfx's "A=-0.1;t=1") are fitted to fit_to, a pair (X1, Y1)
    of sets (default: X against itself). Equals `rfx features` for the same
    arguments byte for byte in float64. float32 X gives float32 features
    from the float32 path (dtype None), as Model.features."""
    X = _matrix(X, keep_f32=True)
    m = Model(method, X.shape[1], n_features, projection, kernel)
    m.set_params(params)
    if fit_to is None:
        m.fit(X, X)  # the fit widens to float64
    else:
        if (isinstance(fit_to, np.ndarray) and fit_to.ndim != 3) or \
                not hasattr(fit_to, "__len__") or len(fit_to) != 2:
            raise ValueError("fit_to must be a pair (X1, Y1) of sets, "
                             "got %s" % (
                                 "an array of shape %s" % (fit_to.shape,)
                                 if isinstance(fit_to, np.ndarray)
                                 else type(fit_to).__name__))
        m.fit(fit_to[0], fit_to[1])
    m.draw(seed)
    return m.features(X, side, dtype)


def fit(X, Y, method, n_features=1, params=None):
    """The parameters of method fitted to the sets X and Y (a dict that
    features and log_variance accept as params)."""
    X, Y, _ = _pairs_or_sets(X, Y)
    m = Model(method, X.shape[1], n_features)
    m.set_params(params)
    m.fit(X, Y)
    return m.params


def log_variance(x, y, method, n_features=1, params=None, kernel="gauss",
                 fit_to=None):
    """log Var of method's n_features-feature estimate of the kernel, in
    closed form with i.i.d. projections: for one pair (x, y of shape (d,))
    a float with the parameters fitted to the pair (as `rfx variance --x
    --y` does); for sets (nx x d, ny x d) the nx x ny matrix with the
    parameters fitted to the two sets. fit_to=(X1, Y1) fits to other sets;
    params fixes parameters."""
    X, Y, pair = _pairs_or_sets(x, y)
    m = Model(method, X.shape[1], n_features, "iid", kernel)
    m.set_params(params)
    if fit_to is None:
        m.fit(X, Y)
    else:
        m.fit(fit_to[0], fit_to[1])
    out = m.log_variance(X, Y)
    return float(out[0, 0]) if pair else out


def kernel_log(x, y, kernel="gauss"):
    """log K(x, y) (or log SM) exactly: a float for one pair, else nx x ny."""
    X, Y, pair = _pairs_or_sets(x, y)
    out = np.empty((X.shape[0], Y.shape[0]), dtype=np.float64)
    err = _Err()
    _check(_lib.rfx_kernel_log(_bytes(kernel, "kernel"), _ptr(X), X.shape[0],
                               _ptr(Y), Y.shape[0], X.shape[1], _ptr(out),
                               ctypes.byref(err)), err)
    return float(out[0, 0]) if pair else out


def __getattr__(name):
    """rfx.sklearn on first use: scikit-learn loads only when asked for."""
    if name == "sklearn":
        import importlib
        return importlib.import_module(".sklearn", __name__)
    raise AttributeError("module 'rfx' has no attribute %r" % name)
