# ruff: noqa: E501  (embedded C templates keep their natural line length)
"""C kernels for gather, scatter, advanced indexing, nonzero and sort (a ``_build.py`` extension).

``generate()`` returns (C source, [cdef declaration, ...]); ``_build.py`` compiles the
source as a translation unit of its own (after ``em_common.h``).  Variants are
expanded from the templates below: movement kernels per itemsize (``_1 _2 _4 _8``,
bits moved as unsigned integers), arithmetic ones per dtype (``_f32``, ``_i64``, ...).

What must always hold (the wrappers in ``ops_index.py`` rely on it):
  * strides and offsets arrive in ELEMENTS; pointers are the storage base (char *);
  * a kernel returns 0, EM_ERR_ALLOC, EM_ERR_NDIM or EM_ERR_INDEX; on EM_ERR_INDEX
    ``em_ix_error()`` gives (value as given, dimension, size) of the first bad index
    in row-major order (see Note [ember_cpu index errors]);
  * in-place kernels (scatter, index_put_) validate every index before writing.
"""

from string import Template

# dtype name -> (suffix, C type, itemsize, kind)
DTYPES = {
    "bool": ("b", "uint8_t", 1, "bool"),
    "uint8": ("u8", "uint8_t", 1, "int"),
    "int8": ("i8", "int8_t", 1, "int"),
    "int16": ("i16", "int16_t", 2, "int"),
    "int32": ("i32", "int32_t", 4, "int"),
    "int64": ("i64", "int64_t", 8, "int"),
    "float16": ("f16", "uint16_t", 2, "half"),
    "bfloat16": ("bf16", "uint16_t", 2, "half"),
    "float32": ("f32", "float", 4, "float"),
    "float64": ("f64", "double", 8, "float"),
}
WIDTHS = (1, 2, 4, 8)
INTS = ("uint8", "int8", "int16", "int32", "int64")
#: reductions of scatter_reduce_ (besides "none", which moves bits) and their dtypes
SCATTER_REDUCE = ("sum", "prod", "mean", "amax", "amin")
SCATTER_DTYPES = INTS + ("float32", "float64")
LIMITS = {
    "uint8": ("0", "UINT8_MAX"),
    "int8": ("INT8_MIN", "INT8_MAX"),
    "int16": ("INT16_MIN", "INT16_MAX"),
    "int32": ("INT32_MIN", "INT32_MAX"),
    "int64": ("INT64_MIN", "INT64_MAX"),
    "float32": ("-INFINITY", "INFINITY"),
    "float64": ("-INFINITY", "INFINITY"),
}

