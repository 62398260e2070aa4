# ruff: noqa: E501  (embedded C templates keep their natural line length)
"""C kernels for im2col/col2im, pooling, softmax and normalisation (a ``_build.py`` extension).

``generate()`` returns the C source (it includes "em_common.h") and the cdef
declarations of the functions the Python wrappers in ``ops_nn.py`` call.

Every kernel is written once as a template over the element type and expanded
for float32 and float64 (max pooling also for the integer dtypes).  What must
always hold:

- pointers arrive as ``char *`` plus an element offset; tensors are contiguous
  (the core guarantees it), geometry is passed as one ``int64_t`` array;
- parallel loops split work so that no two threads write the same element
  (im2col by output rows, col2im by (n, c) planes, pooling by output rows,
  softmax by rows / column chunks, batch norm by planes or column chunks):
  results do not depend on the thread count;
- OpenMP regions are only entered above ``EM_NN_GRAIN`` elements of work,
  with ``em_max_threads()`` (1 in forked children), chunks scheduled dynamically;
- sums are taken in float lanes over blocks of ``EM_NN_BLK`` elements and
  the block sums in double, so float32 statistics stay accurate for long rows.
"""

FLOATS = {"float32": ("f32", "float"), "float64": ("f64", "double")}
POOL = {
    **FLOATS,
    "uint8": ("u8", "uint8_t"),
    "int8": ("i8", "int8_t"),
    "int16": ("i16", "int16_t"),
    "int32": ("i32", "int32_t"),
    "int64": ("i64", "int64_t"),
}
LOWEST = {
    "float32": "-INFINITY",
    "float64": "-INFINITY",
    "uint8": "0",
    "int8": "INT8_MIN",
    "int16": "INT16_MIN",
    "int32": "INT32_MIN",
    "int64": "INT64_MIN",
}

COMMON = r"""
#include "em_common.h"

/* elements of work below which a kernel stays on the calling thread */
#define EM_NN_GRAIN 32768
/* block length of the float-lane partial sums (block sums go to double) */
#define EM_NN_BLK 1024
/* column chunk of the softmax / batch-norm kernels that vectorise across columns */
#define EM_NN_CW 256

static inline int em_nn_threads(int64_t work, int64_t items)
{
    if (work < EM_NN_GRAIN || items < 2) return 1;
    int nth = em_max_threads();
    int64_t cap = work / (EM_NN_GRAIN / 2);
    if (nth > cap) nth = (int)cap;
    if (nth > items) nth = (int)items;
    return nth < 1 ? 1 : nth;
}

/* for (I = 0; I < N; I++) BODY, on NTH threads when NTH > 1.  Items are
 * independent (each writes its own outputs), so the split does not change the
 * results; chunks are handed out dynamically (about 16 per thread) so that a
 * thread descheduled on a busy machine does not hold up the others. */
#define EM_PFOR(NTH, I, N, ...)                                                    \
    do {                                                                           \
        const int em_nth_ = (NTH);                                                 \
        const int64_t em_n_ = (N);                                                 \
        if (em_nth_ <= 1) {                                                        \
            for (int64_t I = 0; I < em_n_; I++) { __VA_ARGS__ }                    \
        } else {                                                                   \
            const int64_t em_ch_ = em_n_ / (16 * em_nth_) > 0 ? em_n_ / (16 * em_nth_) : 1; \
            _Pragma("omp parallel for num_threads(em_nth_) schedule(dynamic, em_ch_)") \
            for (int64_t I = 0; I < em_n_; I++) { __VA_ARGS__ }                    \
        }                                                                          \
    } while (0)

/* first index x >= 0 with x*s + off >= 0, and one past the last with x*s + off < n */
static inline int64_t em_nn_lo(int64_t off, int64_t s) { return off >= 0 ? 0 : (-off + s - 1) / s; }
static inline int64_t em_nn_hi(int64_t off, int64_t s, int64_t n) { return n - 1 - off >= 0 ? (n - 1 - off) / s + 1 : 0; }

/* keep short row copies / fills as inline vector loops instead of memcpy / memset
 * calls (rows of a few dozen elements: the call overhead would dominate) */
#define EM_NN_INLINE_ROWS __attribute__((optimize("no-tree-loop-distribute-patterns")))
/* exp(x) for the softmax arguments x - max <= 0 (a cheaper em_expf): Cody-Waite
 * reduction, degree-6 polynomial (own fit, relative error 2e-9), one scaling.
 * Max error 1.05 ulp over every float in [-87, 0] (checked exhaustively);
 * x < -87 (and -inf) give 0, i.e. results below 1.6e-38 are flushed; NaN stays NaN. */
static inline float em_nn_expm_f32(float x)
{
    const float lo = -87.0f;
    float xc = x < lo ? lo : x;
    float kf = (xc * 1.44269502162933349609375f + 0x1.8p23f) - 0x1.8p23f;
    float r = fmaf(kf, -0.693145751953125f, xc);
    r = fmaf(kf, -1.42860682030941723212e-6f, r);
    float p = 0.0013843643246218562f;
    p = fmaf(p, r, 0.008374162018299103f);
    p = fmaf(p, r, 0.04166800156235695f);
    p = fmaf(p, r, 0.16666431725025177f);
    p = fmaf(p, r, 0.4999999403953552f);
    p = fmaf(p, r, 1.0f);
    p = fmaf(p, r, 1.0f);
    float res = p * em_u2f((uint32_t)((int32_t)kf + 127) << 23);
    return x < lo ? 0.0f : res;
}

/* the float64 counterpart: degree-11 polynomial (own Chebyshev fit, relative error
 * 4.5e-18); max error 0.96 ulp on 5e7 random points of [-708, 0] against expl;
 * x < -708 (and -inf) give 0 (results below 3.3e-308 are flushed). */
static inline double em_nn_u2d(uint64_t u) { double f; memcpy(&f, &u, 8); return f; }
static inline double em_nn_expm_f64(double x)
{
    const double lo = -708.0;
    double xc = x < lo ? lo : x;
    double kf = (xc * 1.4426950408889634 + 0x1.8p52) - 0x1.8p52;
    double r = fma(kf, -6.93147180369123816490e-01, xc);
    r = fma(kf, -1.90821492927058770002e-10, r);
    double p = 2.5110049204818658e-08;
    p = fma(p, r, 2.763265472252779e-07);
    p = fma(p, r, 2.755724088722987e-06);
    p = fma(p, r, 2.4801485441561313e-05);
    p = fma(p, r, 0.00019841269890076403);
    p = fma(p, r, 0.0013888888952352863);
    p = fma(p, r, 0.008333333333319589);
    p = fma(p, r, 0.04166666666648795);
    p = fma(p, r, 0.1666666666666668);
    p = fma(p, r, 0.5000000000000019);
    p = fma(p, r, 1.0);
    p = fma(p, r, 1.0);
    double res = p * em_nn_u2d((uint64_t)((int64_t)kf + 1023) << 52);
    return x < lo ? 0.0 : res;
}
"""

