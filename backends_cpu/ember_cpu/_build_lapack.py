# ruff: noqa: E501  (embedded C templates keep their natural line length)
"""C kernels of the linear-algebra decompositions over LAPACK (a ``_build.py`` extension).

``generate()`` returns the C source and the cdef declarations of the functions the
Python wrappers in ``ops_lapack.py`` call: Cholesky (``potrf``), QR (``geqrf`` +
``orgqr``), the symmetric eigensolver (``syevd``), the SVD (``gesdd``), LU with partial
pivoting (``getrf``) and the triangular solve (``trsm``), each for float32 and float64,
batched over a leading dimension. LAPACK comes from the scipy-openblas32 library that
``bmm`` already links; its symbols carry a ``scipy_`` prefix and take the Fortran
string lengths last (gfortran's ABI).

What must always hold:

- inputs and outputs are contiguous row-major batches (the wrapper makes them so),
  passed as ``char *`` plus an element offset; LAPACK works on a per-thread column-major
  copy, so inputs are never modified;
- a matrix's LAPACK ``info`` is written to the int32 ``info`` array, never raised here
  (the wrapper turns it into PyTorch's error); the return code is 0 or EM_ERR_ALLOC;
- batches are split over OpenMP threads (each matrix is one LAPACK call, OpenBLAS runs
  single-threaded, see ``em_blas_init``); results do not depend on the thread count.
"""

FLOATS = {"float32": ("f32", "float", "s"), "float64": ("f64", "double", "d")}

COMMON = r"""
#include "em_common.h"
#include <cblas.h>

/* LAPACK's leading dimensions must be at least 1, even for empty matrices */
#define EM_LA_LD(x) ((x) > 1 ? (int)(x) : 1)
/* B * n^3 below which a batch stays on the calling thread */
#define EM_LA_GRAIN 65536
/* a thread without its workspace records the failure and skips its matrices (every
 * thread still reaches the worksharing loop) */
#define EM_LA_FAIL(rc) do { _Pragma("omp atomic write") rc = EM_ERR_ALLOC; } while (0)

static inline int em_la_threads(int64_t B, int64_t work)
{
    if (B < 2 || work < EM_LA_GRAIN) return 1;
    int nth = em_max_threads();
    return nth > B ? (int)B : nth;
}
"""

