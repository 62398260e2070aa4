/* ember_cpu: generic reduction driver.
 *
 * A reduction is described by a table of callbacks (em_redops) generated
 * per (op, dtype) by _build.py.  The driver splits the coalesced dims into
 * kept dims (output stride != 0) and reduced dims (output stride == 0) and
 * picks one of two traversal modes:
 *   inner mode  (innermost dim reduced): each output folds a segment along
 *                the innermost reduced dim (vectorised, multi-accumulator);
 *   outer mode  (innermost dim kept):    a block of EM_JB outputs along the
 *                innermost kept dim is folded row by row, so memory is swept
 *                row-wise instead of striding per element.
 * Work is parallelised over outputs (blocks) when there are enough of them,
 * otherwise over the outermost reduced dim with per-thread partials that are
 * merged in a fixed order.
 */
#ifndef EM_REDUCE_H
#define EM_REDUCE_H

#include "em_common.h"

#define EM_JB 256

typedef struct {
    int64_t accsize;
    /* set n accumulators to the identity */
    void (*init)(void *acc, int64_t n);
    /* fold n elements p[i*s] (reduced linear index idx0+i) into one acc */
    void (*seg)(void *acc, const char *p, int64_t n, int64_t s, int64_t idx0);
    /* fold one row: acc[j] <- p[j*ja] for j < nj, all with reduced index idx */
    void (*cols)(void *acc, const char *p, int64_t nj, int64_t ja, int64_t idx);
    /* acc[i] <- merge(acc[i], other[i]); other covers LATER indices */
    void (*merge)(void *acc, const void *other, int64_t n);
    /* write n results with byte stride os; count = reduced element count */
    void (*fin)(char *o, int64_t os, const void *acc, int64_t n, int64_t count);
    /* optional: `rows` rows of n contiguous elements (byte strides as, os) -> one result
     * each, fold and finish inlined; NULL where the generic path serves */
    void (*rows)(char *o, int64_t os, const char *a, int64_t as, int64_t rows, int64_t n,
                 int64_t count);
} em_redops;

typedef struct {
    int inner_mode;
    int nk, nr;               /* kept dims (outer mode: excluding J), reduced dims */
    int64_t ks[EM_MAXDIM], ka[EM_MAXDIM], ko[EM_MAXDIM];
    int64_t rs[EM_MAXDIM], ra[EM_MAXDIM];
    int64_t nj, ja, jo, nblk; /* outer mode: innermost kept dim, in blocks */
    int64_t count;            /* number of reduced elements per output */
    char *o, *a;
} em_redplan;

/* output pointer and block length of work item w */
static void em_red_locate(const em_redplan *P, int64_t w, const char **aptr, char **optr, int64_t *jn_out)
{
    int64_t rem, d, jb = 0, jn = 1;
    const char *pa = P->a;
    char *po = P->o;
    if (!P->inner_mode) {
        jb = w % P->nblk;
        rem = w / P->nblk;
    } else {
        rem = w;
    }
    for (d = P->nk - 1; d >= 0; d--) {
        int64_t i = rem % P->ks[d];
        rem /= P->ks[d];
        pa += i * P->ka[d];
        po += i * P->ko[d];
    }
    if (!P->inner_mode) {
        int64_t j0 = jb * EM_JB;
        jn = P->nj - j0;
        if (jn > EM_JB) jn = EM_JB;
        pa += j0 * P->ja;
        po += j0 * P->jo;
    }
    *aptr = pa;
    *optr = po;
    *jn_out = jn;
}

/* compute accumulators of work item w over reduced dim 0 range [r0lo, r0hi) */
static void em_red_item(const em_redops *op, const em_redplan *P, int64_t w,
                        int64_t r0lo, int64_t r0hi, void *acc, char **optr, int64_t *jn_out)
{
    int64_t d, jn;
    const char *pa;
    em_red_locate(P, w, &pa, optr, &jn);
    *jn_out = jn;
    int nr = P->nr;
    int64_t inner_cnt = P->count / P->rs[0];   /* elements per step of reduced dim 0 */
    if (P->inner_mode) {
        op->init(acc, 1);
        if (nr == 1) {
            op->seg(acc, pa + r0lo * P->ra[0], r0hi - r0lo, P->ra[0], r0lo);
        } else {
            /* odometer over reduced dims 0..nr-2, segment along dim nr-1 */
            int64_t idx[EM_MAXDIM];
            int64_t nseg = P->rs[nr - 1];
            for (d = 0; d < nr - 1; d++) idx[d] = 0;
            idx[0] = r0lo;
            const char *q = pa + r0lo * P->ra[0];
            int64_t lin = r0lo * inner_cnt;
            while (idx[0] < r0hi) {
                op->seg(acc, q, nseg, P->ra[nr - 1], lin);
                lin += nseg;
                d = nr - 2;
                idx[d]++;
                q += P->ra[d];
                while (d > 0 && idx[d] >= P->rs[d]) {
                    q -= P->rs[d] * P->ra[d];
                    idx[d] = 0;
                    d--;
                    idx[d]++;
                    q += P->ra[d];
                }
            }
        }
    } else {
        op->init(acc, jn);
        int64_t idx[EM_MAXDIM];
        for (d = 0; d < nr; d++) idx[d] = 0;
        idx[0] = r0lo;
        const char *q = pa + r0lo * P->ra[0];
        int64_t lin = r0lo * inner_cnt;
        while (idx[0] < r0hi) {
            op->cols(acc, q, jn, P->ja, lin);
            lin++;
            d = nr - 1;
            idx[d]++;
            q += P->ra[d];
            while (d > 0 && idx[d] >= P->rs[d]) {
                q -= P->rs[d] * P->ra[d];
                idx[d] = 0;
                d--;
                idx[d]++;
                q += P->ra[d];
            }
        }
    }
}