# ---------------------------------------------------------------------------
# shared helpers (not templated)
COMMON = r"""
/* ==================================================================== */
/* indexing family: gather / scatter / index / index_put_ / nonzero / sort */

/* Note [ember_cpu index errors]
 * A kernel meeting an out-of-range index returns EM_ERR_INDEX after storing,
 * in thread-local storage of the calling thread (kernels report only outside
 * their parallel regions), the first bad index in row-major order of the
 * index tensor: its value as given (before wrapping), the dimension it indexes
 * and that dimension's size.  The wrapper reads it with em_ix_error() and
 * formats the operator's IndexError; nothing is allocated on the good path. */
#define EM_ERR_INDEX 16
#define EM_IX_GRAIN 32768   /* elements of work before threads are used */
#define EM_IX_BLOCK 256     /* index positions whose offsets are computed at once */

static __thread int64_t em_ix_err[3];

void em_ix_error(int64_t *info) { info[0] = em_ix_err[0]; info[1] = em_ix_err[1]; info[2] = em_ix_err[2]; }

static inline int em_ix_nth(int64_t work)
{
    if (work < EM_IX_GRAIN) return 1;
    int nth = em_max_threads();
    int64_t m = work / (EM_IX_GRAIN / 2);
    return nth > m ? (int)m : nth;
}

/* Drop size-1 dims and merge adjacent dims that are linear for every operand
 * (st: nop rows of EM_MAXDIM strides, any unit).  Keeps at least one dim. */
static int em_ix_coalesce(int nd, int64_t *shape, int nop, int64_t (*st)[EM_MAXDIM])
{
    int o = 0, d, k;
    for (d = 0; d < nd; d++) {
        if (shape[d] == 1) continue;
        if (o > 0) {
            int ok = 1;
            for (k = 0; k < nop; k++)
                if (st[k][o - 1] != st[k][d] * shape[d]) { ok = 0; break; }
            if (ok) {
                shape[o - 1] *= shape[d];
                for (k = 0; k < nop; k++) st[k][o - 1] = st[k][d];
                continue;
            }
        }
        shape[o] = shape[d];
        for (k = 0; k < nop; k++) st[k][o] = st[k][d];
        o++;
    }
    if (o == 0) {
        shape[0] = 1;
        for (k = 0; k < nop; k++) st[k][0] = 0;
        o = 1;
    }
    return o;
}

/* st[k][d] -> the flat layout of em_drive (flat[k * nd + d]), times a byte size */
static void em_ix_flat(int nd, int nop, int64_t (*st)[EM_MAXDIM], const int64_t *isz, int64_t *flat)
{
    for (int k = 0; k < nop; k++)
        for (int d = 0; d < nd; d++) flat[k * nd + d] = st[k][d] * isz[k];
}

/* first out-of-range value of a strided int64 tensor, row-major (error path only) */
static void em_ix_find(int nd, const int64_t *shape, const int64_t *st, const int64_t *p,
                       int64_t size, int wrap, int dim)
{
    int64_t c[EM_MAXDIM], numel = 1;
    int d;
    for (d = 0; d < nd; d++) { c[d] = 0; numel *= shape[d]; }
    for (int64_t i = 0; i < numel; i++) {
        int64_t off = 0;
        for (d = 0; d < nd; d++) off += c[d] * st[d];
        int64_t v = p[off], w = (wrap && v < 0) ? v + size : v;
        if (w < 0 || w >= size) {
            em_ix_err[0] = v; em_ix_err[1] = dim; em_ix_err[2] = size;
            return;
        }
        for (d = nd - 1; d >= 0; d--) {
            if (++c[d] < shape[d]) break;
            c[d] = 0;
        }
    }
}

/* range check of n strided indices (an em_drive inner function) */
static int em_ix_chk_in(int64_t n, char *const *p, const int64_t *s, const void *ctx)
{
    const int64_t *ix = (const int64_t *)p[0];
    const int64_t is = s[0] / 8;
    const uint64_t size = (uint64_t)*(const int64_t *)ctx;
    uint64_t bad = 0;
    if (is == 1)
        for (int64_t j = 0; j < n; j++) bad |= (uint64_t)ix[j] >= size;
    else
        for (int64_t j = 0; j < n; j++) bad |= (uint64_t)ix[j * is] >= size;
    return bad ? EM_ERR_INDEX : 0;
}

/* EM_ERR_INDEX if some index of the strided int64 tensor is outside [0, size) */
static int em_ix_check(int nd, const int64_t *shape, const int64_t *st, const int64_t *p,
                       int64_t size, int dim)
{
    int64_t sh[EM_MAXDIM], s[1][EM_MAXDIM], flat[EM_MAXDIM], isz = 8;
    for (int d = 0; d < nd; d++) { sh[d] = shape[d]; s[0][d] = st[d]; }
    int n2 = em_ix_coalesce(nd, sh, 1, s);
    em_ix_flat(n2, 1, s, &isz, flat);
    char *base[1] = { (char *)p };
    int rc = em_drive(em_ix_chk_in, 1, n2, sh, flat, base, &size, EM_IX_GRAIN);
    if (rc) em_ix_find(nd, shape, st, p, size, 0, dim);
    return rc ? EM_ERR_INDEX : 0;
}

/* ---------------------------------------------------------------- */
/* K index tensors of one broadcast shape B (index / index_put_)      */

typedef struct {
    int K, bnd;                    /* number of index tensors, coalesced dims of B */
    int64_t bshape[EM_MAXDIM];
    int64_t ist[EM_MAXDIM + 1][EM_MAXDIM];  /* rows 0..K-1: index strides; row K: values */
    const int64_t *ip[EM_MAXDIM];  /* index data (offset applied) */
    int64_t size[EM_MAXDIM], sst[EM_MAXDIM];  /* self size / element stride of indexed dim k */
    int has_v;                     /* row K (values' B strides) in use */
} em_ixp;

static int em_ixp_init(em_ixp *P, int K, int bnd, const int64_t *bshape, const int64_t *ist,
                       char *const *ih, const int64_t *ioff, const int64_t *sshape,
                       const int64_t *sst, const int64_t *vst)
{
    if (K > EM_MAXDIM || bnd > EM_MAXDIM) return EM_ERR_NDIM;
    P->K = K;
    P->has_v = vst != NULL;
    for (int d = 0; d < bnd; d++) {
        P->bshape[d] = bshape[d];
        for (int k = 0; k < K; k++) P->ist[k][d] = ist[k * bnd + d];
        P->ist[K][d] = vst ? vst[d] : 0;
    }
    for (int k = 0; k < K; k++) {
        P->ip[k] = (const int64_t *)ih[k] + ioff[k];
        P->size[k] = sshape[k];
        P->sst[k] = sst[k];
    }
    P->bnd = em_ix_coalesce(bnd, P->bshape, K + P->has_v, P->ist);
    return 0;
}

/* For the flat B positions [lo, lo + n): offs[j] = sum_k wrap(i_k) * sst_k
 * (elements of self) and, with has_v, voffs[j] = the values' B offset.  A bad
 * index contributes 0; the return value says whether there was one. */
static int em_ix_offs(const em_ixp *P, int64_t lo, int64_t n, int64_t *offs, int64_t *voffs)
{
    const int nd = P->bnd, L = nd - 1, K = P->K;
    int64_t c[EM_MAXDIM], rem = lo;
    uint64_t bad = 0;
    int d, k;
    for (d = L; d >= 0; d--) { c[d] = rem % P->bshape[d]; rem /= P->bshape[d]; }
    int64_t done = 0;
    while (done < n) {
        int64_t cnt = P->bshape[L] - c[L];
        if (cnt > n - done) cnt = n - done;
        int64_t *o = offs + done;
        for (k = 0; k < K; k++) {
            const int64_t *ix = P->ip[k];
            for (d = 0; d < nd; d++) ix += c[d] * P->ist[k][d];
            const int64_t is = P->ist[k][L], ss = P->sst[k];
            const int64_t sz = P->size[k];
            if (k == 0) {
                if (is == 1)
                    for (int64_t j = 0; j < cnt; j++) {
                        int64_t v = ix[j];
                        v += v < 0 ? sz : 0;
                        bad |= (uint64_t)v >= (uint64_t)sz;
                        o[j] = ((uint64_t)v < (uint64_t)sz ? v : 0) * ss;
                    }
                else
                    for (int64_t j = 0; j < cnt; j++) {
                        int64_t v = ix[j * is];
                        v += v < 0 ? sz : 0;
                        bad |= (uint64_t)v >= (uint64_t)sz;
                        o[j] = ((uint64_t)v < (uint64_t)sz ? v : 0) * ss;
                    }
            } else {
                for (int64_t j = 0; j < cnt; j++) {
                    int64_t v = ix[j * is];
                    v += v < 0 ? sz : 0;
                    bad |= (uint64_t)v >= (uint64_t)sz;
                    o[j] += ((uint64_t)v < (uint64_t)sz ? v : 0) * ss;
                }
            }
        }
        if (voffs != NULL) {   /* has_v */
            int64_t vb = 0;
            for (d = 0; d < nd; d++) vb += c[d] * P->ist[K][d];
            const int64_t vs = P->ist[K][L];
            for (int64_t j = 0; j < cnt; j++) voffs[done + j] = vb + j * vs;
        }
        done += cnt;
        c[L] += cnt;
        for (d = L; d > 0 && c[d] >= P->bshape[d]; d--) { c[d] = 0; c[d - 1]++; }
    }
    return bad != 0;
}

/* the first bad index (row-major over B, then k), stored for em_ix_error() */
static void em_ix_findK(const em_ixp *P)
{
    const int nd = P->bnd;
    int64_t c[EM_MAXDIM], nb = 1;
    int d;
    for (d = 0; d < nd; d++) { c[d] = 0; nb *= P->bshape[d]; }
    for (int64_t b = 0; b < nb; b++) {
        for (int k = 0; k < P->K; k++) {
            int64_t off = 0;
            for (d = 0; d < nd; d++) off += c[d] * P->ist[k][d];
            int64_t v = P->ip[k][off], w = v < 0 ? v + P->size[k] : v;
            if (w < 0 || w >= P->size[k]) {
                em_ix_err[0] = v; em_ix_err[1] = k; em_ix_err[2] = P->size[k];
                return;
            }
        }
        for (d = nd - 1; d >= 0; d--) {
            if (++c[d] < P->bshape[d]) break;
            c[d] = 0;
        }
    }
}

/* EM_ERR_INDEX (with em_ix_err set) if some index is out of range */
static int em_ix_checkK(const em_ixp *P, int64_t nb)
{
    int bad = 0;
    int nth = em_ix_nth(nb * P->K);
#pragma omp parallel num_threads(nth) reduction(| : bad) if (nth > 1)
    {
#ifdef _OPENMP
        int t = omp_get_thread_num(), T = omp_get_num_threads();
#else
        int t = 0, T = 1;
#endif
        int64_t offs[EM_IX_BLOCK];
        int64_t lo = nb * t / T, hi = nb * (t + 1) / T;
        for (int64_t b = lo; b < hi; b += EM_IX_BLOCK) {
            int64_t cnt = hi - b < EM_IX_BLOCK ? hi - b : EM_IX_BLOCK;
            bad |= em_ix_offs(P, b, cnt, offs, NULL);
        }
    }
    if (bad) em_ix_findK(P);
    return bad ? EM_ERR_INDEX : 0;
}

/* the trailing dims R = self.shape[K:] of self and of a second operand,
 * coalesced; element strides */
typedef struct {
    int nd;
    int64_t n;                     /* numel(R) */
    int64_t shape[EM_MAXDIM];
    int64_t st[2][EM_MAXDIM];      /* 0: destination, 1: source */
    int64_t flat[2 * EM_MAXDIM];   /* byte strides in em_drive layout */
} em_ixr;

static void em_ixr_init(em_ixr *R, int nd, const int64_t *shape, const int64_t *dst,
                        const int64_t *src, int64_t isz)
{
    int64_t acc = 1;
    for (int d = nd - 1; d >= 0; d--) {   /* NULL: that operand is contiguous */
        R->shape[d] = shape[d];
        R->st[0][d] = dst ? dst[d] : acc;
        R->st[1][d] = src ? src[d] : acc;
        acc *= shape[d];
    }
    R->n = acc;
    R->nd = em_ix_coalesce(nd, R->shape, 2, R->st);
    int64_t isz2[2] = { isz, isz };
    em_ix_flat(R->nd, 2, R->st, isz2, R->flat);
}

/* ---------------------------------------------------------------- */
/* sort: keys mapped to unsigned integers whose order is the wanted one
 * (floats: sign-magnitude flip, -0 -> +0, every NaN -> the largest key;
 * descending: complemented keys), then a stable sort of (key, position)
 * pairs: LSD radix sort (skipping passes whose digit is constant) for long
 * rows, merge sort over insertion-sorted runs of 16 for short ones. */

typedef struct { uint32_t k, i; } em_sp32;
typedef struct { uint64_t k, i; } em_sp64;
"""