# @T C type, @S dtype suffix, @L LAPACK prefix (s/d)
KERNELS = r"""
void scipy_@Lpotrf_(const char *uplo, const int *n, @T *a, const int *lda, int *info, size_t);
void scipy_@Lgeqrf_(const int *m, const int *n, @T *a, const int *lda, @T *tau, @T *work, const int *lwork, int *info);
void scipy_@Lorgqr_(const int *m, const int *n, const int *k, @T *a, const int *lda, const @T *tau, @T *work, const int *lwork, int *info);
void scipy_@Lsyevd_(const char *jobz, const char *uplo, const int *n, @T *a, const int *lda, @T *w, @T *work, const int *lwork, int *iwork, const int *liwork, int *info, size_t, size_t);
void scipy_@Lgesdd_(const char *jobz, const int *m, const int *n, @T *a, const int *lda, @T *s, @T *u, const int *ldu, @T *vt, const int *ldvt, @T *work, const int *lwork, int *iwork, int *info, size_t);
void scipy_@Lgetrf_(const int *m, const int *n, @T *a, const int *lda, int *ipiv, int *info);

/* w (column-major, leading dimension ld) <- the rows x cols row-major matrix a */
static inline void em_la_load_@S(@T *restrict w, int64_t ld, const @T *restrict a, int64_t rows, int64_t cols)
{
    for (int64_t j = 0; j < cols; j++)
        for (int64_t i = 0; i < rows; i++) w[j * ld + i] = a[i * cols + j];
}
/* o (row-major rows x cols) <- the column-major w; with tri > 0 only i <= j (upper),
 * tri < 0 only i >= j (lower), the rest zero */
static inline void em_la_store_@S(@T *restrict o, const @T *restrict w, int64_t ld, int64_t rows, int64_t cols, int tri)
{
    for (int64_t i = 0; i < rows; i++)
        for (int64_t j = 0; j < cols; j++) {
            const int keep = tri == 0 || (tri > 0 ? i <= j : i >= j);
            o[i * cols + j] = keep ? w[j * ld + i] : (@T)0;
        }
}

/* Cholesky: o = L (A = L L^T, from A's lower triangle) or U (A = U^T U, upper) */
int em_la_potrf_@S(int64_t B, int64_t n, const char *a, int64_t ao, char *o, int64_t oo, char *info, int64_t io, int upper)
{
    const @T *A = (const @T *)a + ao;
    @T *O = (@T *)o + oo;
    int32_t *INFO = (int32_t *)info + io;
    const int nth = em_la_threads(B, B * n * n * n);
    int rc = 0;
#pragma omp parallel num_threads(nth) if (nth > 1)
    {
        @T *w = malloc(sizeof(@T) * (size_t)(n * n > 0 ? n * n : 1));
        const int ni = (int)n, ld = EM_LA_LD(n);
        const char uplo = upper ? 'U' : 'L';
#pragma omp for schedule(dynamic)
        for (int64_t b = 0; b < B; b++) {
            int inf = 0;
            if (!w) { EM_LA_FAIL(rc); continue; }
            em_la_load_@S(w, n, A + b * n * n, n, n);
            if (n > 0) scipy_@Lpotrf_(&uplo, &ni, w, &ld, &inf, 1);
            /* OpenBLAS's potrf lets a NaN pivot through; LAPACK (and PyTorch) stop there */
            for (int64_t j = 0; inf == 0 && j < n; j++)
                if (w[j * ld + j] != w[j * ld + j]) inf = (int)j + 1;
            em_la_store_@S(O + b * n * n, w, n, n, n, upper ? 1 : -1);
            INFO[b] = inf;
        }
        free(w);
    }
    return rc;
}

/* QR: mode 0 reduced (Q m x k, R k x n), 1 complete (Q m x m, R m x n), 2 R only (k x n) */
int em_la_qr_@S(int64_t B, int64_t m, int64_t n, const char *a, int64_t ao, char *q, int64_t qo, char *r, int64_t ro, int mode)
{
    const @T *A = (const @T *)a + ao;
    @T *Q = mode == 2 ? NULL : (@T *)q + qo;
    @T *R = (@T *)r + ro;
    const int64_t k = m < n ? m : n;
    const int64_t qc = mode == 1 ? m : k, rr = mode == 1 ? m : k;
    const int mi = (int)m, ni = (int)n, ki = (int)k, qci = (int)qc, ld = EM_LA_LD(m);
    /* workspace query */
    int lwork = 1, inf = 0, q1 = -1;
    @T wq = 0, dummy = 0;
    if (k > 0) {
        scipy_@Lgeqrf_(&mi, &ni, &dummy, &ld, &dummy, &wq, &q1, &inf);
        if ((int)wq > lwork) lwork = (int)wq;
    }
    if (mode != 2 && qc > 0) {
        scipy_@Lorgqr_(&mi, &qci, &ki, &dummy, &ld, &dummy, &wq, &q1, &inf);
        if ((int)wq > lwork) lwork = (int)wq;
    }
    const int nth = em_la_threads(B, B * m * n * (m > n ? m : n));
    int rc = 0;
#pragma omp parallel num_threads(nth) if (nth > 1)
    {
        const size_t sw = (size_t)(m * n) + (size_t)(m * qc) + (size_t)k + (size_t)lwork + 1;
        @T *w = malloc(sizeof(@T) * sw);
        @T *qw = w + m * n, *tau = qw + m * qc, *work = tau + k + 1;
#pragma omp for schedule(dynamic)
        for (int64_t b = 0; b < B; b++) {
            int inf2 = 0;
            if (!w) { EM_LA_FAIL(rc); continue; }
            em_la_load_@S(w, m, A + b * m * n, m, n);
            if (k > 0) scipy_@Lgeqrf_(&mi, &ni, w, &ld, tau, work, &lwork, &inf2);
            em_la_store_@S(R + b * rr * n, w, m, rr, n, 1);
            if (mode != 2 && m > 0) {
                memcpy(qw, w, sizeof(@T) * (size_t)(m * k));
                if (qc > 0) scipy_@Lorgqr_(&mi, &qci, &ki, qw, &ld, tau, work, &lwork, &inf2);
                em_la_store_@S(Q + b * m * qc, qw, m, m, qc, 0);
            }
        }
        free(w);
    }
    return rc;
}

/* symmetric eigendecomposition: ascending eigenvalues e (B, n), eigenvectors as the
 * columns of v (B, n, n) when compute_v; from A's lower (lower = 1) or upper triangle */
int em_la_syevd_@S(int64_t B, int64_t n, const char *a, int64_t ao, char *e, int64_t eo, char *v, int64_t vo, char *info, int64_t io, int lower, int compute_v)
{
    const @T *A = (const @T *)a + ao;
    @T *E = (@T *)e + eo;
    @T *V = compute_v ? (@T *)v + vo : NULL;
    int32_t *INFO = (int32_t *)info + io;
    const int ni = (int)n, ld = EM_LA_LD(n);
    const char jobz = compute_v ? 'V' : 'N', uplo = lower ? 'L' : 'U';
    int lwork = 1, liwork = 1, inf = 0, q1 = -1, iwq = 0;
    @T wq = 0, dummy = 0;
    if (n > 0) {
        scipy_@Lsyevd_(&jobz, &uplo, &ni, &dummy, &ld, &dummy, &wq, &q1, &iwq, &q1, &inf, 1, 1);
        lwork = (int)wq > 1 ? (int)wq : 1;
        liwork = iwq > 1 ? iwq : 1;
    }
    const int nth = em_la_threads(B, B * n * n * n);
    int rc = 0;
#pragma omp parallel num_threads(nth) if (nth > 1)
    {
        @T *w = malloc(sizeof(@T) * ((size_t)(n * n) + (size_t)lwork + 1));
        int *iw = malloc(sizeof(int) * (size_t)liwork);
        @T *work = w + n * n;
#pragma omp for schedule(dynamic)
        for (int64_t b = 0; b < B; b++) {
            int inf2 = 0;
            if (!w || !iw) { EM_LA_FAIL(rc); continue; }
            em_la_load_@S(w, n, A + b * n * n, n, n);
            if (n > 0)
                scipy_@Lsyevd_(&jobz, &uplo, &ni, w, &ld, E + b * n, work, &lwork, iw, &liwork, &inf2, 1, 1);
            if (compute_v) em_la_store_@S(V + b * n * n, w, n, n, n, 0);
            INFO[b] = inf2;
        }
        free(w);
        free(iw);
    }
    return rc;
}

/* SVD by divide and conquer: s (B, k) descending; with jobz 'S' u (B, m, k) and
 * vh (B, k, n), with 'A' u (B, m, m) and vh (B, n, n), with 'N' neither */
int em_la_gesdd_@S(int64_t B, int64_t m, int64_t n, const char *a, int64_t ao, char *u, int64_t uo, char *s, int64_t so, char *vh, int64_t vo, char *info, int64_t io, char jobz)
{
    const @T *A = (const @T *)a + ao;
    @T *S = (@T *)s + so;
    const int uv = jobz != 'N';
    @T *U = uv ? (@T *)u + uo : NULL, *VH = uv ? (@T *)vh + vo : NULL;
    int32_t *INFO = (int32_t *)info + io;
    const int64_t k = m < n ? m : n;
    const int64_t uc = jobz == 'A' ? m : k, vr = jobz == 'A' ? n : k;
    const int mi = (int)m, ni = (int)n, ld = EM_LA_LD(m), ldu = EM_LA_LD(m), ldvt = EM_LA_LD(vr);
    int lwork = 1, inf = 0, q1 = -1;
    @T wq = 0, dummy = 0;
    int iwq = 0;
    if (k > 0) {
        scipy_@Lgesdd_(&jobz, &mi, &ni, &dummy, &ld, &dummy, &dummy, &ldu, &dummy, &ldvt, &wq, &q1, &iwq, &inf, 1);
        lwork = (int)wq > 1 ? (int)wq : 1;
    }
    const int64_t big = m > n ? m : n;
    const int nth = em_la_threads(B, B * big * big * k);
    int rc = 0;
#pragma omp parallel num_threads(nth) if (nth > 1)
    {
        const size_t sz = (size_t)(m * n) + (uv ? (size_t)(m * uc) + (size_t)(vr * n) : 0) + (size_t)lwork + 1;
        @T *w = malloc(sizeof(@T) * sz);
        int *iw = malloc(sizeof(int) * (size_t)(8 * k + 1));
        @T *uw = w + m * n, *vw = uw + (uv ? m * uc : 0), *work = vw + (uv ? vr * n : 0);
#pragma omp for schedule(dynamic)
        for (int64_t b = 0; b < B; b++) {
            int inf2 = 0;
            if (!w || !iw) { EM_LA_FAIL(rc); continue; }
            em_la_load_@S(w, m, A + b * m * n, m, n);
            if (k > 0) {
                scipy_@Lgesdd_(&jobz, &mi, &ni, w, &ld, S + b * k, uw, &ldu, vw, &ldvt, work, &lwork, iw, &inf2, 1);
            } else if (uv) {
                /* no singular values: the complete bases are identities */
                memset(uw, 0, sizeof(@T) * (size_t)(m * uc));
                for (int64_t i = 0; i < (uc < m ? uc : m); i++) uw[i * m + i] = 1;
                memset(vw, 0, sizeof(@T) * (size_t)(vr * n));
                for (int64_t i = 0; i < (vr < n ? vr : n); i++) vw[i * vr + i] = 1;
            }
            if (uv) {
                em_la_store_@S(U + b * m * uc, uw, m, m, uc, 0);
                em_la_store_@S(VH + b * vr * n, vw, vr, vr, n, 0);
            }
            INFO[b] = inf2;
        }
        free(w);
        free(iw);
    }
    return rc;
}

/* LU with partial pivoting: lu (B, m, n) holds L (unit diagonal, below) and U; piv
 * (B, min(m, n)) the 1-based row interchanges, as LAPACK and PyTorch give them */
int em_la_getrf_@S(int64_t B, int64_t m, int64_t n, const char *a, int64_t ao, char *lu, int64_t lo, char *piv, int64_t po, char *info, int64_t io)
{
    const @T *A = (const @T *)a + ao;
    @T *LU = (@T *)lu + lo;
    int32_t *P = (int32_t *)piv + po, *INFO = (int32_t *)info + io;
    const int64_t k = m < n ? m : n;
    const int mi = (int)m, ni = (int)n, ld = EM_LA_LD(m);
    const int nth = em_la_threads(B, B * m * n * k);
    int rc = 0;
#pragma omp parallel num_threads(nth) if (nth > 1)
    {
        @T *w = malloc(sizeof(@T) * (size_t)(m * n > 0 ? m * n : 1));
#pragma omp for schedule(dynamic)
        for (int64_t b = 0; b < B; b++) {
            int inf2 = 0;
            if (!w) { EM_LA_FAIL(rc); continue; }
            em_la_load_@S(w, m, A + b * m * n, m, n);
            if (k > 0) scipy_@Lgetrf_(&mi, &ni, w, &ld, P + b * k, &inf2);
            em_la_store_@S(LU + b * m * n, w, m, m, n, 0);
            INFO[b] = inf2;
        }
        free(w);
    }
    return rc;
}

/* triangular solve in place: x (B, m, n) <- op(A)^-1 x (left) or x op(A)^-1 (right),
 * A (B, k, k) with k = m (left) or n (right); no singularity check (as PyTorch) */
int em_la_trsm_@S(int64_t B, int64_t m, int64_t n, const char *a, int64_t ao, char *x, int64_t xo, int left, int upper, int unit, int trans)
{
    const @T *A = (const @T *)a + ao;
    @T *X = (@T *)x + xo;
    const int64_t k = left ? m : n;
    if (m == 0 || n == 0) return 0;
    const int nth = em_la_threads(B, B * k * k * (left ? n : m));
#pragma omp parallel for num_threads(nth) if (nth > 1) schedule(dynamic)
    for (int64_t b = 0; b < B; b++)
        scipy_cblas_@Ltrsm(CblasRowMajor, left ? CblasLeft : CblasRight, upper ? CblasUpper : CblasLower,
                           trans ? CblasTrans : CblasNoTrans, unit ? CblasUnit : CblasNonUnit,
                           (int)m, (int)n, (@T)1, A + b * k * k, (int)k, X + b * m * n, (int)n);
    return 0;
}
"""

