/*
 * Complex exponential (CE) estimators (HRF sec. 2.3, eqs. 13-18): for an
 * invertible A, with w ~ N(0, I_d) and u^2 = sum_l u_l^2 (no conjugate),
 *   E exp(w.(Ax + A^{-T} y)) = exp((Ax)^2/2) exp((A^{-T}y)^2/2) SM(x, y),
 * so Psi_A(x) = exp(-(Ax)^2/2 + w.Ax)/sqrt(M) and Psi_{A^{-T}}(y) estimate
 * SM without bias (eq. 15-16); times e^{-|x|^2/2} e^{-|y|^2/2}, the
 * Gaussian kernel. rfx restricts A to be diagonal, a = diag(A), as the HRF
 * paper's clustered experiments do (appendix H): A = iI is TrigRF and
 * A = I is PosRF.
 *
 * Variance (re-derived): with Z = Ax + A^{-T}y, the estimate per feature
 * is c e^{w.Z} with c e^{Z^2/2} = SM, so E(c e^{w.Z})^2 = SM^2 e^{Z^2} and
 * E|c e^{w.Z}|^2 = |c|^2 e^{2|Re Z|^2} = SM^2 e^{|Z|^2}; the real part's
 * variance is
 *   Var = K^2 ((Re e^{Z^2} + e^{|Z|^2})/2 - 1) / M
 *       = K^2 (expm1(Re Z^2) cos(Im Z^2) - 2 sin^2(Im Z^2/2) + expm1(|Z|^2)) / (2M),
 * zero iff Z = 0 (eqs. 17-18; eq. 18 is Z = 0 written as its real and
 * imaginary parts).
 *
 * The diagonal is fitted from the sets' centres x_, y_ (means), the HRF
 * construction for a pair of cluster centres (appendix H.2):
 *   cexp    real a_l = sqrt(|y_l / x_l|), minimising |a x_l + y_l / a|^2 (eq. 88);
 *   cexp-c  complex a_l solving a x_l + y_l / a = 0 (eqs. 85-87): i sqrt(y_l/x_l)
 *           when x_l y_l > 0, sqrt(-y_l/x_l) when x_l y_l < 0,
 * so that cexp-c has zero variance at the centres. Where a centre
 * coordinate vanishes the paper's "large" or "small" values are taken as
 * 1e3 and 1e-3 (1 when both vanish).
 */
#include <cblas.h>
#include <complex.h>
#include <math.h>
#include <stdlib.h>

#include "est/estimator.h"
#include "num/logmath.h"

#define A_LARGE 1e3
#define A_SMALL 1e-3

/* Fits one coordinate's a from centre coordinates xc, yc. */
static void fit_coord(int cplx, double xc, double yc, double *re, double *im)
{
	*im = 0.0;
	if (xc == 0.0 && yc == 0.0) {
		*re = 1.0;
		return;
	}
	if (xc == 0.0) {
		*re = A_LARGE;
		return;
	}
	if (yc == 0.0) {
		*re = A_SMALL;
		*im = cplx ? A_SMALL : 0.0;
		return;
	}
	/* signs compared, not the product: it underflows to -0 for 1e-200s */
	/*
	 * sqrt|y| / sqrt|x|, not sqrt|y / x|: the ratio leaves double range
	 * for inputs inside it (1e9 / 1e-300), the root of each never does
	 * (at most sqrt(1e75 / 2.2e-308) = 2e191).
	 */
	if (!cplx || (xc < 0.0) != (yc < 0.0)) {
		*re = sqrt(fabs(yc)) / sqrt(fabs(xc));
		return;
	}
	*re = 0.0;
	*im = sqrt(fabs(yc)) / sqrt(fabs(xc));
}