# the two sort kernels: pairs with 32-bit keys (1/2/4-byte dtypes) and with 64-bit keys
SORT_T = r"""
static void em_isort_${B}(em_sp${B} *a, int64_t n)
{
    for (int64_t i = 1; i < n; i++) {
        em_sp${B} x = a[i];
        int64_t j = i;
        while (j > 0 && a[j - 1].k > x.k) { a[j] = a[j - 1]; j--; }
        a[j] = x;
    }
}

/* sorts a[0:n] stably, using tmp[0:n]; returns the buffer holding the result */
static em_sp${B} *em_msort_${B}(em_sp${B} *a, em_sp${B} *tmp, int64_t n)
{
    for (int64_t i = 0; i < n; i += 16) em_isort_${B}(a + i, n - i < 16 ? n - i : 16);
    em_sp${B} *src = a, *dst = tmp;
    for (int64_t w = 16; w < n; w *= 2) {
        for (int64_t lo = 0; lo < n; lo += 2 * w) {
            int64_t mid = lo + w < n ? lo + w : n, hi = lo + 2 * w < n ? lo + 2 * w : n;
            int64_t i = lo, j = mid, o = lo;
            if (mid == hi || src[mid - 1].k <= src[mid].k) {   /* already in order */
                memcpy(dst + lo, src + lo, (size_t)(hi - lo) * sizeof(em_sp${B}));
                continue;
            }
            while (i < mid && j < hi) dst[o++] = (src[j].k < src[i].k) ? src[j++] : src[i++];
            while (i < mid) dst[o++] = src[i++];
            while (j < hi) dst[o++] = src[j++];
        }
        em_sp${B} *t = src; src = dst; dst = t;
    }
    return src;
}

/* LSD radix sort over the low `nbytes` bytes of the keys */
static em_sp${B} *em_rsort_${B}(em_sp${B} *a, em_sp${B} *tmp, int64_t n, int nbytes)
{
    int64_t (*h)[256] = (int64_t (*)[256])calloc((size_t)nbytes * 256, sizeof(int64_t));
    if (h == NULL) return em_msort_${B}(a, tmp, n);
    for (int64_t i = 0; i < n; i++) {
        uint${B}_t k = a[i].k;
        for (int b = 0; b < nbytes; b++) h[b][(k >> (8 * b)) & 255]++;
    }
    em_sp${B} *src = a, *dst = tmp;
    for (int b = 0; b < nbytes; b++) {
        int64_t *hb = h[b], sum = 0;
        int trivial = 0;
        for (int d = 0; d < 256; d++) {
            if (hb[d] == n) { trivial = 1; break; }
            int64_t c = hb[d];
            hb[d] = sum;
            sum += c;
        }
        if (trivial) continue;
        const int sh = 8 * b;
        for (int64_t i = 0; i < n; i++) dst[hb[(src[i].k >> sh) & 255]++] = src[i];
        em_sp${B} *t = src; src = dst; dst = t;
    }
    free(h);
    return src;
}

static em_sp${B} *em_sort_pairs_${B}(em_sp${B} *a, em_sp${B} *tmp, int64_t n, int nbytes)
{
    if (n <= 16) { em_isort_${B}(a, n); return a; }
    if (n >= 128 * nbytes + 128) return em_rsort_${B}(a, tmp, n, nbytes);
    return em_msort_${B}(a, tmp, n);
}
"""