DECLS = [
    "int em_la_potrf_@S(int64_t B, int64_t n, const char *a, int64_t ao, char *o, int64_t oo, char *info, int64_t io, int upper);",
    "int em_la_qr_@S(int64_t B, int64_t m, int64_t n, const char *a, int64_t ao, char *q, int64_t qo, char *r, int64_t ro, int mode);",
    "int em_la_syevd_@S(int64_t B, int64_t n, const char *a, int64_t ao, char *e, int64_t eo, char *v, int64_t vo, char *info, int64_t io, int lower, int compute_v);",
    "int em_la_gesdd_@S(int64_t B, int64_t m, int64_t n, const char *a, int64_t ao, char *u, int64_t uo, char *s, int64_t so, char *vh, int64_t vo, char *info, int64_t io, char jobz);",
    "int em_la_getrf_@S(int64_t B, int64_t m, int64_t n, const char *a, int64_t ao, char *lu, int64_t lo, char *piv, int64_t po, char *info, int64_t io);",
    "int em_la_trsm_@S(int64_t B, int64_t m, int64_t n, const char *a, int64_t ao, char *x, int64_t xo, int left, int upper, int unit, int trans);",
]


def _expand(text: str, rep: dict[str, str]) -> str:
    for k in sorted(rep, key=len, reverse=True):
        text = text.replace(k, rep[k])
    return text


def generate():
    parts = [COMMON]
    decls = []
    for s, ct, lp in FLOATS.values():
        rep = {"@T": ct, "@S": s, "@L": lp}
        parts.append(_expand(KERNELS, rep))
        decls += [_expand(d, rep) for d in DECLS]
    return "\n".join(parts), decls


if __name__ == "__main__":  # print the C source
    print(generate()[0])