/*
 * Whether every row of X (n x d) keeps |f_l x_l| within RFX_DIAG_REACH,
 * f = a (inv = 0: the x's, side 1) or 1/a (inv = 1: the y's, side 2); else
 * RFX_EINVAL naming the row, worded for the fit (fitting: the sets it was
 * fitted to) or for other inputs. A given a always does for inputs
 * within RFX_INPUT_MAX; a fitted one balances the sets' centres, but
 * where they nearly cancel (rows 1e30 and -1e30 beside 1e-300) the rows
 * reach past it, and so may other inputs: (a x)^2 overflowed and the
 * features came out NaN.
 */
static int check_reach(const struct rfx_params *p, const char *name,
		       const double *X, size_t n, int inv, int fitting,
		       struct rfx_err *err)
{
	size_t i;
	int l, d = p->d;

	for (l = 0; l < d; l++) {
		double am = fmax(fabs(p->a_re[l]), fabs(p->a_im[l]));

		for (i = 0; i < n; i++) {
			double v = fabs(X[i * (size_t)d + l]);

			if (!((inv ? v / am : v * am) <= RFX_DIAG_REACH))
				return rfx_error(err, RFX_EINVAL,
						 "%s: %s|%s| reaches %g on coordinate %d of input row %zu, beyond %g, with the fitted |a_%d| = %g%s",
						 name, fitting ? "cannot fit a: " : "",
						 inv ? "y / a" : "a x",
						 inv ? v / am : v * am, l, i, RFX_DIAG_REACH,
						 l, am,
						 fitting ? " (the sets' centres nearly cancel there); give a"
							 : ": these inputs are too large for the sets a was fitted to");
		}
	}
	return RFX_OK;
}

static int cexp_fit_kind(int cplx, const char *name, struct rfx_params *p,
			 const double *X, size_t nx, const double *Y,
			 size_t ny, int M, struct rfx_err *err)
{
	int ret = rfx_params_check_dim(p, name, X, nx, Y, ny, M, err), l;
	size_t i;

	if (ret)
		return ret;
	if (p->given & RFX_P(RFX_PARAM_DIAG))
		return p->a_re ? RFX_OK
			       : rfx_error(err, RFX_EINVAL, "%s: a is not set", name);
	if (!p->a_re)
		p->a_re = malloc((size_t)p->d * sizeof(double));
	if (!p->a_im)
		p->a_im = malloc((size_t)p->d * sizeof(double));
	if (!p->a_re || !p->a_im)
		return rfx_error(err, RFX_ENOMEM, "out of memory");
	for (l = 0; l < p->d; l++) {
		double xc = 0.0, yc = 0.0;

		for (i = 0; i < nx; i++)
			xc += X[i * (size_t)p->d + l];
		for (i = 0; i < ny; i++)
			yc += Y[i * (size_t)p->d + l];
		fit_coord(cplx, xc / (double)nx, yc / (double)ny, &p->a_re[l],
			  &p->a_im[l]);
	}
	if (check_reach(p, name, X, nx, 0, 1, err) ||
	    check_reach(p, name, Y, ny, 1, 1, err))
		return RFX_EINVAL;
	return RFX_OK;
}

/* log Var / K^2 of one feature, from Z^2 = u and |Z|^2 = w. */
static double ce_log_rel(double complex u, double w)
{
	double ur = creal(u), ui = cimag(u), v;

	if (w > 30.0) {
		/* e^{|Z|^2} dominates; the rest is a relative correction. */
		double c = cos(ui);

		v = 1.0 + exp(ur - w) * c - 2.0 * exp(-w);
		return w - RFX_LN2 + log(v > 0.0 ? v : 0.0);
	}
	v = expm1(ur) * cos(ui) - 2.0 * sin(0.5 * ui) * sin(0.5 * ui) + expm1(w);
	return log(v > 0.0 ? 0.5 * v : 0.0);
}

static int log_variance_kind(const char *name, const struct rfx_params *p,
			     const struct rfx_block *b, int M, double *out,
			     struct rfx_err *err)
{
	size_t i, j;
	int d = b->d, l;
	double lm = log((double)M);