# ---------------------------------------------------------------------------
# movement kernels, per itemsize W (T = uintW_t)
MOVE_T = r"""
/* ---- itemsize ${W} ---- */
typedef struct { int64_t size, sds; } em_gctx_${W};   /* size of dim, self byte stride of dim */

/* out[j] = self[j * xs + index[j] * sds]; p: out, self (dim coordinate 0), index */
static int em_gather_in_${W}(int64_t n, char *const *p, const int64_t *s, const void *ctx)
{
    const em_gctx_${W} *c = (const em_gctx_${W} *)ctx;
    const uint64_t size = (uint64_t)c->size;
    const int64_t sds = c->sds / ${W};
    ${T} *o = (${T} *)p[0];
    const ${T} *x = (const ${T} *)p[1];
    const int64_t *ix = (const int64_t *)p[2];
    const int64_t os = s[0] / ${W}, xs = s[1] / ${W}, is = s[2] / 8;
    uint64_t bad = 0;
    if (os == 1 && is == 1 && xs == 0 && sds == 1) {          /* along a contiguous last dim */
        for (int64_t j = 0; j < n; j++) {
            uint64_t v = (uint64_t)ix[j];
            bad |= v >= size;
            o[j] = x[v < size ? v : 0];
        }
    } else if (os == 1 && is == 1) {
        for (int64_t j = 0; j < n; j++) {
            uint64_t v = (uint64_t)ix[j];
            bad |= v >= size;
            o[j] = x[j * xs + (int64_t)(v < size ? v : 0) * sds];
        }
    } else {
        for (int64_t j = 0; j < n; j++) {
            uint64_t v = (uint64_t)ix[j * is];
            bad |= v >= size;
            o[j * os] = x[j * xs + (int64_t)(v < size ? v : 0) * sds];
        }
    }
    return bad ? EM_ERR_INDEX : 0;
}

int em_gather_${W}(int nd, const int64_t *ishape, const int64_t *ist, const int64_t *sst,
                   int dim, int64_t size, char *out, int64_t ooff, char *self, int64_t soff,
                   char *idx, int64_t ioff)
{
    if (nd > EM_MAXDIM || nd < 1) return EM_ERR_NDIM;
    int64_t shape[EM_MAXDIM], st[3][EM_MAXDIM], flat[3 * EM_MAXDIM], acc = 1;
    for (int d = nd - 1; d >= 0; d--) {
        shape[d] = ishape[d];
        st[0][d] = acc;
        st[1][d] = d == dim ? 0 : sst[d];   /* the index supplies the dim coordinate */
        st[2][d] = ist[d];
        acc *= ishape[d];
    }
    if (acc == 0) return 0;
    if (size == 0) {   /* every index is out of range (and self may have no storage) */
        em_ix_find(nd, ishape, ist, (const int64_t *)idx + ioff, size, 0, dim);
        return EM_ERR_INDEX;
    }
    int n2 = em_ix_coalesce(nd, shape, 3, st);
    const int64_t isz[3] = { ${W}, ${W}, 8 };
    em_ix_flat(n2, 3, st, isz, flat);
    em_gctx_${W} c = { size, sst[dim] * ${W} };
    char *base[3] = { out + ooff * ${W}, self + soff * ${W}, idx + ioff * 8 };
    int rc = em_drive(em_gather_in_${W}, 3, n2, shape, flat, base, &c, EM_IX_GRAIN);
    if (rc == EM_ERR_INDEX) em_ix_find(nd, ishape, ist, (const int64_t *)idx + ioff, size, 0, dim);
    return rc;
}

/* plain copy / assignment of n strided elements: p[0][j] = p[1][j] */
static int em_ix_copy_in_${W}(int64_t n, char *const *p, const int64_t *s, const void *ctx)
{
    ${T} *o = (${T} *)p[0];
    const ${T} *x = (const ${T} *)p[1];
    const int64_t os = s[0] / ${W}, xs = s[1] / ${W};
    if (os == 1 && xs == 1) { memmove(o, x, (size_t)n * ${W}); return 0; }
    for (int64_t j = 0; j < n; j++) o[j * os] = x[j * xs];
    return 0;
}

/* out[b, r] = self[i0[b], ..., i{K-1}[b], r]; out contiguous (B + R) */
int em_index_${W}(int K, int bnd, const int64_t *bshape, const int64_t *ist, char **ih,
                  const int64_t *ioff, int snd, const int64_t *sshape, const int64_t *sst,
                  char *self, int64_t soff, char *out, int64_t ooff)
{
    if (snd > EM_MAXDIM) return EM_ERR_NDIM;
    em_ixp P;
    int rc = em_ixp_init(&P, K, bnd, bshape, ist, ih, ioff, sshape, sst, NULL);
    if (rc) return rc;
    int64_t nb = 1;
    for (int d = 0; d < bnd; d++) nb *= bshape[d];
    em_ixr R;
    em_ixr_init(&R, snd - K, sshape + K, NULL, sst + K, ${W});
    const int64_t nr = R.n;
    if (nb == 0 || nr == 0) return 0;
    for (int k = 0; k < K; k++)
        if (P.size[k] == 0) { em_ix_findK(&P); return EM_ERR_INDEX; }
    const ${T} *x = (const ${T} *)self + soff;
    ${T} *o0 = (${T} *)out + ooff;
    /* 0: one element per position, 1: one memcpy per position, 2: strided rows */
    const int mode = nr == 1 ? 0 : (R.nd == 1 && R.st[1][0] == 1) ? 1 : 2;
    int bad = 0;
    int nth = em_ix_nth(nb * (nr + K));
    if (nth > nb) nth = (int)nb;
#pragma omp parallel num_threads(nth) reduction(| : bad) if (nth > 1)
    {
#ifdef _OPENMP
        int t = omp_get_thread_num(), T = omp_get_num_threads();
#else
        int t = 0, T = 1;
#endif
        int64_t offs[EM_IX_BLOCK];
        int64_t lo = nb * t / T, hi = nb * (t + 1) / T;
        for (int64_t b = lo; b < hi && !bad; b += EM_IX_BLOCK) {
            int64_t cnt = hi - b < EM_IX_BLOCK ? hi - b : EM_IX_BLOCK;
            bad |= em_ix_offs(&P, b, cnt, offs, NULL);
            if (mode == 0) {
                ${T} *o = o0 + b;
                for (int64_t j = 0; j < cnt; j++) o[j] = x[offs[j]];
            } else if (mode == 1) {
                for (int64_t j = 0; j < cnt; j++)
                    memcpy(o0 + (b + j) * nr, x + offs[j], (size_t)nr * ${W});
            } else {
                for (int64_t j = 0; j < cnt; j++) {
                    char *pp[2] = { (char *)(o0 + (b + j) * nr), (char *)(x + offs[j]) };
                    if (R.nd == 1) em_ix_copy_in_${W}(nr, pp, R.flat, NULL);
                    else em_drive_range(em_ix_copy_in_${W}, 2, R.nd, R.shape, R.flat, pp, NULL, 0, nr);
                }
            }
        }
    }
    if (bad) { em_ix_findK(&P); return EM_ERR_INDEX; }
    return 0;
}

/* scatter_ ("none"): self[.., index[p], ..] = src[p], serial along dim */

static int em_scatter_in_none_${W}(int64_t n, char *const *p, const int64_t *s, const void *ctx)
{
    const em_sctx *c = (const em_sctx *)ctx;
    ${T} *x = (${T} *)p[0];
    const int64_t *ix = (const int64_t *)p[1];
    const ${T} *r = (const ${T} *)p[2];
    const int64_t xs = s[0] / ${W}, is = s[1] / 8, rs = s[2] / ${W};
    const int64_t m = c->m, ids = c->ids, sds = c->sds, rds = c->rds;
    for (int64_t k = 0; k < m; k++)
        for (int64_t j = 0; j < n; j++)
            x[j * xs + ix[j * is + k * ids] * sds] = r[j * rs + k * rds];
    return 0;
}
"""