/* meta: shape[nd], a strides[nd], o strides[nd] (elements); o stride 0 marks
 * a reduced dim.  Size-1 dims must have been dropped by the caller, and at
 * least one reduced dim must be present (the caller adds a size-1 one if
 * needed). */
static int em_reduce(const em_redops *op, int nd, const int64_t *meta,
                     char *o, int64_t osz, char *a, int64_t asz, int64_t grain)
{
    em_redplan P;
    int d;
    if (nd > EM_MAXDIM || nd < 1) return EM_ERR_NDIM;
    P.nk = P.nr = 0;
    P.o = o;
    P.a = a;
    P.count = 1;
    int64_t nout = 1;
    for (d = 0; d < nd; d++) {
        int64_t sh = meta[d], sa = meta[nd + d] * asz, so = meta[2 * nd + d] * osz;
        if (so == 0) {
            P.rs[P.nr] = sh; P.ra[P.nr] = sa; P.nr++;
            P.count *= sh;
        } else {
            P.ks[P.nk] = sh; P.ka[P.nk] = sa; P.ko[P.nk] = so; P.nk++;
            nout *= sh;
        }
    }
    if (P.nr == 0) { P.rs[0] = 1; P.ra[0] = 0; P.nr = 1; }
    if (nout == 0) return 0;
    P.inner_mode = (meta[2 * nd + nd - 1] == 0);
    int64_t W;
    if (P.inner_mode) {
        W = nout;
        P.nblk = 1;
        P.nj = 1; P.ja = 0; P.jo = 0;
    } else {
        P.nk--;
        P.nj = P.ks[P.nk];
        P.ja = P.ka[P.nk];
        P.jo = P.ko[P.nk];
        P.nblk = (P.nj + EM_JB - 1) / EM_JB;
        W = (nout / P.nj) * P.nblk;
    }
    int64_t total = nout * P.count;
    int nth = (total >= grain) ? em_max_threads() : 1;

    /* rows: one kept dim, the reduced dim contiguous (sum(-1) of a matrix) */
    if (P.inner_mode && op->rows && P.nr == 1 && P.nk == 1 && P.ra[0] == asz
        && (nth <= 1 || nout >= nth)) {
        const int64_t ka = P.ka[0], ko = P.ko[0], n = P.rs[0];
        if (nth <= 1) {
            op->rows(o, ko, a, ka, nout, n, P.count);
            return 0;
        }
#pragma omp parallel num_threads(nth)
        {
#ifdef _OPENMP
            int t = omp_get_thread_num(), T = omp_get_num_threads();
#else
            int t = 0, T = 1;
#endif
            const int64_t lo = nout * t / T, hi = nout * (t + 1) / T;
            if (hi > lo) op->rows(o + lo * ko, ko, a + lo * ka, ka, hi - lo, n, P.count);
        }
        return 0;
    }
    size_t abytes = (size_t)(EM_JB * op->accsize);

    if (nth <= 1 || W >= nth || P.rs[0] < 2) {
        if (nth > W) nth = (int)W;
        if (nth <= 1) {
            for (int64_t w = 0; w < W; w++) {
                _Alignas(64) char acc[EM_JB * 16];
                char *po;
                int64_t jn;
                em_red_item(op, &P, w, 0, P.rs[0], acc, &po, &jn);
                op->fin(po, P.jo, acc, jn, P.count);
            }
            return 0;
        }
#pragma omp parallel for schedule(static) num_threads(nth)
        for (int64_t w = 0; w < W; w++) {
            _Alignas(64) char acc[EM_JB * 16];
            char *po;
            int64_t jn;
            em_red_item(op, &P, w, 0, P.rs[0], acc, &po, &jn);
            op->fin(po, P.jo, acc, jn, P.count);
        }
        return 0;
    }

    /* few outputs: split reduced dim 0 between threads, merge in order */
    if (nth > P.rs[0]) nth = (int)P.rs[0];
    char *part = (char *)malloc((size_t)nth * (size_t)W * abytes);
    if (!part) return EM_ERR_ALLOC;
#pragma omp parallel num_threads(nth)
    {
#ifdef _OPENMP
        int t = omp_get_thread_num(), T = omp_get_num_threads();
#else
        int t = 0, T = 1;
#endif
        int64_t lo = P.rs[0] * t / T, hi = P.rs[0] * (t + 1) / T;
        for (int64_t w = 0; w < W; w++) {
            char *po;
            int64_t jn;
            em_red_item(op, &P, w, lo, hi, part + ((size_t)t * (size_t)W + (size_t)w) * abytes, &po, &jn);
        }
    }
    for (int64_t w = 0; w < W; w++) {
        char *acc0 = part + (size_t)w * abytes;
        const char *pa;
        char *po;
        int64_t jn;
        em_red_locate(&P, w, &pa, &po, &jn);
        for (int t = 1; t < nth; t++)
            op->merge(acc0, part + ((size_t)t * (size_t)W + (size_t)w) * abytes, jn);
        op->fin(po, P.jo, acc0, jn, P.count);
    }
    free(part);
    return 0;
}

#endif /* EM_REDUCE_H */