	if (!p->a_re || !p->a_im)
		return rfx_error(err, RFX_EINVAL, "%s: a is not set", name);
	if (check_reach(p, name, b->X, b->nx, 0, 0, err) ||
	    check_reach(p, name, b->Y, b->ny, 1, 0, err))
		return RFX_EINVAL;
	for (l = 0; l < d && p->a_im[l] == 0.0; l++)
		;
	if (l == d) {
		/*
		 * Real a: Z is real, Z^2 = |Z|^2 = w and Var / K^2 = expm1(w)
		 * per feature, in real arithmetic (the complex division of the
		 * general loop is most of its time).
		 */
		for (i = 0; i < b->nx; i++)
			for (j = 0; j < b->ny; j++) {
				const double *x = b->X + i * (size_t)d;
				const double *y = b->Y + j * (size_t)d;
				double w = 0.0;
				size_t q = i * b->ny + j;

				for (l = 0; l < d; l++) {
					double z = p->a_re[l] * x[l] + y[l] / p->a_re[l];

					w += z * z;
				}
				out[q] = -b->dd[q] + rfx_logexpm1(w) - lm;
			}
		return RFX_OK;
	}
	for (i = 0; i < b->nx; i++)
		for (j = 0; j < b->ny; j++) {
			const double *x = b->X + i * (size_t)d;
			const double *y = b->Y + j * (size_t)d;
			double complex u = 0.0;
			double w = 0.0;
			size_t q = i * b->ny + j;

			for (l = 0; l < d; l++) {
				double complex a = p->a_re[l] + I * p->a_im[l];
				double complex z = a * x[l] + y[l] / a;

				u += z * z;
				w += creal(z) * creal(z) + cimag(z) * cimag(z);
			}
			out[q] = -b->dd[q] + ce_log_rel(u, w) - lm;
		}
	return RFX_OK;
}

/*
 * log f = -|x|^2/2 - (a x)^2/2 + w.(a x) - log(M)/2, with a^{-1} for side 2
 * (A^{-T} = A^{-1} for diagonal A). The projections w.(a x) of all n
 * inputs are one dgemm of the scaled inputs (two for a complex a: real and
 * imaginary parts), the per-row constants are added after.
 */
static int features_kind(const char *name, const struct rfx_params *p,
			 const struct rfx_draw *w, int side, const double *X,
			 size_t n, int M, struct rfx_featmat *F,
			 struct rfx_err *err)
{
	int d = w->d, l, m, real = 1;
	size_t i, nd = n * (size_t)d;
	double ls = -0.5 * log((double)M);
	double *xr = calloc(nd ? nd : 1, sizeof(double)), *xi = NULL;
	double complex *f = malloc((size_t)d * sizeof(double complex));
	double complex *base = malloc(n * sizeof(double complex));

	if (!p->a_re || !p->a_im) {
		free(xr);
		free(f);
		free(base);
		return rfx_error(err, RFX_EINVAL, "%s: a is not set", name);
	}
	if (check_reach(p, name, X, n, side == 2, 0, err)) {
		free(xr);
		free(f);
		free(base);
		return RFX_EINVAL;
	}
	for (l = 0; l < d; l++)
		real &= p->a_im[l] == 0.0;
	if (!real)
		xi = calloc(nd ? nd : 1, sizeof(double));
	if (!xr || !f || !base || (!real && !xi)) {
		free(xr);
		free(xi);
		free(f);
		free(base);
		return rfx_error(err, RFX_ENOMEM, "out of memory for %zu features", n);
	}
	for (l = 0; l < d; l++) {
		double complex a = p->a_re[l] + I * p->a_im[l];

		f[l] = side == 1 ? a : 1.0 / a;
	}
	for (i = 0; i < n; i++) {
		const double *x = X + i * (size_t)d;
		double complex b = ls;

		for (l = 0; l < d; l++) {
			double complex ax = f[l] * x[l];

			xr[i * (size_t)d + l] = creal(ax);
			if (xi)
				xi[i * (size_t)d + l] = cimag(ax);
			b += -0.5 * x[l] * x[l] - 0.5 * ax * ax;
		}
		base[i] = b;
	}
	rfx_featmat_project(F, w, xr, n, 0, M);
	if (xi)
		cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, (int)n, M, d,
			    1.0, xi, d, w->omega, w->cap, 0.0, F->im, M);
	for (i = 0; i < n; i++) {
		double *lmod = F->work + i * (size_t)M, *ph = F->im + i * (size_t)M;

		for (m = 0; m < M; m++)
			lmod[m] += creal(base[i]);
		if (xi)
			for (m = 0; m < M; m++)
				ph[m] += cimag(base[i]);
	}
	/*
	 * A real diagonal gives real features: no phases, so the estimate of
	 * a block is one dgemm instead of two (rfx_featmat_gram).
	 */
	rfx_featmat_from_log(F, n, M, F->work, real ? NULL : F->im);
	free(xr);
	free(xi);
	free(f);
	free(base);
	return RFX_OK;
}