# one driver for every scatter variant: walk the non-dim positions (in parallel),
# the inner function loops serially along dim
SCATTER_DRIVER = r"""
/* scatter context: extent m of the index along dim, the element strides along
 * dim of index, self and src, and self's size along dim */
typedef struct { int64_t m, ids, sds, rds; int include_self; int64_t size; } em_sctx;

static int em_scatter_run(em_inner_t fn, int nd, const int64_t *ishape, const int64_t *ist,
                          const int64_t *sst, const int64_t *rst, int dim, int64_t size,
                          int64_t isz, char *self, int64_t soff, char *idx, int64_t ioff,
                          char *src, int64_t roff, void *ctx)
{
    if (nd > EM_MAXDIM || nd < 1) return EM_ERR_NDIM;
    int64_t numel = 1;
    for (int d = 0; d < nd; d++) numel *= ishape[d];
    if (numel == 0) return 0;
    const int64_t *ip = (const int64_t *)idx + ioff;
    if (em_ix_check(nd, ishape, ist, ip, size, dim)) return EM_ERR_INDEX;
    int64_t shape[EM_MAXDIM], st[3][EM_MAXDIM], flat[3 * EM_MAXDIM];
    int o = 0;
    for (int d = 0; d < nd; d++) {
        if (d == dim) continue;
        shape[o] = ishape[d];
        st[0][o] = sst[d]; st[1][o] = ist[d]; st[2][o] = rst[d];
        o++;
    }
    int n2 = em_ix_coalesce(o, shape, 3, st);
    const int64_t isz3[3] = { isz, 8, isz };
    em_ix_flat(n2, 3, st, isz3, flat);
    em_sctx *c = (em_sctx *)ctx;
    c->m = ishape[dim]; c->ids = ist[dim]; c->sds = sst[dim]; c->rds = rst[dim];
    char *base[3] = { self + soff * isz, idx + ioff * 8, src + roff * isz };
    int64_t grain = EM_IX_GRAIN / (c->m > 0 ? c->m : 1);
    return em_drive(fn, 3, n2, shape, flat, base, ctx, grain > 2 ? grain : 2);
}
"""

MOVE_EXPORT_T = r"""
int em_scatter_none_${W}(int nd, const int64_t *ishape, const int64_t *ist, const int64_t *sst,
                         const int64_t *rst, int dim, int64_t size, int include_self,
                         char *self, int64_t soff, char *idx, int64_t ioff, char *src, int64_t roff)
{
    em_sctx c;
    return em_scatter_run(em_scatter_in_none_${W}, nd, ishape, ist, sst, rst, dim, size, ${W},
                          self, soff, idx, ioff, src, roff, &c);
}
"""

# scatter_reduce_ per (reduction, dtype): ${COMBINE} updates *t with v
SCATTER_T = r"""

static int em_scatter_in_${R}_${S}(int64_t n, char *const *p, const int64_t *s, const void *ctx)
{
    const em_sctx *c = (const em_sctx *)ctx;
    ${T} *x = (${T} *)p[0];
    const int64_t *ix = (const int64_t *)p[1];
    const ${T} *r = (const ${T} *)p[2];
    const int64_t xs = s[0] / (int64_t)sizeof(${T}), is = s[1] / 8, rs = s[2] / (int64_t)sizeof(${T});
    const int64_t m = c->m, ids = c->ids, sds = c->sds, rds = c->rds;
    int64_t k, j;
    if (!c->include_self)
        for (k = 0; k < m; k++)
            for (j = 0; j < n; j++) x[j * xs + ix[j * is + k * ids] * sds] = ${IDENT};
    for (k = 0; k < m; k++)
        for (j = 0; j < n; j++) {
            ${T} *t = x + j * xs + ix[j * is + k * ids] * sds;
            ${T} v = r[j * rs + k * rds];
            ${COMBINE}
        }
    return 0;
}
"""

# "mean": sums, then a division by the per-target counts (kept for blocks of
# positions: count slot = position * size + index)
SCATTER_MEAN_T = r"""

static int em_scatter_in_mean_${S}(int64_t n, char *const *p, const int64_t *s, const void *ctx)
{
    const em_sctx *c = (const em_sctx *)ctx;
    ${T} *x0 = (${T} *)p[0];
    const int64_t *ix0 = (const int64_t *)p[1];
    const ${T} *r0 = (const ${T} *)p[2];
    const int64_t xs = s[0] / (int64_t)sizeof(${T}), is = s[1] / 8, rs = s[2] / (int64_t)sizeof(${T});
    const int64_t m = c->m, ids = c->ids, sds = c->sds, rds = c->rds, size = c->size;
    const int inc = c->include_self;
    int64_t blk = (int64_t)(1 << 20) / (size > 0 ? size : 1);
    if (blk < 1) blk = 1;
    if (blk > n) blk = n;
    int64_t *cnt = (int64_t *)calloc((size_t)(blk * size), sizeof(int64_t));
    if (cnt == NULL) return EM_ERR_ALLOC;
    for (int64_t j0 = 0; j0 < n; j0 += blk) {
        const int64_t nj = n - j0 < blk ? n - j0 : blk;
        ${T} *x = x0 + j0 * xs;
        const int64_t *ix = ix0 + j0 * is;
        const ${T} *r = r0 + j0 * rs;
        int64_t k, j;
        if (!inc)
            for (k = 0; k < m; k++)
                for (j = 0; j < nj; j++) x[j * xs + ix[j * is + k * ids] * sds] = 0;
        for (k = 0; k < m; k++)
            for (j = 0; j < nj; j++) {
                int64_t v = ix[j * is + k * ids];
                x[j * xs + v * sds] += r[j * rs + k * rds];
                cnt[j * size + v]++;
            }
        for (k = 0; k < m; k++)
            for (j = 0; j < nj; j++) {
                int64_t v = ix[j * is + k * ids], q = cnt[j * size + v];
                if (q == 0) continue;            /* already divided */
                ${T} *t = x + j * xs + v * sds;
                ${DIV}
                cnt[j * size + v] = 0;
            }
    }
    free(cnt);
    return 0;
}
"""