# @T: C type, @S: dtype suffix, @EXPM: exp for arguments <= 0
FLOAT_KERNELS = r"""
/* ---------------- sums ---------------- */
/* sum of (x - shift): with shift = one of the values the float lanes only see
 * deviations, so a large mean costs no precision */
static inline double em_nn_sum_@S(const @T *restrict x, int64_t n, @T shift)
{
    double tot = 0;
    for (int64_t b = 0; b < n; b += EM_NN_BLK) {
        const int64_t e = n - b < EM_NN_BLK ? n - b : EM_NN_BLK;
        const @T *xb = x + b;
        @T s = 0;
#pragma omp simd reduction(+ : s)
        for (int64_t i = 0; i < e; i++) s += xb[i] - shift;
        tot += s;
    }
    return tot;
}

/* sum of squared deviations from mu = mh + ml (a double split into two T) */
static inline double em_nn_ssd_@S(const @T *restrict x, int64_t n, @T mh, @T ml)
{
    double tot = 0;
    for (int64_t b = 0; b < n; b += EM_NN_BLK) {
        const int64_t e = n - b < EM_NN_BLK ? n - b : EM_NN_BLK;
        const @T *xb = x + b;
        @T s = 0;
#pragma omp simd reduction(+ : s)
        for (int64_t i = 0; i < e; i++) { @T d = (xb[i] - mh) - ml; s += d * d; }
        tot += s;
    }
    return tot;
}

/* ---------------- im2col / col2im ---------------- */
/* one output row (c, i, j) of image n: oh*ow values gathered from plane xp */
EM_NN_INLINE_ROWS static inline void em_im2col_row_@S(@T *restrict o, const @T *restrict xp, const int64_t *g,
                                    int64_t oh, int64_t ow, int64_t i, int64_t j)
{
    const int64_t H = g[2], W = g[3], dh = g[6], dw = g[7], ph = g[8], pw = g[9], sh = g[10], sw = g[11];
    const int64_t off = j * dw - pw;
    int64_t xhi = em_nn_hi(off, sw, W), xlo = em_nn_lo(off, sw);
    if (xhi > ow) xhi = ow;
    if (xlo > xhi) xlo = xhi;
    const int64_t cnt = xhi - xlo;
    for (int64_t y = 0; y < oh; y++, o += ow) {
        const int64_t iy = y * sh - ph + i * dh;
        if (iy < 0 || iy >= H) {
            for (int64_t x = 0; x < ow; x++) o[x] = 0;
            continue;
        }
        for (int64_t x = 0; x < xlo; x++) o[x] = 0;
        const @T *restrict s = xp + iy * W + xlo * sw + off;
        @T *restrict d = o + xlo;
        if (sw == 1)
            for (int64_t x = 0; x < cnt; x++) d[x] = s[x];
        else
            for (int64_t x = 0; x < cnt; x++) d[x] = s[x * sw];
        for (int64_t x = xhi; x < ow; x++) o[x] = 0;
    }
}

/* Note [im2col as shifted planes]: with unit strides and ow == W (a "same"-width
 * convolution: 3x3 with padding 1, 5x5 with padding 2, ...), output row (c, i, j) is
 * plane c shifted by (i*dh - ph, j*dw - pw) with zeros shifted in. Its valid rows are one
 * contiguous run of the flattened plane, so one vector copy replaces a copy per image
 * row (whose loop overhead dominated on small images); the one or few columns that
 * wrapped around from the neighbouring row are zeroed afterwards. */
EM_NN_INLINE_ROWS static inline void em_im2col_shift_@S(@T *restrict o, const @T *restrict xp,
                                      int64_t H, int64_t W, int64_t oy, int64_t ox)
{
    const int64_t L = H * W;
    int64_t ylo = oy < 0 ? -oy : 0, yhi = oy > 0 ? H - oy : H;
    int64_t xlo = ox < 0 ? -ox : 0, xhi = ox > 0 ? W - ox : W;
    if (ylo > H) ylo = H;
    if (yhi < ylo) yhi = ylo;
    if (xlo > W) xlo = W;
    if (xhi < xlo) xhi = xlo;
    const int64_t a = ylo * W, b = yhi * W;
    for (int64_t k = 0; k < a; k++) o[k] = 0;
    for (int64_t k = b; k < L; k++) o[k] = 0;
    if (xlo >= xhi) {
        for (int64_t k = a; k < b; k++) o[k] = 0;
        return;
    }
    /* copy flat [a + xlo, b - (W - xhi)): always inside the source plane */
    const int64_t s0 = a + xlo, s1 = b - (W - xhi), sh = oy * W + ox;
    for (int64_t k = s0; k < s1; k++) o[k] = xp[k + sh];
    if (xlo > 0 || xhi < W)
        for (int64_t y = ylo; y < yhi; y++) {
            @T *restrict r = o + y * W;
            for (int64_t x = 0; x < xlo; x++) r[x] = 0;
            for (int64_t x = xhi; x < W; x++) r[x] = 0;
        }
}

/* g = N, C, H, W, kh, kw, dh, dw, ph, pw, sh, sw */
int em_im2col_@S(char *o_, int64_t oo, char *x_, int64_t xo, const int64_t *g)
{
    const int64_t N = g[0], C = g[1], H = g[2], W = g[3], kh = g[4], kw = g[5];
    const int64_t oh = (H + 2 * g[8] - g[6] * (kh - 1) - 1) / g[10] + 1;
    const int64_t ow = (W + 2 * g[9] - g[7] * (kw - 1) - 1) / g[11] + 1;
    if (oh <= 0 || ow <= 0) return 0;
    @T *o = (@T *)o_ + oo;
    const @T *x = (const @T *)x_ + xo;
    const int64_t L = oh * ow, kk = kh * kw, rows = N * C * kk;
    if (g[10] == 1 && g[11] == 1 && oh == H && ow == W) {
        const int64_t dh = g[6], dw = g[7], ph = g[8], pw = g[9];
        EM_PFOR(em_nn_threads(rows * L, rows), r, rows,
            const int64_t p = r / kk, q = r - p * kk, i = q / kw, j = q - i * kw;
            em_im2col_shift_@S(o + r * L, x + p * H * W, H, W, i * dh - ph, j * dw - pw);
        );
        return 0;
    }
    EM_PFOR(em_nn_threads(rows * L, rows), r, rows,
        const int64_t p = r / kk, q = r - p * kk;
        em_im2col_row_@S(o + r * L, x + p * H * W, g, oh, ow, q / kw, q % kw);
    );
    return 0;
}

/* plane (n, c) of the output: zero, then add every window tap */
EM_NN_INLINE_ROWS static inline void em_col2im_plane_@S(@T *restrict o, const @T *restrict col, const int64_t *g,
                                      int64_t oh, int64_t ow)
{
    const int64_t H = g[2], W = g[3], kh = g[4], kw = g[5];
    const int64_t dh = g[6], dw = g[7], ph = g[8], pw = g[9], sh = g[10], sw = g[11];
    const int64_t L = oh * ow;
    for (int64_t k = 0; k < H * W; k++) o[k] = 0;
    for (int64_t i = 0; i < kh; i++)
        for (int64_t j = 0; j < kw; j++, col += L) {
            const int64_t off = j * dw - pw;
            int64_t xhi = em_nn_hi(off, sw, W), xlo = em_nn_lo(off, sw);
            if (xhi > ow) xhi = ow;
            if (xlo >= xhi) continue;
            const int64_t cnt = xhi - xlo;
            for (int64_t y = 0; y < oh; y++) {
                const int64_t iy = y * sh - ph + i * dh;
                if (iy < 0 || iy >= H) continue;
                @T *restrict d = o + iy * W + xlo * sw + off;
                const @T *restrict s = col + y * ow + xlo;
                if (sw == 1)
                    for (int64_t x = 0; x < cnt; x++) d[x] += s[x];
                else
                    for (int64_t x = 0; x < cnt; x++) d[x * sw] += s[x];
            }
        }
}

/* g = N, C, H, W (output size), kh, kw, dh, dw, ph, pw, sh, sw */
int em_col2im_@S(char *o_, int64_t oo, char *x_, int64_t xo, const int64_t *g)
{
    const int64_t N = g[0], C = g[1], H = g[2], W = g[3], kh = g[4], kw = g[5];
    int64_t oh = (H + 2 * g[8] - g[6] * (kh - 1) - 1) / g[10] + 1;
    int64_t ow = (W + 2 * g[9] - g[7] * (kw - 1) - 1) / g[11] + 1;
    if (oh < 0) oh = 0;
    if (ow < 0) ow = 0;
    @T *o = (@T *)o_ + oo;
    const @T *x = (const @T *)x_ + xo;
    const int64_t planes = N * C, cstep = kh * kw * oh * ow;
    EM_PFOR(em_nn_threads(planes * (H * W + cstep), planes), p, planes,
        em_col2im_plane_@S(o + p * H * W, x + p * cstep, g, oh, ow);
    );
    return 0;
}

/* ---------------- softmax / log_softmax ---------------- */
/* one contiguous row of n >= 1 elements */
static inline void em_softmax_row_@S(@T *restrict o, const @T *restrict x, int64_t n, int lg)
{
    @T m = x[0];
#pragma omp simd reduction(max : m)
    for (int64_t i = 0; i < n; i++) m = x[i] > m ? x[i] : m;
    double tot = 0;
    for (int64_t b = 0; b < n; b += EM_NN_BLK) {
        const int64_t e = n - b < EM_NN_BLK ? n - b : EM_NN_BLK;
        const @T *xb = x + b;
        @T *ob = o + b;
        @T s = 0;
        if (lg) {
#pragma omp simd reduction(+ : s)
            for (int64_t i = 0; i < e; i++) s += @EXPM(xb[i] - m);
        } else {
#pragma omp simd reduction(+ : s)
            for (int64_t i = 0; i < e; i++) { @T v = @EXPM(xb[i] - m); ob[i] = v; s += v; }
        }
        tot += s;
    }
    if (lg) {
        const @T ls = (@T)log(tot);
        for (int64_t i = 0; i < n; i++) o[i] = (x[i] - m) - ls;
    } else {
        const @T r = (@T)(1.0 / tot);
        for (int64_t i = 0; i < n; i++) o[i] *= r;
    }
}

/* columns [0, cw) of an (n, inner) block, vectorised across the columns */
static inline void em_softmax_cols_@S(@T *restrict o, const @T *restrict x, int64_t n, int64_t inner,
                                      int64_t cw, int lg)
{
    @T m[EM_NN_CW];
    double s[EM_NN_CW];
    @T f[EM_NN_CW];
    for (int64_t k = 0; k < cw; k++) { m[k] = x[k]; s[k] = 0; }
    for (int64_t r = 1; r < n; r++) {
        const @T *xr = x + r * inner;
        for (int64_t k = 0; k < cw; k++) m[k] = xr[k] > m[k] ? xr[k] : m[k];
    }
    for (int64_t r = 0; r < n; r++) {
        const @T *xr = x + r * inner;
        @T *or_ = o + r * inner;
        if (lg)
            for (int64_t k = 0; k < cw; k++) s[k] += @EXPM(xr[k] - m[k]);
        else
            for (int64_t k = 0; k < cw; k++) { @T v = @EXPM(xr[k] - m[k]); or_[k] = v; s[k] += v; }
    }
    if (lg) {
        for (int64_t k = 0; k < cw; k++) f[k] = (@T)log(s[k]);
        for (int64_t r = 0; r < n; r++) {
            const @T *xr = x + r * inner;
            @T *or_ = o + r * inner;
            for (int64_t k = 0; k < cw; k++) or_[k] = (xr[k] - m[k]) - f[k];
        }
    } else {
        for (int64_t k = 0; k < cw; k++) f[k] = (@T)(1.0 / s[k]);
        for (int64_t r = 0; r < n; r++) {
            @T *or_ = o + r * inner;
            for (int64_t k = 0; k < cw; k++) or_[k] *= f[k];
        }
    }
}

int em_softmax_@S(char *o_, int64_t oo, char *x_, int64_t xo, int64_t outer, int64_t n, int64_t inner, int lg)
{
    if (outer <= 0 || n <= 0 || inner <= 0) return 0;
    @T *o = (@T *)o_ + oo;
    const @T *x = (const @T *)x_ + xo;
    const int64_t work = outer * n * inner * 8;   /* exp counts as several cheap ops */
    if (inner == 1) {
        EM_PFOR(em_nn_threads(work, outer), r, outer,
            em_softmax_row_@S(o + r * n, x + r * n, n, lg);
        );
    } else {
        const int64_t nc = (inner + EM_NN_CW - 1) / EM_NN_CW, items = outer * nc;
        EM_PFOR(em_nn_threads(work, items), it, items,
            const int64_t a = it / nc, c0 = (it - a * nc) * EM_NN_CW;
            const int64_t cw = inner - c0 < EM_NN_CW ? inner - c0 : EM_NN_CW;
            const int64_t base = a * n * inner + c0;
            em_softmax_cols_@S(o + base, x + base, n, inner, cw, lg);
        );
    }
    return 0;
}

/* ---------------- layer norm ---------------- */
/* the mean is applied as mh + ml (hi and lo parts in T): x - mh is exact
 * for x near the mean, so a large mean costs no precision in float32 */
static inline void em_norm_row_@S(@T *restrict o, const @T *restrict x, const @T *restrict w,
                                  const @T *restrict b, int64_t n, @T mh, @T ml, @T r)
{
    if (w && b)
        for (int64_t i = 0; i < n; i++) o[i] = ((x[i] - mh) - ml) * r * w[i] + b[i];
    else if (w)
        for (int64_t i = 0; i < n; i++) o[i] = ((x[i] - mh) - ml) * r * w[i];
    else if (b)
        for (int64_t i = 0; i < n; i++) o[i] = ((x[i] - mh) - ml) * r + b[i];
    else
        for (int64_t i = 0; i < n; i++) o[i] = ((x[i] - mh) - ml) * r;
}

int em_layer_norm_@S(char *o_, int64_t oo, char *mean_, int64_t mo, char *rstd_, int64_t ro,
                     char *x_, int64_t xo, char *w_, int64_t wo, char *b_, int64_t bo,
                     int64_t M, int64_t N, double eps)
{
    if (M <= 0) return 0;
    @T *o = (@T *)o_ + oo, *mean = (@T *)mean_ + mo, *rstd = (@T *)rstd_ + ro;
    const @T *x = (const @T *)x_ + xo;
    const @T *w = w_ ? (const @T *)w_ + wo : NULL, *b = b_ ? (const @T *)b_ + bo : NULL;
    if (N <= 0) {
        for (int64_t r = 0; r < M; r++) { mean[r] = (@T)NAN; rstd[r] = (@T)NAN; }
        return 0;
    }
    EM_PFOR(em_nn_threads(M * N * 3, M), r, M,
        const @T *xr = x + r * N;
        const double mu = (double)xr[0] + em_nn_sum_@S(xr, N, xr[0]) / (double)N;
        const @T mh = (@T)mu, ml = (@T)(mu - (double)mh);
        const double var = em_nn_ssd_@S(xr, N, mh, ml) / (double)N;
        const @T rs = (@T)(1.0 / sqrt(var + eps));
        mean[r] = mh;
        rstd[r] = rs;
        em_norm_row_@S(o + r * N, xr, w, b, N, mh, ml, rs);
    );
    return 0;
}

/* ---------------- batch norm ---------------- */
/* per-channel sums over (N, C, S) into acc[C]: of x - mh[c] (ml == NULL), or of
 * ((x - mh[c]) - ml[c])^2.  Plane partials when S > 1, column sums when S == 1. */
static int em_bn_stats_@S(double *restrict acc, const @T *restrict x, const @T *restrict mh,
                          const @T *restrict ml, int64_t N, int64_t C, int64_t S)
{
    if (S == 1) {
        const int64_t nc = (C + EM_NN_CW - 1) / EM_NN_CW;
        EM_PFOR(em_nn_threads(N * C, nc), it, nc,
            const int64_t c0 = it * EM_NN_CW, cw = C - c0 < EM_NN_CW ? C - c0 : EM_NN_CW;
            @T s[EM_NN_CW];
            double tot[EM_NN_CW];
            const @T *h = mh + c0, *l = ml ? ml + c0 : NULL;
            for (int64_t k = 0; k < cw; k++) tot[k] = 0;
            for (int64_t b = 0; b < N; b += EM_NN_BLK) {
                const int64_t e = N - b < EM_NN_BLK ? N - b : EM_NN_BLK;
                for (int64_t k = 0; k < cw; k++) s[k] = 0;
                for (int64_t r = b; r < b + e; r++) {
                    const @T *xr = x + r * C + c0;
                    if (l)
                        for (int64_t k = 0; k < cw; k++) { @T d = (xr[k] - h[k]) - l[k]; s[k] += d * d; }
                    else
                        for (int64_t k = 0; k < cw; k++) s[k] += xr[k] - h[k];
                }
                for (int64_t k = 0; k < cw; k++) tot[k] += s[k];
            }
            for (int64_t k = 0; k < cw; k++) acc[c0 + k] = tot[k];
        );
        return 0;
    }
    const int64_t planes = N * C;
    double *part = (double *)malloc((size_t)(planes > 0 ? planes : 1) * sizeof(double));
    if (!part) return EM_ERR_ALLOC;
    EM_PFOR(em_nn_threads(planes * S, planes), p, planes,
        const @T *xp = x + p * S;
        const int64_t c = p % C;
        part[p] = ml ? em_nn_ssd_@S(xp, S, mh[c], ml[c]) : em_nn_sum_@S(xp, S, mh[c]);
    );
    for (int64_t c = 0; c < C; c++) acc[c] = 0;
    for (int64_t n = 0; n < N; n++)
        for (int64_t c = 0; c < C; c++) acc[c] += part[n * C + c];
    free(part);
    return 0;
}

int em_batch_norm_@S(char *o_, int64_t oo, char *sm_, int64_t smo, char *si_, int64_t sio,
                     char *x_, int64_t xo, char *w_, int64_t wo, char *b_, int64_t bo,
                     char *rm_, int64_t rmo, char *rv_, int64_t rvo,
                     int64_t N, int64_t C, int64_t S, int training, double momentum, double eps)
{
    if (C <= 0) return 0;
    @T *o = (@T *)o_ + oo, *smean = (@T *)sm_ + smo, *sinv = (@T *)si_ + sio;
    const @T *x = (const @T *)x_ + xo;
    const @T *w = w_ ? (const @T *)w_ + wo : NULL, *b = b_ ? (const @T *)b_ + bo : NULL;
    @T *rm = rm_ ? (@T *)rm_ + rmo : NULL, *rv = rv_ ? (@T *)rv_ + rvo : NULL;
    const int64_t cnt = N * S;
    double *acc = (double *)malloc((size_t)C * sizeof(double));
    @T *tb = (@T *)malloc((size_t)C * 3 * sizeof(@T));
    if (!acc || !tb) { free(acc); free(tb); return EM_ERR_ALLOC; }
    /* per channel: mean as hi + lo, and the scale invstd * weight */
    @T *mh = tb, *ml = tb + C, *sc = tb + 2 * C;
    int rc = 0;
    if (training && cnt > 0) {
        const double dn = (double)cnt;
        for (int64_t c = 0; c < C; c++) mh[c] = x[c * S];   /* pivot: a value of the channel */
        rc = em_bn_stats_@S(acc, x, mh, NULL, N, C, S);
        if (rc) goto done;
        for (int64_t c = 0; c < C; c++) {
            const double mu = (double)mh[c] + acc[c] / dn;
            mh[c] = (@T)mu;
            ml[c] = (@T)(mu - (double)mh[c]);
            if (rm) rm[c] = (@T)((1.0 - momentum) * (double)rm[c] + momentum * mu);
        }
        rc = em_bn_stats_@S(acc, x, mh, ml, N, C, S);
        if (rc) goto done;
        for (int64_t c = 0; c < C; c++) {
            const double var = acc[c] / dn;
            smean[c] = mh[c];
            sinv[c] = (@T)(1.0 / sqrt(var + eps));
            if (rv) rv[c] = (@T)((1.0 - momentum) * (double)rv[c] + momentum * var * dn / (dn - 1.0));
        }
    } else if (training) {
        for (int64_t c = 0; c < C; c++) { smean[c] = (@T)NAN; sinv[c] = (@T)NAN; }
        goto done;
    } else {
        for (int64_t c = 0; c < C; c++) {
            mh[c] = rm[c];
            ml[c] = 0;
            smean[c] = rm[c];
            sinv[c] = (@T)(1.0 / sqrt((double)rv[c] + eps));
        }
    }
    for (int64_t c = 0; c < C; c++) sc[c] = w ? sinv[c] * w[c] : sinv[c];
    if (S == 1) {
        EM_PFOR(em_nn_threads(N * C, N), r, N,
            const @T *xr = x + r * C;
            @T *or_ = o + r * C;
            if (b)
                for (int64_t c = 0; c < C; c++) or_[c] = ((xr[c] - mh[c]) - ml[c]) * sc[c] + b[c];
            else
                for (int64_t c = 0; c < C; c++) or_[c] = ((xr[c] - mh[c]) - ml[c]) * sc[c];
        );
    } else {
        const int64_t planes = N * C;
        EM_PFOR(em_nn_threads(planes * S, planes), p, planes,
            const int64_t c = p % C;
            const @T h = mh[c], l = ml[c], f = sc[c], a = b ? b[c] : (@T)0;
            const @T *xp = x + p * S;
            @T *op = o + p * S;
            for (int64_t s = 0; s < S; s++) op[s] = ((xp[s] - h) - l) * f + a;
        );
    }
done:
    free(acc);
    free(tb);
    return rc;
}

/* ---------------- layer norm backward ---------------- */
/* Rows r of (M, N): gw_i = g_i * w_i, xhat_i = (x_i - mean_r) * rstd_r,
 * grad_in = rstd * (gw - sum(gw)/N - xhat * sum(gw * xhat)/N).  grad_weight / grad_bias are
 * column sums over the rows: partials per block of rows (at least EM_LN_RB, at most 256 blocks,
 * a size that depends on M only, summed in
 * block order), so results do not depend on the thread count. */
#define EM_LN_RB 32
int em_layer_norm_backward_@S(char *gi_, int64_t gio, char *gw_, int64_t gwo, char *gb_, int64_t gbo,
                              char *g_, int64_t go, char *x_, int64_t xo, char *w_, int64_t wo,
                              char *m_, int64_t mo, char *r_, int64_t ro, int64_t M, int64_t N)
{
    if (N <= 0) return 0;
    @T *gi = (@T *)gi_ + gio, *gw = (@T *)gw_ + gwo, *gb = (@T *)gb_ + gbo;
    const @T *g = (const @T *)g_ + go, *x = (const @T *)x_ + xo;
    const @T *w = w_ ? (const @T *)w_ + wo : NULL;
    const @T *mean = (const @T *)m_ + mo, *rstd = (const @T *)r_ + ro;
    /* at most 256 blocks (bounded scratch); the block size depends on M only */
    const int64_t rb = (M + 255) / 256 > EM_LN_RB ? (M + 255) / 256 : EM_LN_RB;
    const int64_t nb = (M + rb - 1) / rb;
    double *part = (double *)malloc((size_t)(2 * (nb > 0 ? nb : 1)) * (size_t)N * sizeof(double));
    if (!part) return EM_ERR_ALLOC;
    EM_PFOR(em_nn_threads(M * N * 3, nb), bi, nb,
        double *pw = part + 2 * bi * N, *pb = pw + N;
        for (int64_t j = 0; j < N; j++) { pw[j] = 0; pb[j] = 0; }
        const int64_t r1 = (bi + 1) * rb < M ? (bi + 1) * rb : M;
        for (int64_t r = bi * rb; r < r1; r++) {
            const @T *gr = g + r * N, *xr = x + r * N;
            @T *orow = gi + r * N;
            const @T mu = mean[r], rs = rstd[r];
            double a = 0, b = 0;
            for (int64_t j0 = 0; j0 < N; j0 += EM_NN_BLK) {
                const int64_t j1 = N - j0 < EM_NN_BLK ? N : j0 + EM_NN_BLK;
                @T pa = 0, pbb = 0;
                for (int64_t j = j0; j < j1; j++) {
                    const @T gw_ = w ? gr[j] * w[j] : gr[j];
                    pa += gw_;
                    pbb += gw_ * ((xr[j] - mu) * rs);
                }
                a += pa;
                b += pbb;
            }
            const @T ma = (@T)(a / (double)N), mb = (@T)(b / (double)N);
            for (int64_t j = 0; j < N; j++) {
                const @T xh = (xr[j] - mu) * rs;
                const @T gw_ = w ? gr[j] * w[j] : gr[j];
                orow[j] = rs * ((gw_ - ma) - xh * mb);
                pw[j] += (double)(gr[j] * xh);
                pb[j] += (double)gr[j];
            }
        }
    );
    for (int64_t j = 0; j < N; j++) {
        double sw = 0, sb = 0;
        for (int64_t bi = 0; bi < nb; bi++) { sw += part[2 * bi * N + j]; sb += part[(2 * bi + 1) * N + j]; }
        gw[j] = (@T)sw;
        gb[j] = (@T)sb;
    }
    free(part);
    return 0;
}

/* ---------------- batch norm backward ---------------- */
/* Per channel c, in double: sg = sum(g), sgx = sum(g * (x - mean)); then grad_bias = sg,
 * grad_weight = sgx * invstd and grad_in = k * (g - sg/n - (x - mean) * invstd^2 * sgx/n)
 * with k = weight * invstd (training), k * g (evaluation). Plane partials are summed per
 * channel in plane order, so results do not depend on the thread count. */
int em_batch_norm_backward_@S(char *gi_, int64_t gio, char *gw_, int64_t gwo, char *gb_, int64_t gbo,
                              char *g_, int64_t go, char *x_, int64_t xo, char *w_, int64_t wo,
                              char *m_, int64_t mo, char *r_, int64_t ro,
                              int64_t N, int64_t C, int64_t S, int training)
{
    if (C <= 0) return 0;
    @T *gi = (@T *)gi_ + gio, *gw = (@T *)gw_ + gwo, *gb = (@T *)gb_ + gbo;
    const @T *g = (const @T *)g_ + go, *x = (const @T *)x_ + xo;
    const @T *w = w_ ? (const @T *)w_ + wo : NULL;
    const @T *mean = (const @T *)m_ + mo, *inv = (const @T *)r_ + ro;
    const int64_t planes = N * C;
    double *part = (double *)malloc((size_t)(2 * (planes > 0 ? planes : 1) + 2 * C) * sizeof(double));
    if (!part) return EM_ERR_ALLOC;
    double *sg = part + 2 * planes, *sgx = sg + C;
    EM_PFOR(em_nn_threads(planes * S * 2, planes), p, planes,
        const int64_t c = p % C;
        const @T *gp = g + p * S, *xp = x + p * S;
        const @T mu = mean[c];
        double a = 0, b = 0;
        for (int64_t i0 = 0; i0 < S; i0 += EM_NN_BLK) {
            const int64_t i1 = S - i0 < EM_NN_BLK ? S : i0 + EM_NN_BLK;
            @T pa = 0, pb = 0;
            for (int64_t i = i0; i < i1; i++) { pa += gp[i]; pb += gp[i] * (xp[i] - mu); }
            a += pa;
            b += pb;
        }
        part[2 * p] = a;
        part[2 * p + 1] = b;
    );
    for (int64_t c = 0; c < C; c++) { sg[c] = 0; sgx[c] = 0; }
    for (int64_t p = 0; p < planes; p++) { sg[p % C] += part[2 * p]; sgx[p % C] += part[2 * p + 1]; }
    const double n = (double)(N * S > 0 ? N * S : 1);
    for (int64_t c = 0; c < C; c++) {
        gb[c] = (@T)sg[c];
        gw[c] = (@T)(sgx[c] * (double)inv[c]);
    }
    EM_PFOR(em_nn_threads(planes * S, planes), p, planes,
        const int64_t c = p % C;
        const @T *gp = g + p * S, *xp = x + p * S;
        @T *op = gi + p * S;
        const @T k = w ? inv[c] * w[c] : inv[c];
        if (training) {
            const @T mg = (@T)(sg[c] / n), mu = mean[c];
            const @T q = (@T)((double)inv[c] * (double)inv[c] * sgx[c] / n);
            for (int64_t i = 0; i < S; i++) op[i] = k * ((gp[i] - mg) - (xp[i] - mu) * q);
        } else {
            for (int64_t i = 0; i < S; i++) op[i] = k * gp[i];
        }
    );
    free(part);
    return 0;
}
"""