/* The hooks of each estimator: the functions above under its name. */
static int cexp_log_variance(const struct rfx_params *p,
			     const struct rfx_block *b, int M, double *out,
			     struct rfx_err *err)
{
	return log_variance_kind("cexp", p, b, M, out, err);
}

static int cexp_c_log_variance(const struct rfx_params *p,
			       const struct rfx_block *b, int M, double *out,
			       struct rfx_err *err)
{
	return log_variance_kind("cexp-c", p, b, M, out, err);
}

static int cexp_features(const struct rfx_params *p, const struct rfx_draw *w,
			 int side, const double *X, size_t n, int M,
			 struct rfx_featmat *F, struct rfx_err *err)
{
	return features_kind("cexp", p, w, side, X, n, M, F, err);
}

static int cexp_c_features(const struct rfx_params *p,
			   const struct rfx_draw *w, int side, const double *X,
			   size_t n, int M, struct rfx_featmat *F,
			   struct rfx_err *err)
{
	return features_kind("cexp-c", p, w, side, X, n, M, F, err);
}

static int cexp_fit(struct rfx_params *p, const double *X, size_t nx,
		    const double *Y, size_t ny, int M, struct rfx_err *err)
{
	return cexp_fit_kind(0, "cexp", p, X, nx, Y, ny, M, err);
}

static int cexp_c_fit(struct rfx_params *p, const double *X, size_t nx,
		      const double *Y, size_t ny, int M, struct rfx_err *err)
{
	return cexp_fit_kind(1, "cexp-c", p, X, nx, Y, ny, M, err);
}

/* Real-valued with its fitted (real) A, so fair counting gives it M real. */
const struct rfx_estimator_type rfx_est_cexp = {
	.name = "cexp",
	.title = "complex exponential, real diagonal A (HRF sec. 2.3, eq. 88)",
	.kernels = RFX_EST_GAUSS | RFX_EST_SOFTMAX,
	.fit_note = "a: from the sets' centres (HRF eq. 88)",
	.flags = 0,
	.params = RFX_P(RFX_PARAM_DIAG),
	.fit = cexp_fit,
	.log_variance = cexp_log_variance,
	.draw = rfx_draw_gaussian,
	.features = cexp_features,
};

const struct rfx_estimator_type rfx_est_cexp_c = {
	.name = "cexp-c",
	.title = "complex exponential, complex diagonal A (HRF eqs. 85-87)",
	.kernels = RFX_EST_GAUSS | RFX_EST_SOFTMAX,
	.fit_note = "a: from the sets' centres (HRF eqs. 85-87)",
	.flags = RFX_EST_COMPLEX,
	.params = RFX_P(RFX_PARAM_DIAG),
	.fit = cexp_c_fit,
	.log_variance = cexp_c_log_variance,
	.draw = rfx_draw_gaussian,
	.features = cexp_c_features,
};