SCATTER_EXPORT_T = r"""
int em_scatter_${R}_${S}(int nd, const int64_t *ishape, const int64_t *ist, const int64_t *sst,
                         const int64_t *rst, int dim, int64_t size, int include_self,
                         char *self, int64_t soff, char *idx, int64_t ioff, char *src, int64_t roff)
{
    em_sctx c;
    c.include_self = include_self;
    c.size = size;
    return em_scatter_run(em_scatter_in_${R}_${S}, nd, ishape, ist, sst, rst, dim, size,
                          (int64_t)sizeof(${T}), self, soff, idx, ioff, src, roff, &c);
}
"""

# index_put_: ${OP} combines v into *t (assignment per itemsize, accumulation per dtype)
PUT_T = r"""
static int em_put_in_${V}(int64_t n, char *const *p, const int64_t *s, const void *ctx)
{
    ${T} *x = (${T} *)p[0];
    const ${T} *y = (const ${T} *)p[1];
    const int64_t xs = s[0] / (int64_t)sizeof(${T}), ys = s[1] / (int64_t)sizeof(${T});
    if (xs == 1 && ys == 1)
        for (int64_t j = 0; j < n; j++) { ${T} *t = x + j; ${T} v = y[j]; ${OP} }
    else
        for (int64_t j = 0; j < n; j++) { ${T} *t = x + j * xs; ${T} v = y[j * ys]; ${OP} }
    return 0;
}

/* For every position b (row-major, serially): self[idx(b), r] op= values[b, r]
 * for r in [rlo, rhi), only for targets whose offset lies in [tlo, thi). */
static void em_put_range_${V}(const em_ixp *P, const em_ixr *R, int64_t nb, ${T} *x,
                              const ${T} *y, int64_t rlo, int64_t rhi, int64_t tlo, int64_t thi)
{
    int64_t offs[EM_IX_BLOCK], voffs[EM_IX_BLOCK];
    const int64_t nr = R->n;
    for (int64_t b = 0; b < nb; b += EM_IX_BLOCK) {
        int64_t cnt = nb - b < EM_IX_BLOCK ? nb - b : EM_IX_BLOCK;
        em_ix_offs(P, b, cnt, offs, voffs);
        for (int64_t j = 0; j < cnt; j++) {
            if (offs[j] < tlo || offs[j] >= thi) continue;
            if (nr == 1) {
                ${T} *t = x + offs[j];
                ${T} v = y[voffs[j]];
                ${OP}
            } else if (R->nd == 1) {
                char *pp[2] = { (char *)(x + offs[j] + rlo * R->st[0][0]),
                                (char *)(y + voffs[j] + rlo * R->st[1][0]) };
                em_put_in_${V}(rhi - rlo, pp, R->flat, NULL);
            } else {
                char *pp[2] = { (char *)(x + offs[j]), (char *)(y + voffs[j]) };
                em_drive_range(em_put_in_${V}, 2, R->nd, R->shape, R->flat, pp, NULL, rlo, rhi);
            }
        }
    }
}

int em_index_put_${V}(int K, int bnd, const int64_t *bshape, const int64_t *ist, char **ih,
                      const int64_t *ioff, int snd, const int64_t *sshape, const int64_t *sst,
                      char *self, int64_t soff, const int64_t *vst, char *vals, int64_t voff)
{
    if (snd > EM_MAXDIM) return EM_ERR_NDIM;
    em_ixp P;
    int rc = em_ixp_init(&P, K, bnd, bshape, ist, ih, ioff, sshape, sst, vst);
    if (rc) return rc;
    int64_t nb = 1;
    for (int d = 0; d < bnd; d++) nb *= bshape[d];
    em_ixr R;
    em_ixr_init(&R, snd - K, sshape + K, sst + K, vst + bnd, (int64_t)sizeof(${T}));
    const int64_t nr = R.n;
    if (nb == 0 || nr == 0) return 0;
    if (em_ix_checkK(&P, nb)) return EM_ERR_INDEX;
    ${T} *x = (${T} *)self + soff;
    const ${T} *y = (const ${T} *)vals + voff;
    int nth = em_ix_nth(nb * (nr + K));
    /* targets split by offset range: needs positive strides over the indexed dims */
    int64_t tmax = 1;
    for (int k = 0; k < K; k++) {
        if (P.sst[k] <= 0 && P.size[k] > 1) tmax = -1;
        if (tmax > 0) tmax += (P.size[k] - 1) * P.sst[k];
    }
    if (nth > 1 && nr >= 1024 * nth) {
        /* long rows: every thread takes a slice of R for all positions */
#pragma omp parallel num_threads(nth)
        {
#ifdef _OPENMP
            int t = omp_get_thread_num(), T = omp_get_num_threads();
#else
            int t = 0, T = 1;
#endif
            em_put_range_${V}(&P, &R, nb, x, y, nr * t / T, nr * (t + 1) / T, INT64_MIN, INT64_MAX);
        }
    } else if (nth > 1 && tmax > nth) {
        /* many short rows: every thread owns a range of targets (so duplicates
         * are still combined in row-major order) and scans all positions */
#pragma omp parallel num_threads(nth)
        {
#ifdef _OPENMP
            int t = omp_get_thread_num(), T = omp_get_num_threads();
#else
            int t = 0, T = 1;
#endif
            em_put_range_${V}(&P, &R, nb, x, y, 0, nr, tmax * t / T, tmax * (t + 1) / T);
        }
    } else {
        em_put_range_${V}(&P, &R, nb, x, y, 0, nr, INT64_MIN, INT64_MAX);
    }
    return 0;
}
"""