POOL_KERNEL = r"""
/* ---------------- max_pool2d_with_indices ---------------- */
/* one output position, window clipped to the plane (scalar path for the borders) */
static inline void em_mp_point_@S(@T *o, int64_t *ind, const @T *xp, int64_t H, int64_t W,
                                  int64_t y0, int64_t x0, int64_t ilo, int64_t ihi, int64_t kw,
                                  int64_t dh, int64_t dw)
{
    const int64_t jlo = em_nn_lo(x0, dw);
    int64_t jhi = em_nn_hi(x0, dw, W);
    if (jhi > kw) jhi = kw;
    @T best = @LOWEST;
    int64_t bi = (y0 < 0 ? 0 : y0) * W + (x0 < 0 ? 0 : x0);
    int first = 1;
    for (int64_t i = ilo; i < ihi; i++)
        for (int64_t j = jlo; j < jhi; j++) {
            const int64_t f = (y0 + i * dh) * W + x0 + j * dw;
            const @T v = xp[f];
            if (first || v > best || v != v) { best = v; bi = f; first = 0; }
        }
    *o = best;
    *ind = bi;
}

/* output row oy of one plane; the columns whose whole window is inside are
 * done tap by tap, vectorised across the row */
static inline void em_mp_row_@S(@T *restrict o, int64_t *restrict ind, const @T *restrict xp,
                                const int64_t *g, int64_t oy)
{
    const int64_t H = g[2], W = g[3], OW = g[5], kh = g[6], kw = g[7];
    const int64_t sh = g[8], sw = g[9], ph = g[10], pw = g[11], dh = g[12], dw = g[13];
    const int64_t y0 = oy * sh - ph;
    const int64_t ilo = em_nn_lo(y0, dh);
    int64_t ihi = em_nn_hi(y0, dh, H);
    if (ihi > kh) ihi = kh;
    /* interior columns: x*sw - pw >= 0 and x*sw - pw + (kw-1)*dw < W */
    int64_t xa = em_nn_lo(-pw, sw), xb = em_nn_hi((kw - 1) * dw - pw, sw, W);
    if (xb > OW) xb = OW;
    if (xa > xb || ilo >= ihi) xa = xb = OW;
    for (int64_t x = 0; x < xa; x++)
        em_mp_point_@S(o + x, ind + x, xp, H, W, y0, x * sw - pw, ilo, ihi, kw, dh, dw);
    if (xa < xb) {
        const int64_t cnt = xb - xa, x0 = xa * sw - pw;
        @T *restrict ob = o + xa;
        int64_t *restrict ib = ind + xa;
        {
            const int64_t f0 = (y0 + ilo * dh) * W + x0;
            const @T *restrict s = xp + f0;
            for (int64_t x = 0; x < cnt; x++) { ob[x] = s[x * sw]; ib[x] = f0 + x * sw; }
        }
        for (int64_t i = ilo; i < ihi; i++)
            for (int64_t j = (i == ilo); j < kw; j++) {
                const int64_t f0 = (y0 + i * dh) * W + x0 + j * dw;
                const @T *restrict s = xp + f0;
                for (int64_t x = 0; x < cnt; x++) {
                    const @T v = s[x * sw], bv = ob[x];
                    const int take = (v > bv) | (v != v);
                    ob[x] = take ? v : bv;
                    ib[x] = take ? f0 + x * sw : ib[x];
                }
            }
    }
    for (int64_t x = xb; x < OW; x++)
        em_mp_point_@S(o + x, ind + x, xp, H, W, y0, x * sw - pw, ilo, ihi, kw, dh, dw);
}

/* g = N, C, H, W, OH, OW, kh, kw, sh, sw, ph, pw, dh, dw */
int em_max_pool2d_@S(char *o_, int64_t oo, char *i_, int64_t io, char *x_, int64_t xo, const int64_t *g)
{
    const int64_t N = g[0], C = g[1], H = g[2], W = g[3], OH = g[4], OW = g[5];
    if (N * C * OH * OW <= 0) return 0;
    @T *o = (@T *)o_ + oo;
    int64_t *ind = (int64_t *)i_ + io;
    const @T *x = (const @T *)x_ + xo;
    const int64_t rows = N * C * OH;
    EM_PFOR(em_nn_threads(rows * OW * g[6] * g[7], rows), r, rows,
        const int64_t p = r / OH, oy = r - p * OH;
        em_mp_row_@S(o + r * OW, ind + r * OW, x + p * H * W, g, oy);
    );
    return 0;
}
"""

