"""The operator library: everything a device gets for free, one module per family.

Sits above the dispatcher and below autograd. A device that implements the primitive set
runs every operator: the structured drivers compute outputs and call its kernels, and
every other operator is a Composite written in operators.

=====================  ===========================================================
module                 holds
=====================  ===========================================================
registration           loads ``ember/core/ops.yaml``, registers every Composite,
                       binds Tensor methods and the ``ember.*`` functions
drivers                structured-operator drivers (shape, dtype, allocation, casts
                       around a device kernel: ``sum``, ``add``, ``copy_``, ...)
index_drivers          drivers of the indexing, scatter and sort primitives
nn_drivers             drivers of the nn primitives (im2col, softmax, norms, ...)
views                  views and ``x[i]``/``x[i] = v`` (basic and advanced indexing)
factories              ``tensor``, ``zeros``, ``arange``, ``full``, ... and copies
dlpack                 ``Tensor.__dlpack__`` and ``from_dlpack`` (``ember.utils.dlpack``)
elementwise            elementwise composites (``sigmoid``, ``hypot``, ``logit``, ...)
reduction              reductions, scans, order statistics (``var``, ``cumsum``, ``median``)
shape_basic            cat/stack/split, flip/roll/repeat/tril, softmax, logsumexp, scans
shape                  ``movedim``, diagonals, windows, more stacking and splitting
indexing               indexing, scatter, sort and sampling composites
scatter_writes         ``index_reduce``, ``fill_diagonal_``, ``as_strided_scatter``
view_copies            the ``*_copy`` forms of the views (``t_copy``, ``select_copy``, ...)
search                 searching and counting (``searchsorted``, ``bincount``, ``isin``)
sampling               sampling composites (``multinomial``, ``poisson``, ...)
inplace                in-place writes and resizing (``resize_``, ``set_``, ...)
matmul                 ``matmul``/``mm``/``mv``/``dot`` over ``bmm``; ``max``/``min``
linalg_products        products, contractions, fused multiply-adds (``kron``, ``tensordot``)
linalg_factorizations  LU, Cholesky, QR, eigen and SVD decompositions
linalg_solve           ``solve``, ``inv`` and ``det`` over the LU factorization
linalg_derived         triangular and Cholesky solves, ``pinv``, rank, ``lstsq``, ``cond``
linalg_norms           vector and matrix norms, ``vecdot``, ``cdist``
nn                     nn composites: convolution (im2col + bmm), pooling, norms, einsum
generator              ``Generator`` and the default generators, seeding
forms, shape_forms,    Python forms of the operators (varargs, overload selection,
math_forms, misc_forms aliases, top-level helpers such as ``scalar_tensor``)
legacy_types           ``FloatTensor`` and the other legacy tensor types
=====================  ===========================================================

May import: ``ember.core``, ``ember.dispatcher``, ``ember.library``, ``ember.plugins``.
"""