# nonzero per variant ${V}; ${NZ} tests element x (type ${T})
NONZERO_T = r"""
/* count (out == NULL) or write the coordinates of the nonzeros among the flat
 * positions [lo, hi); w0: first output row; at most N rows are written */
static int64_t em_nz_range_${V}(int nd, const int64_t *shape, const int64_t *st, const ${T} *x,
                                int64_t lo, int64_t hi, int64_t *out, int64_t w0, int64_t N)
{
    int64_t c[EM_MAXDIM], rem = lo, w = w0;
    const int L = nd - 1;
    for (int d = L; d >= 0; d--) { c[d] = rem % shape[d]; rem /= shape[d]; }
    int64_t pos = lo;
    while (pos < hi) {
        int64_t cnt = shape[L] - c[L];
        if (cnt > hi - pos) cnt = hi - pos;
        const ${T} *p = x;
        for (int d = 0; d < nd; d++) p += c[d] * st[d];
        const int64_t s = st[L];
        if (out == NULL) {
            int64_t q = 0;
            if (s == 1) for (int64_t j = 0; j < cnt; j++) { ${T} v = p[j]; q += (${NZ}); }
            else for (int64_t j = 0; j < cnt; j++) { ${T} v = p[j * s]; q += (${NZ}); }
            w += q;
        } else {
            for (int64_t j = 0; j < cnt; j++) {
                ${T} v = p[j * s];
                if (!(${NZ})) continue;
                if (w >= N) return w;
                int64_t *o = out + w * nd;
                for (int d = 0; d < L; d++) o[d] = c[d];
                o[L] = c[L] + j;
                w++;
            }
        }
        pos += cnt;
        c[L] += cnt;
        for (int d = L; d > 0 && c[d] >= shape[d]; d--) { c[d] = 0; c[d - 1]++; }
    }
    return w;
}

int em_nonzero_${V}(int nd, const int64_t *shape, const int64_t *st, char *self, int64_t soff,
                    char *out, int64_t ooff, int64_t N)
{
    if (nd > EM_MAXDIM) return EM_ERR_NDIM;
    if (nd == 0 || N == 0) return 0;
    int64_t numel = 1;
    for (int d = 0; d < nd; d++) numel *= shape[d];
    if (numel == 0) return 0;
    const ${T} *x = (const ${T} *)self + soff;
    int64_t *o = (int64_t *)out + ooff;
    int nth = em_ix_nth(numel);
    if (nth <= 1) {
        em_nz_range_${V}(nd, shape, st, x, 0, numel, o, 0, N);
        return 0;
    }
    int64_t start[257];
    if (nth > 256) nth = 256;
#pragma omp parallel num_threads(nth)
    {
#ifdef _OPENMP
        int t = omp_get_thread_num(), T = omp_get_num_threads();
#else
        int t = 0, T = 1;
#endif
        int64_t lo = numel * t / T, hi = numel * (t + 1) / T;
        start[t + 1] = em_nz_range_${V}(nd, shape, st, x, lo, hi, NULL, 0, N);
#pragma omp barrier
#pragma omp single
        {
            start[0] = 0;
            for (int i = 1; i <= T; i++) start[i] += start[i - 1];
        }
        em_nz_range_${V}(nd, shape, st, x, lo, hi, o, start[t], N);
    }
    return 0;
}
"""

# sort per dtype: ${KEY} maps x (type ${T}) to an unsigned key of ${NB} bytes
SORT_DT_T = r"""
int em_sort_${S}(int nd, const int64_t *shape, const int64_t *st, int dim, int descending,
                 char *self, int64_t soff, char *values, int64_t voff, char *indices, int64_t ioff)
{
    if (nd > EM_MAXDIM) return EM_ERR_NDIM;
    int64_t one = 1, zero = 0;
    if (nd == 0) { nd = 1; shape = &one; st = &zero; dim = 0; }
    int64_t numel = 1, inner = 1;
    for (int d = 0; d < nd; d++) numel *= shape[d];
    for (int d = dim + 1; d < nd; d++) inner *= shape[d];
    const int64_t n = shape[dim];
    if (numel == 0) return 0;
    const int64_t rows = numel / n, sd = st[dim];
    if (${B} == 32 && n > (int64_t)UINT32_MAX) return EM_ERR_ALLOC;   /* positions are 32-bit */
    /* the dims other than dim, for the row -> self offset map */
    int64_t osh[EM_MAXDIM], ost[EM_MAXDIM];
    int on = 0;
    for (int d = 0; d < nd; d++) if (d != dim) { osh[on] = shape[d]; ost[on] = st[d]; on++; }
    const ${T} *x = (const ${T} *)self + soff;
    ${T} *vo = (${T} *)values + voff;
    int64_t *io = (int64_t *)indices + ioff;
    const uint${B}_t flip = descending ? ~(uint${B}_t)0 : 0;
    int nth = em_ix_nth(numel * 4);
    if (nth > rows) nth = (int)rows;
    int err = 0;
#pragma omp parallel num_threads(nth) reduction(| : err) if (nth > 1)
    {
        em_sp${B} *buf = (em_sp${B} *)malloc((size_t)(2 * n) * sizeof(em_sp${B}));
        {
#pragma omp for schedule(static)
            for (int64_t r = 0; r < rows; r++) {
                if (buf == NULL) { err = 1; continue; }
                int64_t rem = r, so = 0;
                for (int d = on - 1; d >= 0; d--) { so += (rem % osh[d]) * ost[d]; rem /= osh[d]; }
                const ${T} *xr = x + so;
                const int64_t oo = (r / inner) * n * inner + r % inner;
                for (int64_t i = 0; i < n; i++) {
                    ${T} v = xr[i * sd];
                    uint${B}_t k = (uint${B}_t)(${KEY});
                    buf[i].k = k ^ flip;
                    buf[i].i = (uint${B}_t)i;
                }
                const em_sp${B} *res = em_sort_pairs_${B}(buf, buf + n, n, ${NB});
                for (int64_t j = 0; j < n; j++) {
                    int64_t i = (int64_t)res[j].i;
                    vo[oo + j * inner] = xr[i * sd];
                    io[oo + j * inner] = i;
                }
            }
            free(buf);
        }
    }
    return err ? EM_ERR_ALLOC : 0;
}
"""

# sort keys: order-preserving maps to unsigned integers (as a C expression of v)
_FKEY = {
    # floats: NaN -> all ones (largest); +-0 -> 0x80..; else sign-magnitude flip
    "float32": "(v != v) ? 0xFFFFFFFFu : (v == 0.0f) ? 0x80000000u : "
    "((em_f2u(v) & 0x80000000u) ? ~em_f2u(v) : (em_f2u(v) | 0x80000000u))",
    "float64": "(v != v) ? ~(uint64_t)0 : (v == 0.0) ? ((uint64_t)1 << 63) : "
    "((em_ix_d2u(v) >> 63) ? ~em_ix_d2u(v) : (em_ix_d2u(v) | ((uint64_t)1 << 63)))",
    "float16": "((v & 0x7FFFu) > 0x7C00u) ? 0xFFFFu : ((v & 0x7FFFu) == 0) ? 0x8000u : "
    "((v & 0x8000u) ? (uint16_t)~v : (uint16_t)(v | 0x8000u))",
    "bfloat16": "((v & 0x7FFFu) > 0x7F80u) ? 0xFFFFu : ((v & 0x7FFFu) == 0) ? 0x8000u : "
    "((v & 0x8000u) ? (uint16_t)~v : (uint16_t)(v | 0x8000u))",
    "bool": "(uint8_t)v",
    "uint8": "(uint8_t)v",
    "int8": "(uint8_t)((uint8_t)v ^ 0x80u)",
    "int16": "(uint16_t)((uint16_t)v ^ 0x8000u)",
    "int32": "((uint32_t)v ^ 0x80000000u)",
    "int64": "((uint64_t)v ^ ((uint64_t)1 << 63))",
}