FLOAT_DECLS = [
    "int em_im2col_@S(char *o, int64_t oo, char *x, int64_t xo, const int64_t *g);",
    "int em_col2im_@S(char *o, int64_t oo, char *x, int64_t xo, const int64_t *g);",
    "int em_softmax_@S(char *o, int64_t oo, char *x, int64_t xo, int64_t outer, int64_t n, "
    "int64_t inner, int lg);",
    "int em_layer_norm_@S(char *o, int64_t oo, char *mean, int64_t mo, char *rstd, int64_t ro, "
    "char *x, int64_t xo, char *w, int64_t wo, char *b, int64_t bo, int64_t M, int64_t N, "
    "double eps);",
    "int em_batch_norm_@S(char *o, int64_t oo, char *sm, int64_t smo, char *si, int64_t sio, "
    "char *x, int64_t xo, char *w, int64_t wo, char *b, int64_t bo, char *rm, int64_t rmo, "
    "char *rv, int64_t rvo, int64_t N, int64_t C, int64_t S, int training, double momentum, "
    "double eps);",
    "int em_layer_norm_backward_@S(char *gi, int64_t gio, char *gw, int64_t gwo, char *gb, "
    "int64_t gbo, char *g, int64_t go, char *x, int64_t xo, char *w, int64_t wo, char *m, "
    "int64_t mo, char *r, int64_t ro, int64_t M, int64_t N);",
    "int em_batch_norm_backward_@S(char *gi, int64_t gio, char *gw, int64_t gwo, char *gb, "
    "int64_t gbo, char *g, int64_t go, char *x, int64_t xo, char *w, int64_t wo, char *m, "
    "int64_t mo, char *r, int64_t ro, int64_t N, int64_t C, int64_t S, int training);",
]
POOL_DECL = (
    "int em_max_pool2d_@S(char *o, int64_t oo, char *i, int64_t io, char *x, int64_t xo, "
    "const int64_t *g);"
)


def _expand(text, rep):
    for k in sorted(rep, key=len, reverse=True):
        text = text.replace(k, rep[k])
    return text


def generate():
    parts = [COMMON]
    decls = []
    for dt, (s, ct) in FLOATS.items():
        f32 = dt == "float32"
        rep = {"@T": ct, "@S": s, "@EXPM": "em_nn_expm_f32" if f32 else "em_nn_expm_f64"}
        parts.append(_expand(FLOAT_KERNELS, rep))
        decls += [_expand(d, rep) for d in FLOAT_DECLS]
    for dt, (s, ct) in POOL.items():
        rep = {"@T": ct, "@S": s, "@LOWEST": LOWEST[dt]}
        parts.append(_expand(POOL_KERNEL, rep))
        decls.append(_expand(POOL_DECL, rep))
    return "\n".join(parts), decls


if __name__ == "__main__":  # print the C source (for -fopt-info / assembly checks)
    print(generate()[0])