_NZ = {
    # variant -> (C type, nonzero test of v)
    "1": ("uint8_t", "v != 0"),
    "2": ("uint16_t", "v != 0"),
    "4": ("uint32_t", "v != 0"),
    "8": ("uint64_t", "v != 0"),
    "h": ("uint16_t", "(v & 0x7FFFu) != 0"),  # float16 / bfloat16: -0 is zero, NaN is not
    "f32": ("float", "v != 0.0f"),
    "f64": ("double", "v != 0.0"),
}

_HEAD = r"""
static inline uint64_t em_ix_d2u(double d) { uint64_t u; memcpy(&u, &d, 8); return u; }
"""


def _utype(w):
    return f"uint{8 * w}_t"


def _combine(red, dt):
    kind = DTYPES[dt][3]
    if red == "sum":
        return "*t = *t + v;"
    if red == "prod":
        return "*t = *t * v;"
    cmp = ">" if red == "amax" else "<"
    if kind == "float":
        return f"*t = (v {cmp} *t || v != v) ? v : *t;"
    return f"*t = (v {cmp} *t) ? v : *t;"


def _ident(red, dt):
    if red in ("sum", "mean"):
        return "0"
    if red == "prod":
        return "1"
    lo, hi = LIMITS[dt]
    return lo if red == "amax" else hi


def _mean_div(dt):
    if DTYPES[dt][3] == "float":
        return "*t = *t / (${T})(q + inc);"
    # integer mean: floor division (the count is positive)
    return (
        "int64_t a = (int64_t)*t, b = q + inc, d = a / b;\n"
        "                d -= (a % b != 0) && (a < 0);\n"
        "                *t = (${T})d;"
    )


def _put_op(dt):
    """accumulate for index_put_ (bool: or; half types through float32)."""
    s, ct, w, kind = DTYPES[dt]
    if kind == "bool":
        return "*t = *t | v;"
    if dt == "float16":
        return "*t = em_f32_to_f16(em_f16_to_f32(*t) + em_f16_to_f32(v));"
    if dt == "bfloat16":
        return "*t = em_f32_to_bf16(em_bf16_to_f32(*t) + em_bf16_to_f32(v));"
    return "*t = *t + v;"


def _scatter_sig(name):
    return (
        f"int {name}(int nd, const int64_t *ishape, const int64_t *ist, const int64_t *sst, "
        "const int64_t *rst, int dim, int64_t size, int include_self, char *self, int64_t soff, "
        "char *idx, int64_t ioff, char *src, int64_t roff);"
    )


def _put_sig(name):
    return (
        f"int {name}(int K, int bnd, const int64_t *bshape, const int64_t *ist, char **ih, "
        "const int64_t *ioff, int snd, const int64_t *sshape, const int64_t *sst, char *self, "
        "int64_t soff, const int64_t *vst, char *vals, int64_t voff);"
    )


def generate():
    src = [_HEAD, COMMON]
    cdefs = ["void em_ix_error(int64_t *info);"]
    for b in (32, 64):
        src.append(Template(SORT_T).substitute(B=b))
    src.append(SCATTER_DRIVER)
    for w in WIDTHS:
        sub = {"W": w, "T": _utype(w)}
        src.append(Template(MOVE_T).substitute(sub))
        src.append(Template(MOVE_EXPORT_T).substitute(sub))
        src.append(Template(PUT_T).substitute(V=f"set_{w}", T=_utype(w), OP="*t = v;"))
        cdefs += [
            f"int em_gather_{w}(int nd, const int64_t *ishape, const int64_t *ist, "
            "const int64_t *sst, int dim, int64_t size, char *out, int64_t ooff, char *self, "
            "int64_t soff, char *idx, int64_t ioff);",
            f"int em_index_{w}(int K, int bnd, const int64_t *bshape, const int64_t *ist, "
            "char **ih, const int64_t *ioff, int snd, const int64_t *sshape, const int64_t *sst, "
            "char *self, int64_t soff, char *out, int64_t ooff);",
            _scatter_sig(f"em_scatter_none_{w}"),
            _put_sig(f"em_index_put_set_{w}"),
        ]
    for dt in SCATTER_DTYPES:
        s, ct = DTYPES[dt][:2]
        for red in SCATTER_REDUCE:
            sub = {"R": red, "S": s, "T": ct}
            if red == "mean":
                body = Template(SCATTER_MEAN_T).substitute(
                    sub, DIV=Template(_mean_div(dt)).substitute(T=ct)
                )
            else:
                body = Template(SCATTER_T).substitute(
                    sub, IDENT=_ident(red, dt), COMBINE=_combine(red, dt)
                )
            src.append(body)
            src.append(Template(SCATTER_EXPORT_T).substitute(sub))
            cdefs.append(_scatter_sig(f"em_scatter_{red}_{s}"))
    for dt, (s, ct, w, _kind) in DTYPES.items():
        src.append(Template(PUT_T).substitute(V=f"acc_{s}", T=ct, OP=_put_op(dt)))
        cdefs.append(_put_sig(f"em_index_put_acc_{s}"))
        b = 64 if w == 8 else 32
        src.append(Template(SORT_DT_T).substitute(S=s, T=ct, B=b, NB=w, KEY=_FKEY[dt]))
        cdefs.append(
            f"int em_sort_{s}(int nd, const int64_t *shape, const int64_t *st, int dim, "
            "int descending, char *self, int64_t soff, char *values, int64_t voff, "
            "char *indices, int64_t ioff);"
        )
    for v, (ct, nz) in _NZ.items():
        src.append(Template(NONZERO_T).substitute(V=v, T=ct, NZ=nz))
        cdefs.append(
            f"int em_nonzero_{v}(int nd, const int64_t *shape, const int64_t *st, char *self, "
            "int64_t soff, char *out, int64_t ooff, int64_t N);"
        )
    return "\n".join(src), cdefs
