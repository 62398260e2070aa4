"""Docstrings for ember's operators and ``Tensor`` members named ``m`` to ``z``.

Most ``ember.<op>`` functions and ``Tensor`` methods are generated from the operator schema
(``core/ops.yaml``) and carry the schema line as their ``__doc__``. This table replaces it
with a user-facing docstring; :func:`ember._docstrings.apply` attaches it at import.

Keys follow the rules in ``ember/_docstrings/__init__.py``: ``"mul"`` documents ``ember.mul``
and ``Tensor.mul``; ``"Tensor.view"`` documents only the ``Tensor`` member; a value that starts
with ``Examples:`` is appended to the existing docstring. Every example runs as a doctest
(``tests/test_docstrings.py``), so outputs are exactly what ember prints.
"""

DOCS: dict[str, str] = {
    # -- random state -------------------------------------------------------------------
    "manual_seed": """Seed every device's default random generator.

    After ``manual_seed(s)`` the random factories (:func:`rand`, :func:`randn`,
    :func:`randint`, :func:`randperm`, ...) and the random in-place methods
    (``normal_``, ``uniform_``, dropout) produce the same numbers on every run.

    Args:
        seed (int): the seed; any Python int.

    Returns:
        Generator: the CPU default generator, as PyTorch returns it.

    Note:
        ember's CPU generator is not PyTorch's, so the same seed gives different numbers
        in ember and in PyTorch (and the same numbers in ember on every run).

    Examples:
        >>> import ember
        >>> _ = ember.manual_seed(0)
        >>> a = ember.rand(3)
        >>> _ = ember.manual_seed(0)
        >>> bool((ember.rand(3) == a).all())
        True
    """,
    "seed": """Seed the default generator from a non-deterministic source.

    Returns:
        int: the seed that was chosen, which :func:`manual_seed` accepts to replay the
        same random numbers later.

    Examples:
        >>> import ember
        >>> s = ember.seed()
        >>> a = ember.rand(2)
        >>> _ = ember.manual_seed(s)
        >>> bool((ember.rand(2) == a).all())
        True
    """,
    "set_rng_state": """Restore the CPU default generator from a saved state.

    Args:
        new_state (Tensor): a state returned by :func:`get_rng_state` (a ``uint8`` tensor).

    Examples:
        >>> import ember
        >>> state = ember.get_rng_state()
        >>> a = ember.randn(2)
        >>> ember.set_rng_state(state)
        >>> bool((ember.randn(2) == a).all())
        True
    """,
    # -- masking --------------------------------------------------------------------------
    "masked_fill": """Fill the elements where ``mask`` is True with ``value``; out of place.

    ``mask`` is a ``bool`` tensor broadcastable to ``input``'s shape; the result has
    ``input``'s shape and dtype.

    Args:
        input (Tensor): the tensor to copy.
        mask (Tensor): ``bool`` tensor, broadcastable to ``input``.
        value (Number or Tensor): the fill value (a 0-dim tensor is allowed).

    Returns:
        Tensor: a copy of ``input`` with the masked elements replaced.

    Examples:
        >>> import ember
        >>> x = ember.tensor([[1., 2.], [3., 4.]])
        >>> mask = ember.tensor([True, False])
        >>> ember.masked_fill(x, mask, 0.)
        tensor([[0., 2.],
                [0., 4.]])
        >>> x.masked_fill(x > 2, -1.)
        tensor([[ 1.,  2.],
                [-1., -1.]])
    """,
    "masked_fill_": """In-place version of :meth:`Tensor.masked_fill`.

    Examples:
        >>> import ember
        >>> x = ember.tensor([1., 2., 3.])
        >>> x.masked_fill_(x > 1, 0.)
        tensor([1., 0., 0.])
        >>> x
        tensor([1., 0., 0.])
    """,
    "masked_scatter": """Copy ``source``'s elements, in order, to the places where ``mask`` is True.

    The ``k``-th True element of ``mask`` (in row-major order) receives ``source``'s
    ``k``-th element; ``source`` needs at least as many elements as ``mask`` has True.

    Args:
        input (Tensor): the tensor to copy.
        mask (Tensor): ``bool`` tensor, broadcastable to ``input``.
        source (Tensor): the values to write, read in row-major order.

    Returns:
        Tensor: a copy of ``input`` with the masked places replaced.

    Examples:
        >>> import ember
        >>> x = ember.zeros(2, 3)
        >>> mask = ember.tensor([[True, False, True], [False, True, False]])
        >>> ember.masked_scatter(x, mask, ember.tensor([1., 2., 3.]))
        tensor([[1., 0., 2.],
                [0., 3., 0.]])
        >>> x.masked_scatter(mask, ember.tensor([4., 5., 6.]))
        tensor([[4., 0., 5.],
                [0., 6., 0.]])
    """,
    "masked_scatter_": """In-place version of :meth:`Tensor.masked_scatter`.

    Examples:
        >>> import ember
        >>> x = ember.zeros(3)
        >>> x.masked_scatter_(ember.tensor([True, False, True]), ember.tensor([7., 8.]))
        tensor([7., 0., 8.])
    """,
    "masked_select": """Gather the elements where ``mask`` is True into a new 1-D tensor.

    ``mask`` and ``input`` are broadcast together; elements come out in row-major order.

    Args:
        input (Tensor): the source tensor.
        mask (Tensor): ``bool`` tensor, broadcastable with ``input``.

    Returns:
        Tensor: a 1-D tensor of ``input``'s dtype with one element per True in the
        broadcast mask.

    Examples:
        >>> import ember
        >>> x = ember.tensor([[1., 2.], [3., 4.]])
        >>> ember.masked_select(x, x > 1.5)
        tensor([2., 3., 4.])
        >>> x.masked_select(ember.tensor([True, False]))
        tensor([1., 3.])
    """,
    # -- matrix products ------------------------------------------------------------------
    "matmul": """Matrix product of two tensors, with the shape rules of PyTorch.

    - 1-D by 1-D: the dot product, a 0-dim tensor.
    - 2-D by 2-D: the matrix product.
    - 1-D by 2-D or 2-D by 1-D: a 1 is prepended (appended) to the vector's shape for
      the product and removed after.
    - N-D (N > 2): a batched product over the last two dims; the batch dims broadcast.

    Also available as the ``@`` operator.

    Args:
        input (Tensor): the first operand.
        other (Tensor): the second operand.

    Returns:
        Tensor: the product, with the dtype both operands promote to.

    Raises:
        RuntimeError: if the inner dimensions do not match.

    Examples:
        >>> import ember
        >>> a = ember.tensor([[1., 2.], [3., 4.]])
        >>> b = ember.tensor([1., 1.])
        >>> ember.matmul(a, b)
        tensor([3., 7.])
        >>> a.matmul(a)
        tensor([[ 7., 10.],
                [15., 22.]])
        >>> (a @ a).shape
        ember.Size([2, 2])
        >>> ember.matmul(ember.ones(5, 2, 3), ember.ones(3, 4)).shape
        ember.Size([5, 2, 4])
        >>> ember.matmul(a, ember.ones(3, 2))
        Traceback (most recent call last):
            ...
        RuntimeError: mat1 and mat2 shapes cannot be multiplied (2x2 and 3x2)
    """,
    "matrix_power": """Raise a square matrix (or a batch of them) to an integer power.

    ``n = 0`` gives the identity, a negative ``n`` the power of the inverse.

    Args:
        input (Tensor): a ``(*, m, m)`` tensor.
        n (int): the exponent.

    Returns:
        Tensor: ``input @ input @ ... @ input`` (``n`` factors), same shape as ``input``.

    Examples:
        >>> import ember
        >>> a = ember.tensor([[1., 1.], [0., 1.]])
        >>> ember.matrix_power(a, 3)
        tensor([[1., 3.],
                [0., 1.]])
        >>> a.matrix_power(0)
        tensor([[1., 0.],
                [0., 1.]])
    """,
    "mm": """Matrix product of two 2-D tensors.

    Unlike :func:`matmul` there is no broadcasting and no batching: ``input`` is
    ``(n, m)``, ``mat2`` is ``(m, p)``, the result is ``(n, p)``.

    Args:
        input (Tensor): the ``(n, m)`` matrix.
        mat2 (Tensor): the ``(m, p)`` matrix.

    Returns:
        Tensor: the ``(n, p)`` product.

    Raises:
        RuntimeError: if either operand is not 2-D or the inner sizes differ.

    Examples:
        >>> import ember
        >>> a = ember.tensor([[1., 2.], [3., 4.]])
        >>> ember.mm(a, ember.tensor([[1.], [1.]]))
        tensor([[3.],
                [7.]])
        >>> a.mm(a)
        tensor([[ 7., 10.],
                [15., 22.]])
        >>> ember.mm(a, ember.ones(2))
        Traceback (most recent call last):
            ...
        RuntimeError: mat2 must be a matrix
    """,
    "mv": """Product of a matrix and a vector.

    Args:
        input (Tensor): the ``(n, m)`` matrix.
        vec (Tensor): the length-``m`` vector.

    Returns:
        Tensor: the length-``n`` vector ``input @ vec``.

    Examples:
        >>> import ember
        >>> a = ember.tensor([[1., 2.], [3., 4.]])
        >>> ember.mv(a, ember.tensor([1., -1.]))
        tensor([-1., -1.])
        >>> a.mv(ember.tensor([0., 1.]))
        tensor([2., 4.])
    """,
    "outer": """Outer product of two vectors.

    Args:
        input (Tensor): a 1-D tensor of length ``n``.
        vec2 (Tensor): a 1-D tensor of length ``m``.

    Returns:
        Tensor: the ``(n, m)`` tensor ``input[i] * vec2[j]``.

    Examples:
        >>> import ember
        >>> ember.outer(ember.tensor([1., 2.]), ember.tensor([1., 10., 100.]))
        tensor([[  1.,  10., 100.],
                [  2.,  20., 200.]])
        >>> ember.tensor([1, 2]).outer(ember.tensor([3, 4]))
        tensor([[3, 4],
                [6, 8]])
    """,
    "vdot": """Dot product of two 1-D tensors.

    For real tensors this equals :func:`dot`; PyTorch's ``vdot`` also conjugates its first
    argument, which only matters for complex tensors.

    Args:
        input (Tensor): a 1-D tensor.
        other (Tensor): a 1-D tensor of the same length.

    Returns:
        Tensor: a 0-dim tensor.

    Note:
        ember has no complex dtypes, so there is nothing to conjugate.

    Examples:
        >>> import ember
        >>> ember.vdot(ember.tensor([1., 2., 3.]), ember.tensor([4., 5., 6.]))
        tensor(32.)
        >>> ember.tensor([1, 2]).vdot(ember.tensor([3, 4]))
        tensor(11)
    """,
    "trace": """Sum of the main diagonal of a 2-D tensor.

    Args:
        input (Tensor): a 2-D tensor (need not be square).

    Returns:
        Tensor: a 0-dim tensor.

    Examples:
        >>> import ember
        >>> x = ember.tensor([[1., 2.], [3., 4.]])
        >>> ember.trace(x)
        tensor(5.)
        >>> x.trace()
        tensor(5.)
    """,
    # -- max / min ------------------------------------------------------------------------
    "max": """Largest element, largest along a dim (with indices), or elementwise maximum.

    - ``max(input)``: the largest element, a 0-dim tensor.
    - ``max(input, dim, keepdim=False)``: a named tuple ``(values, indices)`` of the
      largest element along ``dim`` and its position.
    - ``max(input, other)``: the elementwise maximum, as :func:`maximum`.

    NaN propagates: a slice that holds a NaN has NaN as its maximum.

    Args:
        input (Tensor): the input tensor.
        dim (int or Tensor, optional): the dim to reduce, or the second tensor.
        keepdim (bool): keep ``dim`` with size 1 in the outputs. Default: False.

    Returns:
        Tensor or tuple: see above.

    Raises:
        RuntimeError: for an empty tensor without ``dim``.

    Note:
        The named tuple's class is called ``_MinMax`` in ember (PyTorch's is
        ``torch.return_types.max``); it unpacks and has ``.values``/``.indices`` the same.

    Examples:
        >>> import ember
        >>> x = ember.tensor([[1., 5.], [3., 2.]])
        >>> ember.max(x)
        tensor(5.)
        >>> values, indices = x.max(dim=1)
        >>> values, indices
        (tensor([5., 3.]), tensor([1, 0]))
        >>> x.max(0, keepdim=True).values
        tensor([[3., 5.]])
        >>> ember.max(x, ember.full((2, 2), 2.5))
        tensor([[2.5000, 5.0000],
                [3.0000, 2.5000]])
    """,
    "min": """Smallest element, smallest along a dim (with indices), or elementwise minimum.

    - ``min(input)``: the smallest element, a 0-dim tensor.
    - ``min(input, dim, keepdim=False)``: a named tuple ``(values, indices)`` of the
      smallest element along ``dim`` and its position.
    - ``min(input, other)``: the elementwise minimum, as :func:`minimum`.

    NaN propagates: a slice that holds a NaN has NaN as its minimum.

    Args:
        input (Tensor): the input tensor.
        dim (int or Tensor, optional): the dim to reduce, or the second tensor.
        keepdim (bool): keep ``dim`` with size 1 in the outputs. Default: False.

    Returns:
        Tensor or tuple: see above.

    Raises:
        RuntimeError: for an empty tensor without ``dim``.

    Note:
        The named tuple's class is called ``_MinMax`` in ember (PyTorch's is
        ``torch.return_types.min``); it unpacks and has ``.values``/``.indices`` the same.

    Examples:
        >>> import ember
        >>> x = ember.tensor([[1., 5.], [3., 2.]])
        >>> ember.min(x)
        tensor(1.)
        >>> values, indices = x.min(dim=1)
        >>> values, indices
        (tensor([1., 2.]), tensor([0, 1]))
        >>> ember.min(x, ember.full((2, 2), 2.5))
        tensor([[1.0000, 2.5000],
                [2.5000, 2.0000]])
    """,
    "maximum": """Elementwise maximum of two tensors.

    The operands broadcast and promote to a common dtype. If either element is NaN the
    result is NaN.

    Args:
        input (Tensor): the first tensor.
        other (Tensor): the second tensor.

    Returns:
        Tensor: the larger of each pair of elements.

    Examples:
        >>> import ember
        >>> a = ember.tensor([1., 4., float("nan")])
        >>> b = ember.tensor([3., 2., 0.])
        >>> ember.maximum(a, b)
        tensor([3., 4., nan])
        >>> ember.tensor([[1], [5]]).maximum(ember.tensor([2, 3]))
        tensor([[2, 3],
                [5, 5]])
    """,
    "minimum": """Elementwise minimum of two tensors.

    The operands broadcast and promote to a common dtype. If either element is NaN the
    result is NaN.

    Args:
        input (Tensor): the first tensor.
        other (Tensor): the second tensor.

    Returns:
        Tensor: the smaller of each pair of elements.

    Examples:
        >>> import ember
        >>> a = ember.tensor([1., 4., float("nan")])
        >>> b = ember.tensor([3., 2., 0.])
        >>> ember.minimum(a, b)
        tensor([1., 2., nan])
        >>> a.minimum(ember.tensor(2.))
        tensor([1., 2., nan])
    """,
    # -- pooling --------------------------------------------------------------------------
    "max_pool1d": """Max pooling over the last dim of a ``(N, C, L)`` or ``(C, L)`` tensor.

    Same as :func:`ember.nn.functional.max_pool1d` without ``return_indices``.

    Args:
        input (Tensor): ``(N, C, L)`` or ``(C, L)``.
        kernel_size (int): the window length.
        stride (int, optional): the step between windows. Default: ``kernel_size``.
        padding (int): implicit ``-inf`` padding on both sides. Default: 0.
        dilation (int): spacing between window elements. Default: 1.
        ceil_mode (bool): round the output length up instead of down. Default: False.

    Returns:
        Tensor: ``(N, C, L_out)`` or ``(C, L_out)``.

    Examples:
        >>> import ember
        >>> x = ember.tensor([[[1., 3., 2., 5., 4., 0.]]])
        >>> ember.max_pool1d(x, 2)
        tensor([[[3., 5., 4.]]])
        >>> ember.max_pool1d(x, 3, stride=1)
        tensor([[[3., 5., 5., 5.]]])
    """,
    "max_pool2d": """Max pooling over the last two dims of a 3-D or 4-D input.

    Same as :func:`ember.nn.functional.max_pool2d` without ``return_indices``.

    Args:
        input (Tensor): ``(N, C, H, W)`` or ``(C, H, W)``.
        kernel_size (int or tuple): the window size.
        stride (int or tuple, optional): the step between windows. Default: ``kernel_size``.
        padding (int or tuple): implicit ``-inf`` padding. Default: 0.
        dilation (int or tuple): spacing between window elements. Default: 1.
        ceil_mode (bool): round the output size up instead of down. Default: False.

    Returns:
        Tensor: the pooled tensor.

    Examples:
        >>> import ember
        >>> x = ember.arange(16.).reshape(1, 1, 4, 4)
        >>> ember.max_pool2d(x, 2)
        tensor([[[[ 5.,  7.],
                  [13., 15.]]]])
    """,
    # -- reductions -----------------------------------------------------------------------
    "mean": """Arithmetic mean of all elements, or along the given dims.

    The input must be floating point (or pass ``dtype=``); integer tensors raise, as in
    PyTorch, because the mean of integers is not an integer.

    Args:
        input (Tensor): a floating-point tensor.
        dim (int or tuple of ints, optional): the dims to reduce; all dims if None.
        keepdim (bool): keep the reduced dims with size 1. Default: False.
        dtype (ember.dtype, optional): cast ``input`` to this dtype first.

    Returns:
        Tensor: the mean; 0-dim when every dim is reduced.

    Raises:
        RuntimeError: for an integer or bool input without a floating ``dtype``.

    Examples:
        >>> import ember
        >>> x = ember.tensor([[1., 2.], [3., 4.]])
        >>> ember.mean(x)
        tensor(2.5000)
        >>> x.mean(dim=0)
        tensor([2., 3.])
        >>> x.mean(1, keepdim=True)
        tensor([[1.5000],
                [3.5000]])
        >>> ember.tensor([1, 2]).mean(dtype=ember.float32)
        tensor(1.5000)
        >>> ember.tensor([1, 2]).mean()  # doctest: +ELLIPSIS
        Traceback (most recent call last):
            ...
        RuntimeError: mean(): could not infer output dtype. ...
    """,
    "Tensor.median": """Lower median of all elements, or ``(values, indices)`` along ``dim``.

    For an even count the lower of the two middle values is returned (no averaging),
    as in PyTorch; see :func:`quantile` for the interpolated median.

    Args:
        dim (int, optional): the dim to reduce; all elements if None.
        keepdim (bool): keep ``dim`` with size 1. Default: False.

    Returns:
        Tensor or tuple: a 0-dim tensor, or a named tuple ``(values, indices)``.

    Examples:
        >>> import ember
        >>> x = ember.tensor([[1., 4., 2.], [8., 6., 7.]])
        >>> x.median()
        tensor(4.)
        >>> values, indices = x.median(dim=1)
        >>> values, indices
        (tensor([2., 7.]), tensor([2, 2]))
    """,
    "mode": """Most frequent value along a dim, with the index of one of its occurrences.

    Ties go to the smallest value.

    Args:
        input (Tensor): the input tensor.
        dim (int): the dim to reduce. Default: -1.
        keepdim (bool): keep ``dim`` with size 1. Default: False.

    Returns:
        tuple: a named tuple ``(values, indices)``.

    Examples:
        >>> import ember
        >>> x = ember.tensor([[1, 2, 2, 3], [4, 4, 5, 5]])
        >>> values, indices = ember.mode(x)
        >>> values
        tensor([2, 4])
        >>> x.mode(dim=0).values
        tensor([1, 2, 2, 3])
    """,
    "nanmean": """Mean of the elements that are not NaN, over all elements or along dims.

    A slice whose elements are all NaN gives NaN.

    Args:
        input (Tensor): a floating-point tensor.
        dim (int or tuple of ints, optional): the dims to reduce; all if None.
        keepdim (bool): keep the reduced dims with size 1. Default: False.
        dtype (ember.dtype, optional): cast ``input`` to this dtype first.

    Returns:
        Tensor: the mean ignoring NaNs.

    Examples:
        >>> import ember
        >>> x = ember.tensor([[1., float("nan")], [3., 4.]])
        >>> ember.nanmean(x)
        tensor(2.6667)
        >>> x.nanmean(dim=1)
        tensor([1.0000, 3.5000])
    """,
    "nansum": """Sum of the elements, treating NaN as zero.

    Args:
        input (Tensor): the input tensor.
        dim (int or tuple of ints, optional): the dims to reduce; all if None.
        keepdim (bool): keep the reduced dims with size 1. Default: False.
        dtype (ember.dtype, optional): the accumulation and result dtype.

    Returns:
        Tensor: the sum ignoring NaNs.

    Examples:
        >>> import ember
        >>> x = ember.tensor([[1., float("nan")], [3., 4.]])
        >>> ember.nansum(x)
        tensor(8.)
        >>> x.nansum(dim=0)
        tensor([4., 4.])
    """,
    "quantile": """The ``q``-th quantiles of all elements, or along ``dim``.

    Between two data points the value is found by ``interpolation``: ``"linear"``
    (default), ``"lower"``, ``"higher"``, ``"midpoint"`` or ``"nearest"``.

    Args:
        input (Tensor): a floating-point tensor.
        q (float or Tensor): quantile(s) in ``[0, 1]``; a 1-D tensor gives one result
            per entry, stacked in a new first dim.
        dim (int, optional): the dim to reduce; the flattened input if None.
        keepdim (bool): keep ``dim`` with size 1. Default: False.
        interpolation (str): see above.

    Returns:
        Tensor: the quantiles.

    Raises:
        RuntimeError: if ``q`` is outside ``[0, 1]`` or ``input`` is not floating point.

    Examples:
        >>> import ember
        >>> x = ember.tensor([1., 2., 3., 4.])
        >>> ember.quantile(x, 0.5)
        tensor(2.5000)
        >>> x.quantile(ember.tensor([0.25, 0.75]))
        tensor([1.7500, 3.2500])
        >>> x.quantile(0.5, interpolation="lower")
        tensor(2.)
    """,
    "nanquantile": """The ``q``-th quantiles, ignoring NaN values.

    Like :func:`quantile`, but computed as if the NaNs were not there; a slice that is
    all NaN gives NaN.

    Args:
        input (Tensor): a floating-point tensor.
        q (float or Tensor): quantile(s) in ``[0, 1]``.
        dim (int, optional): the dim to reduce; the flattened input if None.
        keepdim (bool): keep ``dim`` with size 1. Default: False.
        interpolation (str): as in :func:`quantile`. Default: ``"linear"``.

    Returns:
        Tensor: the quantiles.

    Examples:
        >>> import ember
        >>> x = ember.tensor([1., float("nan"), 3.])
        >>> ember.nanquantile(x, 0.5)
        tensor(2.)
        >>> x.quantile(0.5)
        tensor(nan)
    """,
    "msort": """Sort along the first dim, returning only the values.

    Same as ``ember.sort(input, dim=0).values``.

    Args:
        input (Tensor): the input tensor.

    Returns:
        Tensor: the sorted tensor.

    Examples:
        >>> import ember
        >>> x = ember.tensor([[3., 1.], [1., 2.]])
        >>> ember.msort(x)
        tensor([[1., 1.],
                [3., 2.]])
        >>> x.msort()
        tensor([[1., 1.],
                [3., 2.]])
    """,
    # -- activations ----------------------------------------------------------------------
    "mish": """Mish activation, ``x * tanh(softplus(x))``, elementwise.

    Args:
        input (Tensor): a floating-point tensor.

    Returns:
        Tensor: same shape and dtype as ``input``.

    Note:
        PyTorch has this only as ``torch.nn.functional.mish``; ember also exposes it as
        ``ember.mish`` and ``Tensor.mish`` (:func:`ember.nn.functional.mish` works too).

    Examples:
        >>> import ember
        >>> x = ember.tensor([-1., 0., 1.])
        >>> ember.mish(x)
        tensor([-0.3034,  0.0000,  0.8651])
        >>> x.mish()
        tensor([-0.3034,  0.0000,  0.8651])
    """,
    "relu": """Rectified linear unit, ``max(x, 0)``, elementwise.

    Args:
        input (Tensor): the input tensor.

    Returns:
        Tensor: same shape and dtype as ``input``.

    Examples:
        >>> import ember
        >>> x = ember.tensor([-2., 0., 3.])
        >>> ember.relu(x)
        tensor([0., 0., 3.])
        >>> x.relu()
        tensor([0., 0., 3.])
    """,
    "relu_": """In-place version of :func:`relu`.

    Examples:
        >>> import ember
        >>> x = ember.tensor([-2., 0., 3.])
        >>> ember.relu_(x)
        tensor([0., 0., 3.])
        >>> x.relu_() is x
        True
    """,
    "sigmoid": """Logistic sigmoid, ``1 / (1 + exp(-x))``, elementwise.

    Integer inputs are promoted to the default floating dtype.

    Args:
        input (Tensor): the input tensor.

    Returns:
        Tensor: values in ``(0, 1)``.

    Examples:
        >>> import ember
        >>> x = ember.tensor([-1., 0., 1.])
        >>> ember.sigmoid(x)
        tensor([0.2689, 0.5000, 0.7311])
        >>> x.sigmoid()
        tensor([0.2689, 0.5000, 0.7311])
    """,
    "sigmoid_": """In-place version of :func:`sigmoid`.

    Examples:
        >>> import ember
        >>> x = ember.tensor([0., 0.])
        >>> ember.sigmoid_(x)
        tensor([0.5000, 0.5000])
        >>> x.sigmoid_()
        tensor([0.6225, 0.6225])
    """,
    "silu": """SiLU (swish) activation, ``x * sigmoid(x)``, elementwise.

    Args:
        input (Tensor): a floating-point tensor.

    Returns:
        Tensor: same shape and dtype as ``input``.

    Note:
        PyTorch has this only as ``torch.nn.functional.silu``; ember also exposes it as
        ``ember.silu`` and ``Tensor.silu`` (:func:`ember.nn.functional.silu` works too).

    Examples:
        >>> import ember
        >>> x = ember.tensor([-1., 0., 1.])
        >>> ember.silu(x)
        tensor([-0.2689,  0.0000,  0.7311])
        >>> x.silu()
        tensor([-0.2689,  0.0000,  0.7311])
    """,
    "softplus": """Softplus, ``log(1 + exp(x))``, elementwise.

    A smooth approximation of :func:`relu`; for large ``x`` it returns ``x`` itself to
    avoid overflow.

    Args:
        input (Tensor): a floating-point tensor.

    Returns:
        Tensor: positive values, same shape as ``input``.

    Note:
        PyTorch has this only as ``torch.nn.functional.softplus``; ember also exposes it as
        ``ember.softplus`` and ``Tensor.softplus`` (:func:`ember.nn.functional.softplus` works too).

    Examples:
        >>> import ember
        >>> x = ember.tensor([-1., 0., 1.])
        >>> ember.softplus(x)
        tensor([0.3133, 0.6931, 1.3133])
        >>> x.softplus()
        tensor([0.3133, 0.6931, 1.3133])
    """,
    "softmax": """Softmax along ``dim``: ``exp(x) / exp(x).sum(dim)``, computed stably.

    Each slice along ``dim`` becomes non-negative and sums to 1.

    Args:
        input (Tensor): the input tensor.
        dim (int): the dim along which to normalize.
        dtype (ember.dtype, optional): cast ``input`` to this dtype first.

    Returns:
        Tensor: same shape as ``input``.

    Examples:
        >>> import ember
        >>> x = ember.tensor([[1., 1.], [0., 1.]])
        >>> ember.softmax(x, dim=1)
        tensor([[0.5000, 0.5000],
                [0.2689, 0.7311]])
        >>> x.softmax(0).sum(0)
        tensor([1., 1.])
    """,
    # -- dims -----------------------------------------------------------------------------
    "movedim": """Move dims of ``input`` from ``source`` to ``destination`` positions; a view.

    The other dims keep their relative order. ``moveaxis`` (NumPy's name) is an alias.

    Args:
        input (Tensor): the input tensor.
        source (int or sequence of ints): original positions of the dims to move.
        destination (int or sequence of ints): their new positions (same length).

    Returns:
        Tensor: a view of ``input`` with permuted dims.

    Examples:
        >>> import ember
        >>> x = ember.zeros(2, 3, 4)
        >>> ember.movedim(x, 0, -1).shape
        ember.Size([3, 4, 2])
        >>> x.movedim((0, 1), (2, 0)).shape
        ember.Size([3, 4, 2])
        >>> ember.moveaxis(x, 2, 0).shape
        ember.Size([4, 2, 3])
    """,
    "Tensor.mT": """The tensor with its last two dims transposed (a view).

    For a batch of matrices, ``x.mT`` transposes every matrix; ``x`` needs at least 2
    dims.

    Examples:
        >>> import ember
        >>> x = ember.tensor([[1., 2., 3.], [4., 5., 6.]])
        >>> x.mT
        tensor([[1., 4.],
                [2., 5.],
                [3., 6.]])
        >>> ember.zeros(5, 2, 3).mT.shape
        ember.Size([5, 3, 2])
    """,
    "Tensor.mH": """The conjugate transpose of the last two dims (a view).

    ember has no complex dtypes, so this equals :attr:`Tensor.mT`.

    Examples:
        >>> import ember
        >>> x = ember.tensor([[1., 2.], [3., 4.]])
        >>> x.mH
        tensor([[1., 3.],
                [2., 4.]])
    """,
    # -- arithmetic -----------------------------------------------------------------------
    "mul": """Elementwise product ``input * other``.

    The operands broadcast and promote to a common dtype; ``other`` may be a Python
    number. Also available as the ``*`` operator; ``multiply`` is an alias.

    Args:
        input (Tensor): the first factor.
        other (Tensor or Number): the second factor.

    Returns:
        Tensor: the product.

    Examples:
        >>> import ember
        >>> a = ember.tensor([1., 2., 3.])
        >>> ember.mul(a, 2)
        tensor([2., 4., 6.])
        >>> a.mul(ember.tensor([[1.], [-1.]]))
        tensor([[ 1.,  2.,  3.],
                [-1., -2., -3.]])
        >>> ember.tensor([1, 2]) * 1.5
        tensor([1.5000, 3.0000])
    """,
    "mul_": """In-place version of :meth:`Tensor.mul`.

    The result must be castable to ``self``'s dtype (an int tensor cannot be
    multiplied in place by a float). ``multiply_`` is an alias.

    Examples:
        >>> import ember
        >>> x = ember.tensor([1., 2.])
        >>> x.mul_(3)
        tensor([3., 6.])
        >>> x.multiply_(2)
        tensor([ 6., 12.])
        >>> x
        tensor([ 6., 12.])
    """,
    "multiply": """Alias of :func:`mul`: elementwise ``input * other``.

    Args:
        input (Tensor): the first factor.
        other (Tensor or Number): the second factor.

    Returns:
        Tensor: the product.

    Examples:
        >>> import ember
        >>> a = ember.tensor([1., 2., 3.])
        >>> ember.multiply(a, a)
        tensor([1., 4., 9.])
        >>> a.multiply(-1)
        tensor([-1., -2., -3.])
    """,
    "neg": """Elementwise negation, ``-input``.

    ``negative`` is an alias.

    Args:
        input (Tensor): a numeric tensor (``bool`` is not allowed, as in PyTorch).

    Returns:
        Tensor: same shape and dtype as ``input``.

    Examples:
        >>> import ember
        >>> x = ember.tensor([1., -2., 0.])
        >>> ember.neg(x)
        tensor([-1.,  2., -0.])
        >>> x.neg()
        tensor([-1.,  2., -0.])
        >>> -ember.tensor([3, 4])
        tensor([-3, -4])
    """,
    "neg_": """In-place version of :func:`neg`; ``negative_`` is an alias.

    Examples:
        >>> import ember
        >>> x = ember.tensor([1., -2.])
        >>> ember.neg_(x)
        tensor([-1.,  2.])
        >>> x.neg_()
        tensor([ 1., -2.])
    """,
    "negative": """Alias of :func:`neg`: elementwise ``-input``.

    Args:
        input (Tensor): a numeric tensor.

    Returns:
        Tensor: the negated tensor.

    Examples:
        >>> import ember
        >>> x = ember.tensor([1., -2.])
        >>> ember.negative(x)
        tensor([-1.,  2.])
        >>> x.negative()
        tensor([-1.,  2.])
    """,
    "negative_": """In-place version of :func:`negative` (alias of :func:`neg_`).

    Examples:
        >>> import ember
        >>> x = ember.tensor([1., -2.])
        >>> ember.negative_(x)
        tensor([-1.,  2.])
        >>> x.negative_()
        tensor([ 1., -2.])
    """,
    "multinomial": """Draw category indices from the probabilities in each row of ``input``.

    ``input`` holds non-negative weights (they need not sum to 1), one distribution per
    row for a 2-D input.

    Args:
        input (Tensor): 1-D or 2-D tensor of non-negative weights.
        num_samples (int): samples to draw per row.
        replacement (bool): draw with replacement. Without it, each category is drawn
            at most once, so ``num_samples`` cannot exceed the number of categories.
            Default: False.
        generator (Generator, optional): the random generator to use.

    Returns:
        Tensor: ``int64`` indices, shape ``(num_samples,)`` or ``(rows, num_samples)``.

    Raises:
        RuntimeError: for negative, infinite or NaN weights.

    Examples:
        >>> import ember
        >>> _ = ember.manual_seed(0)
        >>> w = ember.tensor([0., 1., 0., 3.])
        >>> ember.multinomial(w, 2).sort().values
        tensor([1, 3])
        >>> w.multinomial(4, replacement=True).shape
        ember.Size([4])
    """,
    "mvlgamma": """Multivariate log-gamma function of dimension ``p``, elementwise.

    Computes ``p (p - 1) / 4 * log(pi) + sum_{i=0}^{p-1} lgamma(x - i / 2)``; every
    element must be greater than ``(p - 1) / 2``.

    Args:
        input (Tensor): a floating-point tensor.
        p (int): the dimension, at least 1.

    Returns:
        Tensor: same shape as ``input``.

    Examples:
        >>> import ember
        >>> x = ember.tensor([1.5, 2.5])
        >>> ember.mvlgamma(x, 1)
        tensor([-0.1208,  0.2847])
        >>> x.mvlgamma(2)
        tensor([0.4516, 0.8570])
    """,
    "mvlgamma_": """In-place version of :meth:`Tensor.mvlgamma`.

    Examples:
        >>> import ember
        >>> x = ember.tensor([2., 3.])
        >>> x.mvlgamma_(1)
        tensor([0.0000, 0.6931])
    """,
    "nan_to_num": """Replace NaN, +inf and -inf with finite numbers.

    By default NaN becomes 0 and the infinities become the largest and smallest
    finite values of ``input``'s dtype.

    Args:
        input (Tensor): the input tensor.
        nan (float, optional): the value for NaN. Default: 0.
        posinf (float, optional): the value for +inf. Default: the dtype's max.
        neginf (float, optional): the value for -inf. Default: the dtype's min.

    Returns:
        Tensor: a tensor with no NaN or infinite elements (unless given as values).

    Examples:
        >>> import ember
        >>> x = ember.tensor([float("nan"), float("inf"), -float("inf"), 1.])
        >>> ember.nan_to_num(x, posinf=9., neginf=-9.)
        tensor([ 0.,  9., -9.,  1.])
        >>> x.nan_to_num()[1].item() == ember.finfo(ember.float32).max
        True
    """,
    "nan_to_num_": """In-place version of :func:`nan_to_num`.

    Examples:
        >>> import ember
        >>> x = ember.tensor([float("nan"), 2.])
        >>> ember.nan_to_num_(x, nan=-1.)
        tensor([-1.,  2.])
        >>> x.nan_to_num_()
        tensor([-1.,  2.])
    """,
    # -- slicing --------------------------------------------------------------------------
    "narrow": """Return a narrowed view: ``length`` elements of ``dim`` starting at ``start``.

    The same as slicing ``start:start + length`` on ``dim``; the result shares storage
    with ``input``.

    Args:
        input (Tensor): the tensor to narrow.
        dim (int): the dim to narrow.
        start (int): the first index (negative counts from the end).
        length (int): how many elements to keep.

    Returns:
        Tensor: a view of ``input``.

    Raises:
        RuntimeError: if ``start + length`` runs past the end of ``dim``.

    Examples:
        >>> import ember
        >>> x = ember.tensor([[1, 2, 3], [4, 5, 6], [7, 8, 9]])
        >>> ember.narrow(x, 0, 0, 2)
        tensor([[1, 2, 3],
                [4, 5, 6]])
        >>> x.narrow(1, 1, 2)
        tensor([[2, 3],
                [5, 6],
                [8, 9]])
        >>> x.narrow(0, 1, 5)
        Traceback (most recent call last):
            ...
        RuntimeError: start (1) + length (5) exceeds dimension size (3).
    """,
    "narrow_copy": """Like :func:`narrow` but returns a copy instead of a view.

    Args:
        input (Tensor): the tensor to narrow.
        dim (int): the dim to narrow.
        start (int): the first index.
        length (int): how many elements to keep.

    Returns:
        Tensor: a new tensor that does not share storage with ``input``.

    Examples:
        >>> import ember
        >>> x = ember.arange(6).reshape(2, 3)
        >>> ember.narrow_copy(x, 1, 1, 2)
        tensor([[1, 2],
                [4, 5]])
        >>> x.narrow_copy(0, 1, 1)
        tensor([[3, 4, 5]])
    """,
    # -- properties and size queries ------------------------------------------------------
    "Tensor.nbytes": """Total bytes of the tensor's elements: ``numel() * element_size()``.

    For a view this counts the view's elements, not the whole storage.

    Examples:
        >>> import ember
        >>> ember.zeros(2, 3).nbytes
        24
        >>> ember.zeros(4, dtype=ember.int64).nbytes
        32
    """,
    "Tensor.ndim": """The number of dimensions of the tensor (an ``int``).

    The same as ``len(x.shape)`` and :meth:`Tensor.dim`.

    Examples:
        >>> import ember
        >>> ember.zeros(2, 3).ndim
        2
        >>> ember.tensor(1.).ndim
        0
    """,
    "numel": """The total number of elements in the tensor, as a Python ``int``.

    Args:
        input (Tensor): the tensor.

    ``Tensor.nelement`` is an alias of the method.

    Returns:
        int: the product of the sizes (1 for a 0-dim tensor).

    Examples:
        >>> import ember
        >>> x = ember.zeros(2, 3)
        >>> ember.numel(x)
        6
        >>> x.numel()
        6
        >>> ember.tensor(5.).numel()
        1
        >>> x.nelement()
        6
    """,
    "Size.numel": """The number of elements a tensor of this shape holds: the product of the sizes.

    Returns:
        int: the product (1 for the empty shape of a 0-dim tensor, 0 when a size is 0).

    Examples:
        >>> import ember
        >>> ember.Size([2, 3]).numel()
        6
        >>> ember.Size([]).numel()
        1
        >>> ember.zeros(4, 0).shape.numel()
        0
    """,
    # -- comparison -----------------------------------------------------------------------
    "ne": """Elementwise ``input != other``.

    The operands broadcast; ``other`` may be a number. NaN is not equal to anything,
    itself included. ``not_equal`` is an alias.

    Args:
        input (Tensor): the first tensor.
        other (Tensor or Number): the value to compare with.

    Returns:
        Tensor: a ``bool`` tensor.

    Examples:
        >>> import ember
        >>> a = ember.tensor([1., 2., float("nan")])
        >>> ember.ne(a, ember.tensor([1., 3., float("nan")]))
        tensor([False,  True,  True])
        >>> a.ne(2)
        tensor([ True, False,  True])
        >>> a != 1
        tensor([False,  True,  True])
    """,
    "ne_": """In-place version of :meth:`Tensor.ne`; stores 1/0 in ``self``'s own dtype.

    ``not_equal_`` is an alias.

    Examples:
        >>> import ember
        >>> x = ember.tensor([1., 2., 3.])
        >>> x.ne_(2)
        tensor([1., 0., 1.])
        >>> ember.tensor([1., 2.]).not_equal_(1)
        tensor([0., 1.])
    """,
    "not_equal": """Alias of :func:`ne`: elementwise ``input != other``.

    Args:
        input (Tensor): the first tensor.
        other (Tensor or Number): the value to compare with.

    Returns:
        Tensor: a ``bool`` tensor.

    Examples:
        >>> import ember
        >>> a = ember.tensor([1, 2, 3])
        >>> ember.not_equal(a, 2)
        tensor([ True, False,  True])
        >>> a.not_equal(ember.tensor([1, 0, 3]))
        tensor([False,  True, False])
    """,
    # -- new_* factories ------------------------------------------------------------------
    "Tensor.new_empty": """A new uninitialized tensor with ``self``'s dtype and device.

    Args:
        *size (int or sequence of ints): the shape.
        dtype (ember.dtype, optional): override ``self``'s dtype.
        device (ember.device, optional): override ``self``'s device.
        requires_grad (bool): record operations for autograd. Default: False.

    Returns:
        Tensor: a tensor whose contents are undefined.

    Examples:
        >>> import ember
        >>> x = ember.tensor([1, 2], dtype=ember.int32)
        >>> y = x.new_empty(2, 3)
        >>> y.shape, y.dtype
        (ember.Size([2, 3]), ember.int32)
    """,
    "Tensor.new_empty_strided": """A new uninitialized tensor with the given size and strides.

    It takes ``self``'s dtype and device unless overridden.

    Args:
        size (sequence of ints): the shape.
        stride (sequence of ints): the strides, in elements.
        dtype (ember.dtype, optional): override ``self``'s dtype.
        device (ember.device, optional): override ``self``'s device.

    Returns:
        Tensor: a tensor whose contents are undefined.

    Examples:
        >>> import ember
        >>> y = ember.zeros(1).new_empty_strided((2, 3), (1, 2))
        >>> y.shape, y.stride()
        (ember.Size([2, 3]), (1, 2))
    """,
    "Tensor.new_full": """A new tensor filled with ``fill_value``, with ``self``'s dtype and device.

    Args:
        size (sequence of ints): the shape.
        fill_value (Number): the value of every element.
        dtype (ember.dtype, optional): override ``self``'s dtype.
        device (ember.device, optional): override ``self``'s device.
        requires_grad (bool): record operations for autograd. Default: False.

    Returns:
        Tensor: the filled tensor.

    Examples:
        >>> import ember
        >>> x = ember.tensor([1., 2.], dtype=ember.float64)
        >>> x.new_full((2, 2), 7)
        tensor([[7., 7.],
                [7., 7.]], dtype=ember.float64)
    """,
    "Tensor.new_ones": """A new tensor of ones with ``self``'s dtype and device.

    Args:
        *size (int or sequence of ints): the shape.
        dtype (ember.dtype, optional): override ``self``'s dtype.
        device (ember.device, optional): override ``self``'s device.
        requires_grad (bool): record operations for autograd. Default: False.

    Returns:
        Tensor: a tensor of ones.

    Examples:
        >>> import ember
        >>> x = ember.tensor([1, 2])
        >>> x.new_ones(2, 2)
        tensor([[1, 1],
                [1, 1]])
        >>> x.new_ones((3,), dtype=ember.float32)
        tensor([1., 1., 1.])
    """,
    "Tensor.new_tensor": """A new tensor holding a copy of ``data``, with ``self``'s dtype, device.

    Unlike :func:`tensor`, the dtype comes from ``self`` rather than from ``data``.

    Args:
        data (array_like): a number, list, tuple, NumPy array or tensor.
        dtype (ember.dtype, optional): override ``self``'s dtype.
        device (ember.device, optional): override ``self``'s device.
        requires_grad (bool): record operations for autograd. Default: False.

    Returns:
        Tensor: the new tensor.

    Examples:
        >>> import ember
        >>> x = ember.zeros(1, dtype=ember.float64)
        >>> x.new_tensor([1, 2])
        tensor([1., 2.], dtype=ember.float64)
    """,
    "Tensor.new_zeros": """A new tensor of zeros with ``self``'s dtype and device.

    Args:
        *size (int or sequence of ints): the shape.
        dtype (ember.dtype, optional): override ``self``'s dtype.
        device (ember.device, optional): override ``self``'s device.
        requires_grad (bool): record operations for autograd. Default: False.

    Returns:
        Tensor: a tensor of zeros.

    Examples:
        >>> import ember
        >>> x = ember.tensor([1, 2])
        >>> x.new_zeros(3)
        tensor([0, 0, 0])
        >>> x.new_zeros((2, 1), dtype=ember.bool)
        tensor([[False],
                [False]])
    """,
    "Tensor.nextafter_": """In-place version of :meth:`Tensor.nextafter`.

    Moves each element one representable floating-point step towards ``other``.

    Examples:
        >>> import ember
        >>> x = ember.tensor([1.0, 2.0], dtype=ember.float64)
        >>> x.nextafter_(ember.tensor([2.0, 1.0], dtype=ember.float64)) - ember.tensor([1., 2.])
        tensor([ 2.2204e-16, -2.2204e-16], dtype=ember.float64)
    """,
    "Tensor.nonzero": """Indices of the non-zero elements, as :func:`nonzero`.

    Args:
        as_tuple (bool): return one 1-D index tensor per dim instead of one
            ``(n, ndim)`` tensor. Default: False.

    Returns:
        Tensor or tuple of Tensors: ``int64`` indices in row-major order.

    Examples:
        >>> import ember
        >>> x = ember.tensor([[0, 1], [2, 0]])
        >>> x.nonzero()
        tensor([[0, 1],
                [1, 0]])
        >>> x.nonzero(as_tuple=True)
        (tensor([0, 1]), tensor([1, 0]))
    """,
    "nonzero_static": """Indices of the non-zero elements, padded or cut to a fixed count ``size``.

    Like :func:`nonzero` but the result always has ``size`` rows: missing rows are filled
    with ``fill_value``, extra non-zeros are dropped. Useful where shapes must not depend
    on data.

    Args:
        input (Tensor): the input tensor.
        size (int): the number of rows of the result (keyword-only).
        fill_value (int): the value for padding rows. Default: -1.

    Returns:
        Tensor: ``(size, ndim)`` ``int64`` indices.

    Examples:
        >>> import ember
        >>> x = ember.tensor([0, 3, 0, 5])
        >>> ember.nonzero_static(x, size=3)
        tensor([[ 1],
                [ 3],
                [-1]])
        >>> x.nonzero_static(size=1)
        tensor([[1]])
    """,
    "Tensor.norm": """Vector norm of the tensor, as :func:`norm`.

    Args:
        p (float or str): the order: a number, ``inf``, ``-inf`` or ``"fro"``. Default: 2.
        dim (int or tuple of ints, optional): the dims to reduce; all dims if None.
        keepdim (bool): keep the reduced dims with size 1. Default: False.

    Returns:
        Tensor: the norm.

    Examples:
        >>> import ember
        >>> x = ember.tensor([[3., 4.], [0., 1.]])
        >>> x.norm()
        tensor(5.0990)
        >>> x.norm(dim=1)
        tensor([5., 1.])
        >>> x.norm(p=1)
        tensor(8.)
    """,
    "normal_": """Fill ``self`` with samples from a normal distribution, in place.

    Args:
        mean (float): the mean. Default: 0.
        std (float): the standard deviation. Default: 1.
        generator (Generator, optional): the random generator to use.

    Returns:
        Tensor: ``self``.

    Examples:
        >>> import ember
        >>> _ = ember.manual_seed(0)
        >>> x = ember.empty(3).normal_(mean=10., std=0.01)
        >>> bool(((x - 10).abs() < 1).all())
        True
    """,
    # -- factories ------------------------------------------------------------------------
    "ones": """Return a tensor filled with ones, of the given shape.

    Args:
        *size (int or sequence of ints): the shape, as separate ints or one sequence.
        dtype (ember.dtype, optional): the element type. Default: the default dtype
            (see :func:`set_default_dtype`), ``float32`` unless changed.
        device (ember.device or str, optional): where to allocate. Default: ``"cpu"``.
        requires_grad (bool): record operations for autograd. Default: False.

    Returns:
        Tensor: a tensor of ones.

    Examples:
        >>> import ember
        >>> ember.ones(2, 3)
        tensor([[1., 1., 1.],
                [1., 1., 1.]])
        >>> ember.ones((2,), dtype=ember.int32)
        tensor([1, 1], dtype=ember.int32)
        >>> ember.ones([]).shape
        ember.Size([])
    """,
    "ones_like": """A tensor of ones with the shape (and by default dtype, device) of ``input``.

    Args:
        input (Tensor): the tensor whose shape to copy.
        dtype (ember.dtype, optional): the element type. Default: ``input``'s.
        device (ember.device, optional): where to allocate. Default: ``input``'s.

    Returns:
        Tensor: a tensor of ones.

    Examples:
        >>> import ember
        >>> x = ember.tensor([[1, 2, 3]])
        >>> ember.ones_like(x)
        tensor([[1, 1, 1]])
        >>> ember.ones_like(x, dtype=ember.float32)
        tensor([[1., 1., 1.]])
    """,
    "zeros": """Return a tensor filled with zeros, of the given shape.

    Args:
        *size (int or sequence of ints): the shape, as separate ints or one sequence.
        dtype (ember.dtype, optional): the element type. Default: the default dtype
            (see :func:`set_default_dtype`), ``float32`` unless changed.
        device (ember.device or str, optional): where to allocate. Default: ``"cpu"``.
        requires_grad (bool): record operations for autograd. Default: False.

    Returns:
        Tensor: a tensor of zeros.

    Examples:
        >>> import ember
        >>> ember.zeros(2, 3)
        tensor([[0., 0., 0.],
                [0., 0., 0.]])
        >>> ember.zeros((2,), dtype=ember.int64)
        tensor([0, 0])
        >>> ember.zeros(2, requires_grad=True)
        tensor([0., 0.], requires_grad=True)
    """,
    "zeros_like": """A tensor of zeros with the shape (and by default dtype, device) of ``input``.

    Args:
        input (Tensor): the tensor whose shape to copy.
        dtype (ember.dtype, optional): the element type. Default: ``input``'s.
        device (ember.device, optional): where to allocate. Default: ``input``'s.

    Returns:
        Tensor: a tensor of zeros.

    Examples:
        >>> import ember
        >>> x = ember.tensor([[1., 2.], [3., 4.]])
        >>> ember.zeros_like(x)
        tensor([[0., 0.],
                [0., 0.]])
        >>> ember.zeros_like(x, dtype=ember.int32)
        tensor([[0, 0],
                [0, 0]], dtype=ember.int32)
    """,
    "rand": """Return a tensor of samples drawn uniformly from ``[0, 1)``.

    Args:
        *size (int or sequence of ints): the shape.
        generator (Generator, optional): the random generator to use.
        dtype (ember.dtype, optional): a floating dtype. Default: the default dtype.
        device (ember.device or str, optional): where to allocate. Default: ``"cpu"``.
        requires_grad (bool): record operations for autograd. Default: False.

    Returns:
        Tensor: the samples.

    Note:
        ember's generator is not PyTorch's, so a seed gives different numbers than in
        PyTorch (but the same numbers in ember on every run).

    Examples:
        >>> import ember
        >>> _ = ember.manual_seed(0)
        >>> x = ember.rand(2, 3)
        >>> x.shape, bool(((x >= 0) & (x < 1)).all())
        (ember.Size([2, 3]), True)
        >>> ember.rand(2, dtype=ember.float64).dtype
        ember.float64
    """,
    "rand_like": """Uniform samples from ``[0, 1)`` with the shape, dtype and device of ``input``.

    Args:
        input (Tensor): the tensor whose shape to copy.
        dtype (ember.dtype, optional): override ``input``'s dtype.
        device (ember.device, optional): override ``input``'s device.

    Returns:
        Tensor: the samples.

    Examples:
        >>> import ember
        >>> _ = ember.manual_seed(0)
        >>> ember.rand_like(ember.zeros(2, 2)).shape
        ember.Size([2, 2])
    """,
    "randn": """Return a tensor of samples from the standard normal distribution.

    Args:
        *size (int or sequence of ints): the shape.
        generator (Generator, optional): the random generator to use.
        dtype (ember.dtype, optional): a floating dtype. Default: the default dtype.
        device (ember.device or str, optional): where to allocate. Default: ``"cpu"``.
        requires_grad (bool): record operations for autograd. Default: False.

    Returns:
        Tensor: samples with mean 0 and variance 1.

    Note:
        ember's generator is not PyTorch's, so a seed gives different numbers than in
        PyTorch (but the same numbers in ember on every run).

    Examples:
        >>> import ember
        >>> _ = ember.manual_seed(0)
        >>> ember.randn(2, 3)
        tensor([[-0.2060, -0.1288, -0.2898],
                [-1.2719, -1.4064,  0.0434]])
        >>> ember.randn((4,), requires_grad=True).requires_grad
        True
    """,
    "randn_like": """Standard normal samples with the shape, dtype and device of ``input``.

    Args:
        input (Tensor): the tensor whose shape to copy.
        dtype (ember.dtype, optional): override ``input``'s dtype.
        device (ember.device, optional): override ``input``'s device.

    Returns:
        Tensor: the samples.

    Examples:
        >>> import ember
        >>> _ = ember.manual_seed(0)
        >>> ember.randn_like(ember.zeros(3, dtype=ember.float64)).dtype
        ember.float64
    """,
    "randint": """Return a tensor of random integers drawn uniformly from ``[low, high)``.

    Call it as ``randint(high, size)`` or ``randint(low, high, size)``.

    Args:
        low (int): the lowest value (inclusive). Default: 0.
        high (int): one above the highest value.
        size (tuple of ints): the shape.
        generator (Generator, optional): the random generator to use.
        dtype (ember.dtype, optional): the element type. Default: ``int64``.
        device (ember.device or str, optional): where to allocate. Default: ``"cpu"``.

    Returns:
        Tensor: the integers.

    Examples:
        >>> import ember
        >>> _ = ember.manual_seed(0)
        >>> x = ember.randint(3, 10, (2, 4))
        >>> x.dtype, bool(((x >= 3) & (x < 10)).all())
        (ember.int64, True)
        >>> ember.randint(2, (5,)).shape
        ember.Size([5])
    """,
    "randint_like": """Random integers in ``[low, high)`` with the shape of ``input``.

    Call it as ``randint_like(x, high)`` or ``randint_like(x, low, high)``; the dtype and
    device are ``input``'s unless overridden.

    Args:
        input (Tensor): the tensor whose shape to copy.
        low (int): the lowest value (inclusive). Default: 0.
        high (int): one above the highest value.

    Returns:
        Tensor: the integers.

    Examples:
        >>> import ember
        >>> _ = ember.manual_seed(0)
        >>> x = ember.randint_like(ember.zeros(2, 3), 5, 7)
        >>> x.dtype, bool(((x == 5) | (x == 6)).all())
        (ember.float32, True)
    """,
    "randperm": """Return a random permutation of the integers ``0`` to ``n - 1``.

    Args:
        n (int): the number of elements.
        generator (Generator, optional): the random generator to use.
        dtype (ember.dtype, optional): the element type. Default: ``int64``.
        device (ember.device or str, optional): where to allocate. Default: ``"cpu"``.

    Returns:
        Tensor: a 1-D tensor of length ``n``.

    Examples:
        >>> import ember
        >>> _ = ember.manual_seed(0)
        >>> p = ember.randperm(5)
        >>> p.sort().values
        tensor([0, 1, 2, 3, 4])
    """,
    "Tensor.random_": """Fill ``self`` with random integers, in place.

    ``random_()`` draws from ``[0, 2**mantissa]`` for floating dtypes (the integers the
    dtype holds exactly) or the dtype's range for integers; ``random_(to)`` from
    ``[0, to)``; ``random_(from, to)`` from ``[from, to)``.

    Args:
        from (int, optional): the lowest value (inclusive).
        to (int, optional): one above the highest value.
        generator (Generator, optional): the random generator to use.

    Returns:
        Tensor: ``self``.

    Examples:
        >>> import ember
        >>> _ = ember.manual_seed(0)
        >>> x = ember.zeros(6).random_(2, 4)
        >>> bool(((x == 2) | (x == 3)).all())
        True
    """,
    "Tensor.output_nr": """Which output of the operation that made this tensor it is (an ``int``).

    0 for a leaf or a single-output operation; for ``a, b = x.unbind()`` the second
    tensor has ``output_nr == 1``. Autograd uses it to route gradients.

    Examples:
        >>> import ember
        >>> x = ember.ones(2, 3, requires_grad=True)
        >>> a, b = x.unbind()
        >>> x.output_nr, a.output_nr, b.output_nr
        (0, 0, 1)
    """,
    # -- permute, repeat, reshape ---------------------------------------------------------
    "permute": """Return a view of ``input`` with its dims reordered.

    The ``i``-th dim of the result is dim ``dims[i]`` of ``input``. The tensor method also
    takes the dims as separate arguments: ``x.permute(2, 0, 1)``.

    Args:
        input (Tensor): the input tensor.
        dims (sequence of ints): a permutation of ``range(input.dim())``.

    Returns:
        Tensor: a view sharing storage with ``input`` (usually not contiguous).

    Raises:
        RuntimeError: if ``dims`` is not a permutation of the dims.

    Examples:
        >>> import ember
        >>> x = ember.zeros(2, 3, 4)
        >>> ember.permute(x, (2, 0, 1)).shape
        ember.Size([4, 2, 3])
        >>> x.permute(1, 0, 2).shape
        ember.Size([3, 2, 4])
        >>> x.permute(0, 1)  # doctest: +ELLIPSIS
        Traceback (most recent call last):
            ...
        RuntimeError: permute(sparse_coo): number of dimensions in the tensor input does not ...
    """,
    "permute_copy": """Like :func:`permute` but returns a contiguous copy instead of a view.

    Args:
        input (Tensor): the input tensor.
        dims (sequence of ints): a permutation of the dims.

    Returns:
        Tensor: a new tensor.

    Examples:
        >>> import ember
        >>> x = ember.tensor([[1, 2], [3, 4]])
        >>> ember.permute_copy(x, (1, 0))
        tensor([[1, 3],
                [2, 4]])
    """,
    "Tensor.pin_memory": """Copy the tensor into page-locked host memory, for faster device copies.

    Pinned memory needs an accelerator plugin that provides it.

    Raises:
        RuntimeError: when no installed device plugin provides pinned memory, as PyTorch
            raises without an accelerator.

    Examples:
        >>> import ember
        >>> ember.zeros(2).is_pinned()
        False
    """,
    "pinverse": """Moore-Penrose pseudo-inverse of a matrix (or a batch of matrices).

    Computed from the SVD; singular values below ``rcond`` times the largest are treated
    as zero.

    Args:
        input (Tensor): a ``(*, m, n)`` tensor.
        rcond (float): the relative cutoff. Default: 1e-15.

    Returns:
        Tensor: the ``(*, n, m)`` pseudo-inverse.

    Examples:
        >>> import ember
        >>> a = ember.tensor([[2., 0.], [0., 4.], [0., 0.]])
        >>> ember.pinverse(a)
        tensor([[0.5000, 0.0000, 0.0000],
                [0.0000, 0.2500, 0.0000]])
        >>> a.pinverse().shape
        ember.Size([2, 3])
    """,
    "polygamma": """The ``n``-th derivative of the digamma function, elementwise.

    ``polygamma(0, x)`` is ``digamma(x)``. The function takes ``n`` first
    (``ember.polygamma(n, x)``); the method takes just ``n`` (``x.polygamma(n)``).

    Args:
        n (int): the order of the derivative, ``n >= 0``.
        input (Tensor): a floating-point tensor.

    Returns:
        Tensor: same shape as ``input``.

    Examples:
        >>> import ember
        >>> x = ember.tensor([1., 2.])
        >>> ember.polygamma(1, x)
        tensor([1.6449, 0.6449])
        >>> x.polygamma(0)
        tensor([-0.5772,  0.4228])
    """,
    "polygamma_": """In-place version of :meth:`Tensor.polygamma`.

    Examples:
        >>> import ember
        >>> x = ember.tensor([1., 2.])
        >>> x.polygamma_(1)
        tensor([1.6449, 0.6449])
    """,
    "positive": """Return ``input`` itself (unary plus), rejecting ``bool`` tensors.

    Args:
        input (Tensor): a numeric tensor.

    Returns:
        Tensor: ``input`` (the same tensor object, as in PyTorch).

    Examples:
        >>> import ember
        >>> x = ember.tensor([1., -2.])
        >>> ember.positive(x)
        tensor([ 1., -2.])
        >>> x.positive() is x
        True
    """,
    "prod": """Product of all elements, or along a dim.

    Integer and ``bool`` inputs are multiplied as ``int64``, as in PyTorch.

    Args:
        input (Tensor): the input tensor.
        dim (int, optional): the dim to reduce; all elements if None.
        keepdim (bool): keep ``dim`` with size 1. Default: False.
        dtype (ember.dtype, optional): the accumulation and result dtype.

    Returns:
        Tensor: the product.

    Examples:
        >>> import ember
        >>> x = ember.tensor([[1., 2.], [3., 4.]])
        >>> ember.prod(x)
        tensor(24.)
        >>> x.prod(dim=1)
        tensor([ 2., 12.])
        >>> ember.tensor([2, 3], dtype=ember.int32).prod().dtype
        ember.int64
    """,
    "put": """Write ``source`` into ``input`` at flat indices ``index``; out of place.

    ``input`` is treated as 1-D (row-major); negative indices count from the end.

    Args:
        input (Tensor): the tensor to copy.
        index (Tensor): ``int64`` flat indices.
        source (Tensor): the values, as many as ``index`` has.
        accumulate (bool): add to the existing values instead of replacing. Default: False.

    Returns:
        Tensor: the updated copy.

    Examples:
        >>> import ember
        >>> x = ember.zeros(2, 2)
        >>> ember.put(x, ember.tensor([0, 3]), ember.tensor([1., 2.]))
        tensor([[1., 0.],
                [0., 2.]])
        >>> x.put(ember.tensor([1, 1]), ember.tensor([1., 1.]), accumulate=True)
        tensor([[0., 2.],
                [0., 0.]])
    """,
    "put_": """In-place version of :meth:`Tensor.put`.

    Examples:
        >>> import ember
        >>> x = ember.zeros(3)
        >>> x.put_(ember.tensor([-1]), ember.tensor([5.]))
        tensor([0., 0., 5.])
    """,
    "qr": """QR decomposition of a matrix (or a batch): ``input = Q @ R``.

    ``Q`` has orthonormal columns, ``R`` is upper triangular.

    Args:
        input (Tensor): a ``(*, m, n)`` tensor.
        some (bool): the reduced decomposition (``Q`` is ``(m, k)``, ``k = min(m, n)``) if
            True, the complete one (``Q`` is ``(m, m)``) if False. Default: True.

    Returns:
        tuple: a named tuple ``(Q, R)``.

    Note:
        PyTorch deprecates ``torch.qr`` in favour of ``torch.linalg.qr``;
        :func:`ember.linalg.qr` is available too.

    Examples:
        >>> import ember
        >>> a = ember.tensor([[3., 1.], [4., 2.]])
        >>> q, r = ember.qr(a)
        >>> bool(ember.allclose(q @ r, a, atol=1e-5))
        True
        >>> a.qr().R.shape
        ember.Size([2, 2])
    """,
    "rad2deg": """Convert angles from radians to degrees, elementwise.

    Args:
        input (Tensor): angles in radians.

    Returns:
        Tensor: ``input * 180 / pi``.

    Examples:
        >>> import ember
        >>> x = ember.tensor([3.141592653589793, -1.5707963267948966])
        >>> ember.rad2deg(x)
        tensor([180., -90.])
        >>> x.rad2deg()
        tensor([180., -90.])
    """,
    "rad2deg_": """In-place version of :func:`rad2deg`.

    Examples:
        >>> import ember
        >>> x = ember.tensor([0., 3.141592653589793])
        >>> ember.rad2deg_(x)
        tensor([  0., 180.])
        >>> x.rad2deg_() is x
        True
    """,
    "ravel": """Flatten ``input`` to 1-D; a view when possible, else a copy.

    Args:
        input (Tensor): the input tensor.

    Returns:
        Tensor: a 1-D tensor of ``input.numel()`` elements in row-major order.

    Examples:
        >>> import ember
        >>> x = ember.tensor([[1, 2], [3, 4]])
        >>> ember.ravel(x)
        tensor([1, 2, 3, 4])
        >>> x.t().ravel()
        tensor([1, 3, 2, 4])
    """,
    "real": """Return the real part of ``input``.

    Args:
        input (Tensor): the input tensor.

    Returns:
        Tensor: ``input`` itself.

    Note:
        ember has no complex dtypes, so the real part is the tensor itself.

    Examples:
        >>> import ember
        >>> x = ember.tensor([1., 2.])
        >>> ember.real(x)
        tensor([1., 2.])
    """,
    "Tensor.real": """The real part of the tensor: the tensor itself (ember has no complex dtypes).

    Examples:
        >>> import ember
        >>> x = ember.tensor([1., 2.])
        >>> x.real
        tensor([1., 2.])
    """,
    "reciprocal": """Elementwise reciprocal, ``1 / input``.

    Integer inputs are promoted to the default floating dtype; ``1 / 0`` is ``inf``.

    Args:
        input (Tensor): the input tensor.

    Returns:
        Tensor: the reciprocal.

    Examples:
        >>> import ember
        >>> x = ember.tensor([1., 2., 0.])
        >>> ember.reciprocal(x)
        tensor([1.0000, 0.5000,    inf])
        >>> ember.tensor([4, 5]).reciprocal()
        tensor([0.2500, 0.2000])
    """,
    "reciprocal_": """In-place version of :func:`reciprocal`.

    Examples:
        >>> import ember
        >>> x = ember.tensor([2., 4.])
        >>> ember.reciprocal_(x)
        tensor([0.5000, 0.2500])
        >>> x.reciprocal_()
        tensor([2., 4.])
    """,
    "Tensor.register_post_accumulate_grad_hook": """Run a hook after a leaf's gradient accumulates.

    ``hook(tensor)`` runs once per backward pass, after the gradient has been added to
    ``.grad``; it returns nothing. Only leaf tensors that require grad accept one.
    Optimizers use it to step a parameter as soon as its gradient is ready.

    Args:
        hook (Callable[[Tensor], None]): the function to call.

    Returns:
        A handle whose ``remove()`` unregisters the hook.

    Raises:
        RuntimeError: for a non-leaf tensor.

    Note:
        PyTorch also refuses a tensor that does not require grad; ember accepts it, and
        the hook never runs.

    Examples:
        >>> import ember
        >>> w = ember.tensor([1., 2.], requires_grad=True)
        >>> seen = []
        >>> handle = w.register_post_accumulate_grad_hook(lambda t: seen.append(t.grad))
        >>> (w * 3).sum().backward()
        >>> seen
        [tensor([3., 3.])]
        >>> handle.remove()
    """,
    "remainder": """Elementwise remainder of ``input / other``, with the sign of ``other``.

    Python's ``%`` semantics: ``remainder(-3, 2) == 1``. See :func:`fmod` for the C
    semantics (sign of ``input``). The operands broadcast and promote; ``other`` may be a
    number. Also available as ``%``.

    Args:
        input (Tensor): the dividend.
        other (Tensor or Number): the divisor.

    Returns:
        Tensor: the remainder.

    Examples:
        >>> import ember
        >>> x = ember.tensor([-3, -1, 1, 3])
        >>> ember.remainder(x, 2)
        tensor([1, 1, 1, 1])
        >>> ember.tensor([5.5, -5.5]).remainder(2)
        tensor([1.5000, 0.5000])
        >>> x % -2
        tensor([-1, -1, -1, -1])
    """,
    "remainder_": """In-place version of :meth:`Tensor.remainder`.

    Examples:
        >>> import ember
        >>> x = ember.tensor([-3, 3])
        >>> x.remainder_(2)
        tensor([1, 1])
    """,
    "Tensor.repeat": """Tile the tensor: repeat it ``sizes[i]`` times along each dim.

    ``sizes`` may have more entries than the tensor has dims; the tensor is then treated
    as if it had leading dims of size 1. The data is copied (unlike :meth:`expand`).

    Args:
        *sizes (int or sequence of ints): repetitions per dim, at least ``self.dim()``.

    Returns:
        Tensor: a new tensor of shape ``sizes[i] * self.shape[i]``.

    Raises:
        RuntimeError: if fewer sizes than dims are given.

    Examples:
        >>> import ember
        >>> x = ember.tensor([1, 2])
        >>> x.repeat(2)
        tensor([1, 2, 1, 2])
        >>> x.repeat(2, 2)
        tensor([[1, 2, 1, 2],
                [1, 2, 1, 2]])
        >>> x.repeat((3, 1)).shape
        ember.Size([3, 2])
    """,
    "Tensor.repeat_interleave": """Repeat each element (or slice along ``dim``) ``repeats`` times.

    Args:
        repeats (int or Tensor): the count for every element, or one count per element.
        dim (int, optional): the dim to repeat along; the flattened tensor if None.
        output_size (int, optional): the total length along ``dim``, if known.

    Returns:
        Tensor: the repeated tensor.

    Examples:
        >>> import ember
        >>> x = ember.tensor([[1, 2], [3, 4]])
        >>> x.repeat_interleave(2)
        tensor([1, 1, 2, 2, 3, 3, 4, 4])
        >>> x.repeat_interleave(ember.tensor([1, 2]), dim=0)
        tensor([[1, 2],
                [3, 4],
                [3, 4]])
    """,
    "Tensor.requires_grad": """Whether autograd records operations on this tensor (a ``bool``).

    Setting it on a leaf turns gradient tracking on or off; results of operations on a
    tensor that requires grad require grad too (outside :func:`no_grad`). Only
    floating-point tensors can require grad.

    Examples:
        >>> import ember
        >>> x = ember.tensor([1., 2.])
        >>> x.requires_grad
        False
        >>> x.requires_grad = True
        >>> (x * 2).requires_grad
        True
        >>> ember.tensor([1, 2]).requires_grad_()
        Traceback (most recent call last):
            ...
        RuntimeError: only Tensors of floating point dtype can require gradients
    """,
    "Tensor.requires_grad_": """Set :attr:`requires_grad` in place and return ``self``.

    Handy right after creating a leaf tensor.

    Args:
        requires_grad (bool): the new value. Default: True.

    Returns:
        Tensor: ``self``.

    Raises:
        RuntimeError: to set it on an integer tensor, or to turn it off on a non-leaf.

    Examples:
        >>> import ember
        >>> w = ember.zeros(2).requires_grad_()
        >>> w.requires_grad, w.is_leaf
        (True, True)
    """,
    "reshape": """Return a tensor with the same data and number of elements but a new shape.

    A view when the strides allow it (always for a contiguous tensor), a copy otherwise;
    do not rely on either. One dim may be ``-1``: it is inferred. The tensor method also
    takes the shape as separate ints: ``x.reshape(2, -1)``.

    Args:
        input (Tensor): the input tensor.
        shape (sequence of ints): the new shape.

    Returns:
        Tensor: the reshaped tensor.

    Raises:
        RuntimeError: if the shape does not have ``input.numel()`` elements.

    Examples:
        >>> import ember
        >>> x = ember.arange(6)
        >>> ember.reshape(x, (2, 3))
        tensor([[0, 1, 2],
                [3, 4, 5]])
        >>> x.reshape(3, -1).shape
        ember.Size([3, 2])
        >>> x.reshape(4)
        Traceback (most recent call last):
            ...
        RuntimeError: shape '[4]' is invalid for input of size 6
    """,
    "Tensor.reshape_as": """Reshape to ``other``'s shape: ``self.reshape(other.shape)``.

    Args:
        other (Tensor): the tensor whose shape to take.

    Returns:
        Tensor: the reshaped tensor (a view when possible).

    Examples:
        >>> import ember
        >>> ember.arange(4).reshape_as(ember.zeros(2, 2))
        tensor([[0, 1],
                [2, 3]])
    """,
    "Tensor.resize_": """Resize ``self`` in place to ``size``, reallocating storage if it must grow.

    Existing elements keep their row-major positions; new elements are uninitialized.
    Prefer :meth:`reshape` or :meth:`view` unless you need to reuse the tensor.

    Args:
        *size (int or sequence of ints): the new shape.

    Returns:
        Tensor: ``self``.

    Examples:
        >>> import ember
        >>> x = ember.tensor([1., 2., 3., 4.])
        >>> x.resize_(2, 2)
        tensor([[1., 2.],
                [3., 4.]])
        >>> x.resize_(1).shape
        ember.Size([1])
    """,
    "Tensor.resize_as_": """Resize ``self`` in place to the shape of ``the_template``.

    Same as ``self.resize_(the_template.shape)``.

    Examples:
        >>> import ember
        >>> x = ember.tensor([1., 2., 3., 4.])
        >>> x.resize_as_(ember.zeros(2, 2))
        tensor([[1., 2.],
                [3., 4.]])
    """,
    "Tensor.retain_grad": """Keep ``.grad`` of this non-leaf tensor after backward.

    By default only leaf tensors get a ``.grad``; call this on an intermediate result
    to keep its gradient too. On a leaf it does nothing.

    Raises:
        RuntimeError: for a tensor that does not require grad.

    Examples:
        >>> import ember
        >>> x = ember.tensor([1., 2.], requires_grad=True)
        >>> y = x * 3
        >>> y.retain_grad()
        >>> (y * y).sum().backward()
        >>> y.grad
        tensor([ 6., 12.])
    """,
    "Tensor.retains_grad": """Whether this non-leaf tensor keeps its ``.grad`` (a ``bool``).

    True after :meth:`retain_grad` on a non-leaf; always False for a leaf (leaves get a
    ``.grad`` anyway).

    Examples:
        >>> import ember
        >>> x = ember.tensor([1.], requires_grad=True)
        >>> y = x * 2
        >>> y.retains_grad
        False
        >>> y.retain_grad()
        >>> y.retains_grad, x.retains_grad
        (True, False)
    """,
    "roll": """Roll elements along the given dims; elements shifted past the end wrap around.

    With ``dims`` empty the tensor is flattened, rolled, and reshaped back.

    Args:
        input (Tensor): the input tensor.
        shifts (int or tuple of ints): places to shift (negative shifts go left).
        dims (int or tuple of ints): the dims, one per shift. Default: all, flattened.

    Returns:
        Tensor: the rolled tensor.

    Examples:
        >>> import ember
        >>> x = ember.tensor([[1, 2, 3], [4, 5, 6]])
        >>> ember.roll(x, 1)
        tensor([[6, 1, 2],
                [3, 4, 5]])
        >>> x.roll(-1, dims=1)
        tensor([[2, 3, 1],
                [5, 6, 4]])
        >>> x.roll((1, 1), dims=(0, 1))
        tensor([[6, 4, 5],
                [3, 1, 2]])
    """,
    "rot90": """Rotate by 90 degrees ``k`` times in the plane of ``dims``.

    The rotation goes from the first towards the second dim of ``dims``
    (counter-clockwise for ``dims=(0, 1)`` as printed).

    Args:
        input (Tensor): a tensor with at least 2 dims.
        k (int): the number of quarter turns (negative turns the other way). Default: 1.
        dims (sequence of two ints): the plane. Default: ``(0, 1)``.

    Returns:
        Tensor: the rotated tensor.

    Examples:
        >>> import ember
        >>> x = ember.tensor([[1, 2], [3, 4]])
        >>> ember.rot90(x)
        tensor([[2, 4],
                [1, 3]])
        >>> x.rot90(2)
        tensor([[4, 3],
                [2, 1]])
    """,
    "round_": """In-place version of :func:`round`.

    Halves round to the nearest even integer, as in PyTorch.

    Args:
        decimals (int): round to this many decimal places. Default: 0.

    Examples:
        >>> import ember
        >>> x = ember.tensor([0.5, 1.5, 2.7])
        >>> ember.round_(x)
        tensor([0., 2., 3.])
        >>> ember.tensor([1.234]).round_(decimals=1)
        tensor([1.2000])
    """,
    "row_stack": """Alias of :func:`vstack`: stack tensors vertically (along dim 0).

    Args:
        tensors (sequence of Tensors): the tensors; 1-D tensors become rows.

    Returns:
        Tensor: the stacked tensor.

    Examples:
        >>> import ember
        >>> ember.row_stack([ember.tensor([1, 2]), ember.tensor([3, 4])])
        tensor([[1, 2],
                [3, 4]])
    """,
    "rsqrt": """Elementwise reciprocal square root, ``1 / sqrt(input)``.

    Args:
        input (Tensor): the input tensor; negative elements give NaN, zero gives ``inf``.

    Returns:
        Tensor: a floating-point tensor.

    Examples:
        >>> import ember
        >>> x = ember.tensor([4., 1., 0.])
        >>> ember.rsqrt(x)
        tensor([0.5000, 1.0000,    inf])
        >>> ember.tensor([16.]).rsqrt()
        tensor([0.2500])
    """,
    "rsqrt_": """In-place version of :func:`rsqrt`.

    Examples:
        >>> import ember
        >>> x = ember.tensor([4., 0.25])
        >>> ember.rsqrt_(x)
        tensor([0.5000, 2.0000])
        >>> x.rsqrt_()
        tensor([1.4142, 0.7071])
    """,
    # -- scatter / select -----------------------------------------------------------------
    "scatter": """Write values into a copy of ``input`` at the positions ``index`` along ``dim``.

    For a 2-D tensor and ``dim=0``: ``out[index[i][j]][j] = src[i][j]`` (for ``dim=1``,
    ``out[i][index[i][j]] = src[i][j]``). ``index`` has as many dims as ``input``; only
    its extent is written. With ``value=`` every indexed position gets that number.
    This is the inverse of :func:`gather`. If ``index`` repeats a position, which write
    wins is unspecified.

    Args:
        input (Tensor): the tensor to copy.
        dim (int): the dim to index along.
        index (Tensor): ``int64`` indices, ``index.size(d) <= src.size(d)`` for every ``d``.
        src (Tensor, optional): the values to write.
        value (Number, optional): a single value to write instead of ``src``.
        reduce (str, optional): ``"add"`` or ``"multiply"`` to combine with the existing
            values instead of replacing them. PyTorch deprecates ``reduce`` with a tensor
            ``src``; prefer :func:`scatter_reduce` or :func:`scatter_add`.

    Returns:
        Tensor: the updated copy of ``input``.

    Raises:
        RuntimeError: if ``index`` is out of range or its dims do not match.

    Examples:
        >>> import ember
        >>> x = ember.zeros(3, 3)
        >>> index = ember.tensor([[0, 1, 2]])
        >>> ember.scatter(x, 0, index, ember.tensor([[1., 2., 3.]]))
        tensor([[1., 0., 0.],
                [0., 2., 0.],
                [0., 0., 3.]])
        >>> x.scatter(1, ember.tensor([[2], [0]]), 5.)
        tensor([[0., 0., 5.],
                [5., 0., 0.],
                [0., 0., 0.]])
        >>> x.scatter(0, ember.tensor([[0, 0, 0]]), ember.ones(1, 3), reduce="add")
        tensor([[1., 1., 1.],
                [0., 0., 0.],
                [0., 0., 0.]])
    """,
    "scatter_": """In-place version of :meth:`Tensor.scatter`.

    Examples:
        >>> import ember
        >>> x = ember.zeros(2, 3)
        >>> x.scatter_(1, ember.tensor([[0], [2]]), ember.tensor([[1.], [2.]]))
        tensor([[1., 0., 0.],
                [0., 0., 2.]])
        >>> x.scatter_(0, ember.tensor([[1, 1, 1]]), 9.)
        tensor([[1., 0., 0.],
                [9., 9., 9.]])
    """,
    "scatter_add": """Add ``src`` into a copy of ``input`` at the positions ``index`` along ``dim``.

    Like :func:`scatter`, but repeated positions accumulate:
    ``out[index[i][j]][j] += src[i][j]`` for ``dim=0``.

    Args:
        input (Tensor): the tensor to copy.
        dim (int): the dim to index along.
        index (Tensor): ``int64`` indices.
        src (Tensor): the values to add.

    Returns:
        Tensor: the updated copy of ``input``.

    Examples:
        >>> import ember
        >>> x = ember.zeros(3)
        >>> ember.scatter_add(x, 0, ember.tensor([0, 1, 0, 2]), ember.tensor([1., 2., 3., 4.]))
        tensor([4., 2., 4.])
        >>> ember.zeros(2, 2).scatter_add(1, ember.tensor([[1, 1]]), ember.ones(1, 2))
        tensor([[0., 2.],
                [0., 0.]])
    """,
    "scatter_add_": """In-place version of :meth:`Tensor.scatter_add`.

    Examples:
        >>> import ember
        >>> counts = ember.zeros(3)
        >>> labels = ember.tensor([2, 0, 2, 2])
        >>> counts.scatter_add_(0, labels, ember.ones(4))
        tensor([1., 0., 3.])
    """,
    "scatter_reduce": """Reduce ``src`` into a copy of ``input`` at ``index`` along ``dim``.

    ``reduce`` is one of ``"sum"``, ``"prod"``, ``"mean"``, ``"amax"``, ``"amin"``.
    With ``include_self=True`` the existing values of ``input`` take part in the
    reduction; with False, positions that receive a value start from that value alone.

    Args:
        input (Tensor): the tensor to copy.
        dim (int): the dim to index along.
        index (Tensor): ``int64`` indices.
        src (Tensor): the values to reduce.
        reduce (str): the reduction.
        include_self (bool): include ``input``'s values. Default: True.

    Returns:
        Tensor: the updated copy of ``input``.

    Examples:
        >>> import ember
        >>> src = ember.tensor([1., 5., 2., 4.])
        >>> index = ember.tensor([0, 0, 1, 1])
        >>> ember.scatter_reduce(ember.zeros(2), 0, index, src, "amax")
        tensor([5., 4.])
        >>> ember.ones(2).scatter_reduce(0, index, src, "mean", include_self=False)
        tensor([3., 3.])
    """,
    "scatter_reduce_": """In-place version of :meth:`Tensor.scatter_reduce`.

    Examples:
        >>> import ember
        >>> x = ember.tensor([10., 10.])
        >>> x.scatter_reduce_(0, ember.tensor([0, 0]), ember.tensor([3., 4.]), "amin")
        tensor([ 3., 10.])
    """,
    "searchsorted": """Find where values would be inserted into a sorted sequence to keep it sorted.

    For each element ``v`` of ``values`` returns the index ``i`` such that
    ``sorted_sequence[i - 1] < v <= sorted_sequence[i]`` (``right=False``) or
    ``sorted_sequence[i - 1] <= v < sorted_sequence[i]`` (``right=True``). A N-D
    ``sorted_sequence`` is searched row by row, matching the leading dims of ``values``.

    Args:
        sorted_sequence (Tensor): sorted along its last dim (or see ``sorter``).
        values (Tensor or Number): the values to look up.
        out_int32 (bool): return ``int32`` instead of ``int64``. Default: False.
        right (bool): return the rightmost suitable index. Default: False.
        side (str, optional): ``"left"`` or ``"right"``, same as ``right``.
        sorter (Tensor, optional): indices that sort ``sorted_sequence``.

    Returns:
        Tensor: insertion indices, shaped like ``values``.

    Examples:
        >>> import ember
        >>> seq = ember.tensor([1, 3, 5, 7])
        >>> ember.searchsorted(seq, ember.tensor([3, 6, 9]))
        tensor([1, 3, 4])
        >>> ember.searchsorted(seq, ember.tensor([3, 6, 9]), right=True)
        tensor([2, 3, 4])
    """,
    "select": """Return the slice of ``input`` at ``index`` along ``dim``; that dim is removed.

    ``ember.select(x, 0, i)`` is ``x[i]``; ``ember.select(x, 1, i)`` is ``x[:, i]``. The
    result is a view.

    Args:
        input (Tensor): the input tensor.
        dim (int): the dim to slice.
        index (int): the position (negative counts from the end).

    Returns:
        Tensor: a view with one dim fewer.

    Raises:
        IndexError: if ``index`` is out of range.

    Examples:
        >>> import ember
        >>> x = ember.tensor([[1, 2, 3], [4, 5, 6]])
        >>> ember.select(x, 0, 1)
        tensor([4, 5, 6])
        >>> x.select(1, -1)
        tensor([3, 6])
    """,
    "select_copy": """Like :func:`select` but returns a copy instead of a view.

    Args:
        input (Tensor): the input tensor.
        dim (int): the dim to slice.
        index (int): the position.

    Returns:
        Tensor: a new tensor with one dim fewer.

    Examples:
        >>> import ember
        >>> ember.select_copy(ember.tensor([[1, 2], [3, 4]]), 1, 0)
        tensor([1, 3])
    """,
    "select_scatter": """Embed ``src`` into a copy of ``input`` at ``index`` along ``dim``.

    The out-of-place counterpart of ``out.select(dim, index).copy_(src)``.

    Args:
        input (Tensor): the tensor to copy.
        src (Tensor): the values; its shape is ``input``'s without ``dim``.
        dim (int): the dim to index.
        index (int): the position.

    Returns:
        Tensor: the updated copy.

    Examples:
        >>> import ember
        >>> x = ember.zeros(2, 3)
        >>> ember.select_scatter(x, ember.tensor([1., 2., 3.]), 0, 1)
        tensor([[0., 0., 0.],
                [1., 2., 3.]])
        >>> x.select_scatter(ember.tensor([7., 8.]), 1, 0)
        tensor([[7., 0., 0.],
                [8., 0., 0.]])
    """,
    "slice_scatter": """Embed ``src`` into a copy of ``input`` at a slice ``start:end:step``.

    The out-of-place counterpart of ``out[..., start:end:step, ...].copy_(src)``.

    Args:
        input (Tensor): the tensor to copy.
        src (Tensor): the values, shaped like the slice.
        dim (int): the dim to slice. Default: 0.
        start (int, optional): the first index. Default: 0.
        end (int, optional): one past the last index. Default: the end.
        step (int): the stride of the slice. Default: 1.

    Returns:
        Tensor: the updated copy.

    Examples:
        >>> import ember
        >>> x = ember.zeros(4)
        >>> ember.slice_scatter(x, ember.tensor([1., 2.]), start=1, end=3)
        tensor([0., 1., 2., 0.])
        >>> x.slice_scatter(ember.ones(2), step=2)
        tensor([1., 0., 1., 0.])
    """,
    "slice_copy": """A copy of the slice ``start:end:step`` of ``dim``.

    Args:
        input (Tensor): the input tensor.
        dim (int): the dim to slice. Default: 0.
        start (int, optional): the first index. Default: 0.
        end (int, optional): one past the last index. Default: the end.
        step (int): the stride. Default: 1.

    Returns:
        Tensor: a new tensor (not a view).

    Examples:
        >>> import ember
        >>> ember.slice_copy(ember.arange(6), 0, 1, 5, 2)
        tensor([1, 3])
    """,
    # -- global settings ------------------------------------------------------------------
    "set_default_dtype": """
    Examples:
        >>> import ember
        >>> ember.set_default_dtype(ember.float64)
        >>> ember.tensor([1.5]).dtype
        ember.float64
        >>> ember.set_default_dtype(ember.float32)
        >>> ember.zeros(1).dtype
        ember.float32
    """,
    "set_printoptions": """
    Examples:
        >>> import ember
        >>> ember.set_printoptions(precision=2)
        >>> ember.tensor([1.23456, 2.])
        tensor([1.23, 2.00])
        >>> ember.set_printoptions(profile="default")
        >>> ember.tensor([1.23456, 2.])
        tensor([1.2346, 2.0000])
    """,
    # -- signs ----------------------------------------------------------------------------
    "sign": """Elementwise sign: -1, 0 or 1 (NaN stays NaN).

    Args:
        input (Tensor): the input tensor.

    Returns:
        Tensor: same shape and dtype as ``input``.

    Examples:
        >>> import ember
        >>> x = ember.tensor([-2.5, 0., 3.])
        >>> ember.sign(x)
        tensor([-1.,  0.,  1.])
        >>> ember.tensor([-4, 0, 7]).sign()
        tensor([-1,  0,  1])
    """,
    "sign_": """In-place version of :meth:`Tensor.sign`.

    Examples:
        >>> import ember
        >>> x = ember.tensor([-2., 0., 5.])
        >>> x.sign_()
        tensor([-1.,  0.,  1.])
    """,
    "sgn": """Elementwise sign; an extension of :func:`sign` to complex numbers.

    For real tensors it equals :func:`sign`.

    Args:
        input (Tensor): the input tensor.

    Returns:
        Tensor: -1, 0 or 1 per element.

    Note:
        ember has no complex dtypes, so ``sgn`` and ``sign`` always agree.

    Examples:
        >>> import ember
        >>> x = ember.tensor([-3., 0., 2.])
        >>> ember.sgn(x)
        tensor([-1.,  0.,  1.])
        >>> x.sgn()
        tensor([-1.,  0.,  1.])
    """,
    "sgn_": """In-place version of :meth:`Tensor.sgn`.

    Examples:
        >>> import ember
        >>> x = ember.tensor([-3., 2.])
        >>> x.sgn_()
        tensor([-1.,  1.])
    """,
    "signbit": """Test whether the sign bit of each element is set.

    Unlike ``input < 0`` this is True for ``-0.0`` and for NaNs with the sign bit set.

    Args:
        input (Tensor): the input tensor.

    Returns:
        Tensor: a ``bool`` tensor.

    Examples:
        >>> import ember
        >>> x = ember.tensor([-1., -0., 0., 2.])
        >>> ember.signbit(x)
        tensor([ True,  True, False, False])
        >>> ember.tensor([-1, 1]).signbit()
        tensor([ True, False])
    """,
    # -- shape and strides ----------------------------------------------------------------
    "Tensor.shape": """The size of each dim, as an ``ember.Size`` (a tuple subclass).

    The same as :meth:`size` with no argument.

    Examples:
        >>> import ember
        >>> x = ember.zeros(2, 3)
        >>> x.shape
        ember.Size([2, 3])
        >>> x.shape[1], len(x.shape)
        (3, 2)
        >>> ember.tensor(1.).shape
        ember.Size([])
    """,
    "Tensor.size": """The shape of the tensor, or the size of one dim.

    Args:
        dim (int, optional): a dim (negative counts from the end).

    Returns:
        ember.Size or int: the whole shape, or ``shape[dim]``.

    Raises:
        IndexError: if ``dim`` is out of range.

    Examples:
        >>> import ember
        >>> x = ember.zeros(2, 3)
        >>> x.size()
        ember.Size([2, 3])
        >>> x.size(-1)
        3
        >>> x.size(2)
        Traceback (most recent call last):
            ...
        IndexError: Dimension out of range (expected to be in range of [-2, 1], but got 2)
    """,
    "Tensor.stride": """The step in elements between neighbours along each dim.

    A contiguous ``(2, 3)`` tensor has strides ``(3, 1)``; a transposed view swaps them.

    Args:
        dim (int, optional): a single dim.

    Returns:
        tuple of ints or int: the strides, or the stride of ``dim``.

    Examples:
        >>> import ember
        >>> x = ember.zeros(2, 3)
        >>> x.stride()
        (3, 1)
        >>> x.t().stride()
        (1, 3)
        >>> x.stride(0)
        3
    """,
    "Tensor.storage_offset": """The index of the tensor's first element in its storage, in elements.

    Zero for a fresh tensor; non-zero for a view that starts inside another tensor.

    Examples:
        >>> import ember
        >>> x = ember.arange(6).reshape(2, 3)
        >>> x.storage_offset()
        0
        >>> x[1].storage_offset()
        3
        >>> x[:, 2].storage_offset()
        2
    """,
    "Tensor.short": """Convert to ``ember.int16``: ``self.to(ember.int16)``.

    Floating values are truncated towards zero.

    Returns:
        Tensor: ``self`` if it already is ``int16``, else a converted copy.

    Examples:
        >>> import ember
        >>> ember.tensor([1.7, -2.7]).short()
        tensor([ 1, -2], dtype=ember.int16)
    """,
    "Tensor.untyped_storage": """The storage holding this tensor's bytes, shared by all its views.

    A view returns the same storage as its base: the whole buffer, whatever part of it
    the view covers.

    Returns:
        Storage: the byte storage, with its size in bytes and its device.

    Note:
        ember's ``Storage`` is its own small class: ``nbytes`` is an attribute (PyTorch's
        ``UntypedStorage.nbytes()`` is a method) and its repr shows no elements.

    Examples:
        >>> import ember
        >>> x = ember.zeros(2, 2)
        >>> x.untyped_storage()
        Storage(nbytes=16, device='cpu')
        >>> x[1].untyped_storage() is x.untyped_storage()
        True
    """,
    # -- trigonometric and friends --------------------------------------------------------
    "sin": """Elementwise sine of ``input`` (in radians).

    Integer inputs are promoted to the default floating dtype.

    Args:
        input (Tensor): the input tensor.

    Returns:
        Tensor: the sine.

    Examples:
        >>> import ember
        >>> x = ember.tensor([0., 0.5235987755982988, 1.5707963267948966])
        >>> ember.sin(x)
        tensor([0.0000, 0.5000, 1.0000])
        >>> ember.tensor([0, 1]).sin()
        tensor([0.0000, 0.8415])
    """,
    "sin_": """In-place version of :func:`sin`.

    Examples:
        >>> import ember
        >>> x = ember.tensor([0., 1.5707963267948966])
        >>> ember.sin_(x)
        tensor([0., 1.])
        >>> x.sin_() is x
        True
    """,
    "sinh": """Elementwise hyperbolic sine.

    Args:
        input (Tensor): the input tensor.

    Returns:
        Tensor: ``(exp(x) - exp(-x)) / 2``.

    Examples:
        >>> import ember
        >>> x = ember.tensor([0., 1., -1.])
        >>> ember.sinh(x)
        tensor([ 0.0000,  1.1752, -1.1752])
        >>> x.sinh()
        tensor([ 0.0000,  1.1752, -1.1752])
    """,
    "sinh_": """In-place version of :func:`sinh`.

    Examples:
        >>> import ember
        >>> x = ember.tensor([0., 1.])
        >>> ember.sinh_(x)
        tensor([0.0000, 1.1752])
        >>> x.sinh_() is x
        True
    """,
    "sinc": """Normalized sinc function, ``sin(pi * x) / (pi * x)``, elementwise; 1 at 0.

    Args:
        input (Tensor): the input tensor.

    Returns:
        Tensor: the sinc values.

    Examples:
        >>> import ember
        >>> x = ember.tensor([0., 0.5, 1.5])
        >>> ember.sinc(x)
        tensor([ 1.0000,  0.6366, -0.2122])
        >>> x.sinc()
        tensor([ 1.0000,  0.6366, -0.2122])
    """,
    "sinc_": """In-place version of :func:`sinc`.

    Examples:
        >>> import ember
        >>> x = ember.tensor([0., 0.5])
        >>> ember.sinc_(x)
        tensor([1.0000, 0.6366])
        >>> x.sinc_() is x
        True
    """,
    "tan": """Elementwise tangent of ``input`` (in radians).

    Args:
        input (Tensor): the input tensor.

    Returns:
        Tensor: the tangent.

    Examples:
        >>> import ember
        >>> x = ember.tensor([0., 0.7853981633974483])
        >>> ember.tan(x)
        tensor([0., 1.])
        >>> x.tan()
        tensor([0., 1.])
    """,
    "tan_": """In-place version of :func:`tan`.

    Examples:
        >>> import ember
        >>> x = ember.tensor([0., 0.7853981633974483])
        >>> ember.tan_(x)
        tensor([0., 1.])
        >>> x.tan_() is x
        True
    """,
    "tanh": """Elementwise hyperbolic tangent; values in ``(-1, 1)``.

    Args:
        input (Tensor): the input tensor.

    Returns:
        Tensor: the hyperbolic tangent.

    Examples:
        >>> import ember
        >>> x = ember.tensor([-1., 0., 1.])
        >>> ember.tanh(x)
        tensor([-0.7616,  0.0000,  0.7616])
        >>> x.tanh()
        tensor([-0.7616,  0.0000,  0.7616])
    """,
    "tanh_": """In-place version of :func:`tanh`.

    Examples:
        >>> import ember
        >>> x = ember.tensor([0., 1.])
        >>> ember.tanh_(x)
        tensor([0.0000, 0.7616])
        >>> x.tanh_() is x
        True
    """,
    # -- linear algebra -------------------------------------------------------------------
    "slogdet": """Sign and natural log of the absolute value of a determinant.

    More accurate than ``det(A).log()`` when the determinant is very large or small.
    For a singular matrix the sign is 0 and the log is ``-inf``.

    Args:
        input (Tensor): a ``(*, n, n)`` tensor.

    Returns:
        tuple: a named tuple ``(sign, logabsdet)``.

    Examples:
        >>> import ember
        >>> a = ember.tensor([[2., 0.], [0., -3.]])
        >>> sign, logabsdet = ember.slogdet(a)
        >>> sign, logabsdet
        (tensor(-1.), tensor(1.7918))
        >>> a.slogdet().sign
        tensor(-1.)
    """,
    "svd": """Singular value decomposition: ``input = U @ diag(S) @ V.mT``.

    Singular values come in descending order. Note that ``V`` is returned, not its
    transpose (:func:`ember.linalg.svd` returns ``Vh`` instead).

    Args:
        input (Tensor): a ``(*, m, n)`` tensor.
        some (bool): reduced (``U`` is ``(m, k)``, ``k = min(m, n)``) if True, full
            if False. Default: True.
        compute_uv (bool): compute ``U`` and ``V``; if False they are zero-filled.
            Default: True.

    Returns:
        tuple: a named tuple ``(U, S, V)``.

    Note:
        The signs of singular vectors are not unique and may differ from PyTorch's.

    Examples:
        >>> import ember
        >>> a = ember.tensor([[3., 0.], [0., -2.], [0., 0.]])
        >>> u, s, v = ember.svd(a)
        >>> s
        tensor([3., 2.])
        >>> bool(ember.allclose(u @ ember.diag(s) @ v.mT, a, atol=1e-6))
        True
        >>> a.svd().U.shape
        ember.Size([3, 2])
    """,
    # -- sort / split ---------------------------------------------------------------------
    "Tensor.sort": """Sort along a dim; returns the sorted values and their original indices.

    NaN sorts after every other value (before them with ``descending=True``).

    Args:
        dim (int): the dim to sort. Default: -1.
        descending (bool): largest first. Default: False.
        stable (bool): keep the order of equal elements. Default: False.

    Returns:
        tuple: a named tuple ``(values, indices)``.

    Examples:
        >>> import ember
        >>> x = ember.tensor([[3., 1., 2.], [0., 5., 4.]])
        >>> values, indices = x.sort()
        >>> values
        tensor([[1., 2., 3.],
                [0., 4., 5.]])
        >>> indices
        tensor([[1, 2, 0],
                [0, 2, 1]])
        >>> x.sort(dim=0, descending=True).values
        tensor([[3., 5., 4.],
                [0., 1., 2.]])
    """,
    "Tensor.split": """Split into chunks of ``split_size`` (or of the given sizes) along ``dim``.

    The last chunk is smaller if ``split_size`` does not divide the dim. The chunks are
    views.

    Args:
        split_size (int or list of ints): the size of each chunk, or all the sizes.
        dim (int): the dim to split. Default: 0.

    Returns:
        tuple of Tensors: the chunks.

    Examples:
        >>> import ember
        >>> x = ember.arange(5)
        >>> x.split(2)
        (tensor([0, 1]), tensor([2, 3]), tensor([4]))
        >>> x.split([1, 4])
        (tensor([0]), tensor([1, 2, 3, 4]))
    """,
    "split_copy": """Like :func:`split` but returns copies instead of views.

    Args:
        input (Tensor): the tensor to split.
        split_size (int or list of ints): the chunk size, or the sizes.
        dim (int): the dim to split. Default: 0.

    Returns:
        tuple of Tensors: the chunks.

    Examples:
        >>> import ember
        >>> ember.split_copy(ember.arange(4), 3)
        (tensor([0, 1, 2]), tensor([3]))
    """,
    "split_with_sizes": """Split ``input`` along ``dim`` into chunks of the given sizes (views).

    The sizes must add up to ``input.size(dim)``.

    Args:
        input (Tensor): the tensor to split.
        split_sizes (list of ints): the size of each chunk.
        dim (int): the dim to split. Default: 0.

    Returns:
        tuple of Tensors: the chunks.

    Raises:
        RuntimeError: if the sizes do not add up to the dim's size.

    Examples:
        >>> import ember
        >>> x = ember.arange(6)
        >>> ember.split_with_sizes(x, [1, 2, 3])
        (tensor([0]), tensor([1, 2]), tensor([3, 4, 5]))
        >>> x.reshape(2, 3).split_with_sizes([2, 1], dim=1)
        (tensor([[0, 1],
                [3, 4]]), tensor([[2],
                [5]]))
    """,
    "split_with_sizes_copy": """Like :func:`split_with_sizes` but returns copies instead of views.

    Args:
        input (Tensor): the tensor to split.
        split_sizes (list of ints): the size of each chunk.
        dim (int): the dim to split. Default: 0.

    Returns:
        tuple of Tensors: the chunks.

    Examples:
        >>> import ember
        >>> ember.split_with_sizes_copy(ember.arange(3), [2, 1])
        (tensor([0, 1]), tensor([2]))
    """,
    # -- powers ---------------------------------------------------------------------------
    "sqrt": """Elementwise square root.

    Negative elements give NaN. Integer inputs are promoted to the default floating
    dtype.

    Args:
        input (Tensor): the input tensor.

    Returns:
        Tensor: the square root.

    Examples:
        >>> import ember
        >>> x = ember.tensor([4., 2., -1.])
        >>> ember.sqrt(x)
        tensor([2.0000, 1.4142,    nan])
        >>> ember.tensor([9, 16]).sqrt()
        tensor([3., 4.])
    """,
    "sqrt_": """In-place version of :func:`sqrt`.

    Examples:
        >>> import ember
        >>> x = ember.tensor([4., 9.])
        >>> ember.sqrt_(x)
        tensor([2., 3.])
        >>> x.sqrt_() is x
        True
    """,
    "square_": """In-place version of :func:`square`.

    Examples:
        >>> import ember
        >>> x = ember.tensor([2., -3.])
        >>> ember.square_(x)
        tensor([4., 9.])
        >>> x.square_() is x
        True
    """,
    # -- squeeze --------------------------------------------------------------------------
    "squeeze": """Remove dims of size 1; a view.

    With no ``dim`` every size-1 dim goes. With ``dim`` (an int or a tuple) only those
    dims are removed, and only if they have size 1; the others are left unchanged, with
    no error, as in PyTorch.

    Args:
        input (Tensor): the input tensor.
        dim (int or tuple of ints, optional): the dims to squeeze.

    Returns:
        Tensor: a view of ``input``.

    Raises:
        IndexError: if ``dim`` is out of range.

    Examples:
        >>> import ember
        >>> x = ember.zeros(2, 1, 3, 1)
        >>> ember.squeeze(x).shape
        ember.Size([2, 3])
        >>> x.squeeze(1).shape
        ember.Size([2, 3, 1])
        >>> x.squeeze(0).shape
        ember.Size([2, 1, 3, 1])
        >>> x.squeeze((1, 3)).shape
        ember.Size([2, 3])
    """,
    "squeeze_": """In-place version of :meth:`Tensor.squeeze`: changes ``self``'s shape.

    Examples:
        >>> import ember
        >>> x = ember.zeros(1, 2, 1)
        >>> x.squeeze_(0).shape
        ember.Size([2, 1])
        >>> x.shape
        ember.Size([2, 1])
    """,
    "squeeze_copy": """Like :func:`squeeze` but returns a copy instead of a view.

    Args:
        input (Tensor): the input tensor.
        dim (int or tuple of ints, optional): the dims to squeeze.

    Returns:
        Tensor: a new tensor.

    Examples:
        >>> import ember
        >>> ember.squeeze_copy(ember.zeros(1, 2, 1)).shape
        ember.Size([2])
    """,
    "stack": """Join tensors of the same shape along a new dim.

    All tensors need the same shape; the result has one more dim than they do, of size
    ``len(tensors)``, at position ``dim``. See :func:`cat` to join along an existing dim.
    Dtypes are promoted to a common one.

    Args:
        tensors (sequence of Tensors): the tensors to join, at least one.
        dim (int): where to insert the new dim, ``0 <= dim <= ndim``
            (negative counts from the end). Default: 0.

    Returns:
        Tensor: the stacked tensor.

    Raises:
        RuntimeError: if the shapes differ or the sequence is empty.

    Examples:
        >>> import ember
        >>> a = ember.tensor([1, 2])
        >>> b = ember.tensor([3, 4])
        >>> ember.stack([a, b])
        tensor([[1, 2],
                [3, 4]])
        >>> ember.stack((a, b), dim=1)
        tensor([[1, 3],
                [2, 4]])
        >>> ember.stack([a, ember.tensor([1, 2, 3])])  # doctest: +ELLIPSIS
        Traceback (most recent call last):
            ...
        RuntimeError: stack expects each tensor to be equal size, but got [2] at entry 0 and [3] ...
    """,
    "std_mean": """Standard deviation and mean, in one pass.

    Args:
        input (Tensor): a floating-point tensor.
        dim (int or tuple of ints, optional): the dims to reduce; all if None.
        unbiased (bool, optional): the old spelling of ``correction`` (True means 1).
        keepdim (bool): keep the reduced dims with size 1. Default: False.
        correction (int, optional): subtract this from the count in the divisor
            (Bessel's correction). Default: 1.

    Returns:
        tuple: ``(std, mean)``.

    Examples:
        >>> import ember
        >>> x = ember.tensor([[1., 3.], [5., 7.]])
        >>> s, m = ember.std_mean(x, correction=0)
        >>> s, m
        (tensor(2.2361), tensor(4.))
        >>> ember.std_mean(x, dim=1)
        (tensor([1.4142, 1.4142]), tensor([2., 6.]))
    """,
    # -- subtraction and sum --------------------------------------------------------------
    "sub": """Elementwise ``input - alpha * other``.

    The operands broadcast and promote to a common dtype; ``other`` may be a number.
    Also available as the ``-`` operator; ``subtract`` is an alias.

    Args:
        input (Tensor): the minuend.
        other (Tensor or Number): the subtrahend.
        alpha (Number): the multiplier for ``other`` (keyword-only). Default: 1.

    Returns:
        Tensor: the difference.

    Raises:
        NotImplementedError: for two ``bool`` tensors (use ``^`` or :func:`logical_xor`).

    Note:
        PyTorch raises ``RuntimeError`` for ``bool - bool``; ember raises
        ``NotImplementedError``.

    Examples:
        >>> import ember
        >>> a = ember.tensor([5., 7.])
        >>> ember.sub(a, 1)
        tensor([4., 6.])
        >>> a.sub(ember.tensor([1., 2.]), alpha=2)
        tensor([3., 3.])
        >>> a - ember.tensor([[1.], [2.]])
        tensor([[4., 6.],
                [3., 5.]])
    """,
    "sub_": """In-place version of :meth:`Tensor.sub`.

    ``subtract_`` is an alias.

    Examples:
        >>> import ember
        >>> x = ember.tensor([5., 7.])
        >>> x.sub_(ember.tensor([1., 1.]), alpha=2)
        tensor([3., 5.])
        >>> x.subtract_(3)
        tensor([0., 2.])
    """,
    "subtract": """Alias of :func:`sub`: elementwise ``input - alpha * other``.

    Args:
        input (Tensor): the minuend.
        other (Tensor or Number): the subtrahend.
        alpha (Number): the multiplier for ``other``. Default: 1.

    Returns:
        Tensor: the difference.

    Examples:
        >>> import ember
        >>> a = ember.tensor([5, 7])
        >>> ember.subtract(a, 2)
        tensor([3, 5])
        >>> a.subtract(ember.tensor([1, 1]), alpha=3)
        tensor([2, 4])
    """,
    "sum": """Sum of all elements, or along the given dims.

    Integer and ``bool`` inputs are summed as ``int64`` unless ``dtype`` is given, as in
    PyTorch.

    Args:
        input (Tensor): the input tensor.
        dim (int or tuple of ints, optional): the dims to reduce; all dims if None.
        keepdim (bool): keep the reduced dims with size 1. Default: False.
        dtype (ember.dtype, optional): the accumulation and result dtype.

    Returns:
        Tensor: the sum; 0-dim when every dim is reduced.

    Raises:
        IndexError: if a dim is out of range.

    Examples:
        >>> import ember
        >>> x = ember.tensor([[1., 2.], [3., 4.]])
        >>> ember.sum(x)
        tensor(10.)
        >>> x.sum(dim=0)
        tensor([4., 6.])
        >>> x.sum((0, 1), keepdim=True)
        tensor([[10.]])
        >>> ember.tensor([True, True, False]).sum()
        tensor(2)
    """,
    "Tensor.sum_to_size": """Sum ``self`` down to ``size``, the inverse of broadcasting.

    ``size`` must be broadcastable to ``self.shape``; dims that broadcasting would have
    expanded are summed. Autograd uses this to reduce gradients of broadcast operands.

    Args:
        *size (int or sequence of ints): the target shape.

    Returns:
        Tensor: a tensor of shape ``size``.

    Examples:
        >>> import ember
        >>> x = ember.ones(2, 3)
        >>> x.sum_to_size(1, 3)
        tensor([[2., 2., 2.]])
        >>> x.sum_to_size((2, 1))
        tensor([[3.],
                [3.]])
    """,
    # -- transposes -----------------------------------------------------------------------
    "swapaxes": """Alias of :func:`transpose`: swap dims ``axis0`` and ``axis1`` (a view).

    Args:
        input (Tensor): the input tensor.
        axis0 (int): the first dim.
        axis1 (int): the second dim.

    Returns:
        Tensor: a view with the two dims exchanged.

    Examples:
        >>> import ember
        >>> x = ember.zeros(2, 3, 4)
        >>> ember.swapaxes(x, 0, 2).shape
        ember.Size([4, 3, 2])
        >>> x.swapaxes(0, 1).shape
        ember.Size([3, 2, 4])
    """,
    "swapdims": """Alias of :func:`transpose`: swap dims ``dim0`` and ``dim1`` (a view).

    Args:
        input (Tensor): the input tensor.
        dim0 (int): the first dim.
        dim1 (int): the second dim.

    Returns:
        Tensor: a view with the two dims exchanged.

    Examples:
        >>> import ember
        >>> x = ember.tensor([[1, 2, 3]])
        >>> ember.swapdims(x, 0, 1)
        tensor([[1],
                [2],
                [3]])
        >>> x.swapdims(1, 0).shape
        ember.Size([3, 1])
    """,
    "transpose": """Return a view of ``input`` with dims ``dim0`` and ``dim1`` swapped.

    The result shares storage with ``input`` and is usually not contiguous; call
    :meth:`Tensor.contiguous` before :meth:`Tensor.view` if needed. ``swapaxes`` and
    ``swapdims`` are aliases.

    Args:
        input (Tensor): the input tensor.
        dim0 (int): the first dim (negative counts from the end).
        dim1 (int): the second dim.

    Returns:
        Tensor: a view with the two dims exchanged.

    Raises:
        IndexError: if a dim is out of range.

    Examples:
        >>> import ember
        >>> x = ember.tensor([[1, 2, 3], [4, 5, 6]])
        >>> ember.transpose(x, 0, 1)
        tensor([[1, 4],
                [2, 5],
                [3, 6]])
        >>> x.transpose(-1, -2).is_contiguous()
        False
        >>> ember.zeros(2, 3, 4).transpose(0, 2).shape
        ember.Size([4, 3, 2])
    """,
    "transpose_": """In-place version of :meth:`Tensor.transpose`: swaps ``self``'s dims.

    ``swapaxes_`` and ``swapdims_`` are aliases.

    Examples:
        >>> import ember
        >>> x = ember.tensor([[1, 2, 3]])
        >>> x.transpose_(0, 1)
        tensor([[1],
                [2],
                [3]])
        >>> x.shape
        ember.Size([3, 1])
        >>> x.swapaxes_(0, 1).shape
        ember.Size([1, 3])
        >>> x.swapdims_(1, 0).shape
        ember.Size([3, 1])
    """,
    "transpose_copy": """Like :func:`transpose` but returns a contiguous copy instead of a view.

    Args:
        input (Tensor): the input tensor.
        dim0 (int): the first dim.
        dim1 (int): the second dim.

    Returns:
        Tensor: a new tensor.

    Examples:
        >>> import ember
        >>> y = ember.transpose_copy(ember.tensor([[1, 2], [3, 4]]), 0, 1)
        >>> y, y.is_contiguous()
        (tensor([[1, 3],
                [2, 4]]), True)
    """,
    "t": """Transpose a tensor of at most 2 dims: swap dims 0 and 1 (a view).

    0-D and 1-D tensors are returned as they are. For more dims use
    :func:`transpose` or :attr:`Tensor.mT`.

    Args:
        input (Tensor): a tensor with at most 2 dims.

    Returns:
        Tensor: the transposed view.

    Raises:
        RuntimeError: if ``input`` has more than 2 dims.

    Examples:
        >>> import ember
        >>> x = ember.tensor([[1, 2, 3], [4, 5, 6]])
        >>> ember.t(x)
        tensor([[1, 4],
                [2, 5],
                [3, 6]])
        >>> x.t().shape
        ember.Size([3, 2])
        >>> ember.tensor([1, 2]).t()
        tensor([1, 2])
    """,
    "t_": """In-place version of :meth:`Tensor.t`: transposes ``self`` (at most 2 dims).

    Examples:
        >>> import ember
        >>> x = ember.zeros(2, 3)
        >>> x.t_().shape
        ember.Size([3, 2])
    """,
    "t_copy": """Like :func:`t` but returns a copy instead of a view.

    Args:
        input (Tensor): a tensor with at most 2 dims.

    Returns:
        Tensor: a new tensor.

    Examples:
        >>> import ember
        >>> ember.t_copy(ember.tensor([[1, 2]]))
        tensor([[1],
                [2]])
    """,
    "Tensor.T": """The tensor with all its dims reversed (a view).

    For a 2-D tensor this is the transpose. PyTorch deprecates ``.T`` on tensors with
    other than 2 dims; use :attr:`mT` for batches of matrices or :meth:`permute`.

    Examples:
        >>> import ember
        >>> x = ember.tensor([[1, 2, 3], [4, 5, 6]])
        >>> x.T
        tensor([[1, 4],
                [2, 5],
                [3, 6]])
        >>> ember.zeros(2, 3, 4).T.shape
        ember.Size([4, 3, 2])
    """,
    "take": """Elements of ``input`` at flat (row-major) indices ``index``.

    ``input`` is treated as 1-D; the result has ``index``'s shape. Negative indices count
    from the end.

    Args:
        input (Tensor): the source tensor.
        index (Tensor): ``int64`` indices.

    Returns:
        Tensor: a tensor shaped like ``index``.

    Raises:
        IndexError: if an index is out of range.

    Examples:
        >>> import ember
        >>> x = ember.tensor([[4, 3, 5], [6, 7, 8]])
        >>> ember.take(x, ember.tensor([0, 2, 5]))
        tensor([4, 5, 8])
        >>> x.take(ember.tensor([[-1, 0]]))
        tensor([[8, 4]])
    """,
    "take_along_dim": """Pick values of ``input`` at ``indices`` along ``dim``, with broadcasting.

    Like :func:`gather`, but ``indices`` and ``input`` broadcast against each other; with
    ``dim=None`` both are flattened. Pairs well with :func:`argsort` and :func:`argmax`
    with ``keepdim=True``.

    Args:
        input (Tensor): the source tensor.
        indices (Tensor): ``int64`` indices.
        dim (int, optional): the dim to index along; the flattened input if None.

    Returns:
        Tensor: the selected values.

    Examples:
        >>> import ember
        >>> x = ember.tensor([[10, 30, 20], [60, 40, 50]])
        >>> idx = x.argsort(dim=1)
        >>> ember.take_along_dim(x, idx, dim=1)
        tensor([[10, 20, 30],
                [40, 50, 60]])
        >>> x.take_along_dim(x.argmax(dim=1, keepdim=True), dim=1)
        tensor([[30],
                [60]])
    """,
    "Tensor.tensor_split": """Split into near-equal parts or at given indices (views).

    With an int ``n`` the first ``size % n`` parts get one extra element; with a list,
    the tensor is cut before each index. The parts are views.

    Args:
        indices_or_sections (int or list of ints): the number of parts, or cut points.
        dim (int): the dim to split. Default: 0.

    Returns:
        tuple of Tensors: the parts.

    Examples:
        >>> import ember
        >>> x = ember.arange(7)
        >>> x.tensor_split(3)
        (tensor([0, 1, 2]), tensor([3, 4]), tensor([5, 6]))
        >>> x.tensor_split([1, 5])
        (tensor([0]), tensor([1, 2, 3, 4]), tensor([5, 6]))
    """,
    "tile": """Repeat ``input`` ``dims[i]`` times along each dim.

    Like :meth:`Tensor.repeat`, but if ``dims`` is shorter than ``input.dim()`` it is
    padded with leading ones (``repeat`` would raise). The data is copied.

    Args:
        input (Tensor): the tensor to tile.
        dims (sequence of ints): repetitions per dim.

    Returns:
        Tensor: the tiled tensor.

    Examples:
        >>> import ember
        >>> x = ember.tensor([[1, 2], [3, 4]])
        >>> ember.tile(x, (2,))
        tensor([[1, 2, 1, 2],
                [3, 4, 3, 4]])
        >>> x.tile(2, 1).shape
        ember.Size([4, 2])
    """,
    "Tensor.to": """Convert to another dtype and/or device; returns ``self`` when nothing changes.

    Forms:

    - ``to(dtype)``: cast.
    - ``to(device, dtype=None)``: move (``"cpu"``, or a device a plugin provides), and
      optionally cast.
    - ``to(other)``: take ``other``'s dtype and device.

    A converted tensor is a copy; the original is returned unchanged (not copied) when it
    already has the requested dtype and device, unless ``copy=True``. Autograd tracks the
    conversion.

    Args:
        dtype (ember.dtype, optional): the target dtype.
        device (ember.device or str, optional): the target device.
        other (Tensor, optional): a tensor whose dtype and device to take.
        non_blocking (bool): allow an asynchronous copy. Default: False.
        copy (bool): copy even if nothing changes. Default: False.

    Returns:
        Tensor: the converted tensor, or ``self``.

    Raises:
        RuntimeError: for a device no installed plugin provides.

    Examples:
        >>> import ember
        >>> x = ember.tensor([1.5, 2.5])
        >>> x.to(ember.int64)
        tensor([1, 2])
        >>> x.to("cpu") is x
        True
        >>> x.to("cpu", copy=True) is x
        False
        >>> x.to(ember.zeros(1, dtype=ember.float64)).dtype
        ember.float64
    """,
    "Tensor.to_dense": """
    Examples:
        >>> import ember
        >>> x = ember.tensor([1., 2.])
        >>> x.to_dense() is x
        True
        >>> x.to_dense(ember.float64)
        tensor([1., 2.], dtype=ember.float64)
        >>> x.to_sparse().to_dense()
        tensor([1., 2.])
    """,
    "Tensor.to_sparse": """Convert to a sparse COO tensor holding only the non-zero elements.

    With ``sparse_dim`` only the first ``sparse_dim`` dims are sparse; the rest are stored
    densely per non-zero slice. The result is coalesced, and the conversion is
    differentiable. ``to_sparse_coo`` is an alias.

    Args:
        sparse_dim (int, optional): the number of sparse dims. Default: all.

    Returns:
        SparseTensor: the sparse tensor.

    Note:
        ember supports the COO layout only; ``layout`` and ``blocksize`` for CSR/BSR
        layouts are not available.

    Examples:
        >>> import ember
        >>> x = ember.tensor([[0., 2.], [3., 0.]])
        >>> s = x.to_sparse()
        >>> s.indices()
        tensor([[0, 1],
                [1, 0]])
        >>> s.values()
        tensor([2., 3.])
        >>> x.to_sparse_coo().to_dense()
        tensor([[0., 2.],
                [3., 0.]])
    """,
    "Tensor.tolist": """Return the tensor's data as (nested) Python lists of Python numbers.

    A 0-dim tensor gives a single number, as :meth:`item`. Floats become ``float``,
    integers ``int``, ``bool`` tensors ``bool``. Not differentiable.

    Returns:
        list or Number: the data.

    Examples:
        >>> import ember
        >>> ember.tensor([[1, 2], [3, 4]]).tolist()
        [[1, 2], [3, 4]]
        >>> ember.tensor([0.5, 1.0]).tolist()
        [0.5, 1.0]
        >>> ember.tensor(7).tolist()
        7
    """,
    "topk": """The ``k`` largest (or smallest) elements along a dim, with their indices.

    Args:
        input (Tensor): the input tensor.
        k (int): how many elements to return.
        dim (int): the dim to search. Default: -1.
        largest (bool): return the largest if True, the smallest if False. Default: True.
        sorted (bool): return them in sorted order. Default: True.

    Returns:
        tuple: a named tuple ``(values, indices)``.

    Raises:
        RuntimeError: if ``k`` is larger than the dim's size.

    Examples:
        >>> import ember
        >>> x = ember.tensor([1., 4., 2., 8., 5.])
        >>> values, indices = ember.topk(x, 2)
        >>> values, indices
        (tensor([8., 5.]), tensor([3, 4]))
        >>> x.topk(2, largest=False).values
        tensor([1., 2.])
    """,
    "triangular_solve": """Solve ``A X = b`` for a triangular matrix ``A`` (batches allowed).

    Args:
        input (Tensor): the right-hand side ``b``, ``(*, m, k)``.
        A (Tensor): the triangular matrix, ``(*, m, m)``.
        upper (bool): ``A`` is upper (True) or lower (False) triangular. Default: True.
        transpose (bool): solve ``A^T X = b`` instead. Default: False.
        unitriangular (bool): assume ``A``'s diagonal is all ones. Default: False.

    Returns:
        tuple: a named tuple ``(solution, cloned_coefficient)``; the second is a copy of
        ``A``.

    Note:
        PyTorch deprecates it in favour of :func:`ember.linalg.solve_triangular`, which
        ember has too.

    Examples:
        >>> import ember
        >>> A = ember.tensor([[2., 1.], [0., 4.]])
        >>> b = ember.tensor([[4.], [8.]])
        >>> ember.triangular_solve(b, A).solution
        tensor([[1.],
                [2.]])
        >>> b.triangular_solve(A).solution.shape
        ember.Size([2, 1])
    """,
    "tril": """The lower triangle of a matrix (or batch); other elements become zero.

    ``diagonal=0`` keeps the main diagonal, a positive value keeps that many diagonals
    above it, a negative value removes diagonals below it.

    Args:
        input (Tensor): a ``(*, m, n)`` tensor.
        diagonal (int): which diagonal to keep up to. Default: 0.

    Returns:
        Tensor: same shape as ``input``.

    Examples:
        >>> import ember
        >>> x = ember.ones(3, 3)
        >>> ember.tril(x)
        tensor([[1., 0., 0.],
                [1., 1., 0.],
                [1., 1., 1.]])
        >>> x.tril(-1)
        tensor([[0., 0., 0.],
                [1., 0., 0.],
                [1., 1., 0.]])
    """,
    "tril_": """In-place version of :meth:`Tensor.tril`.

    Examples:
        >>> import ember
        >>> x = ember.ones(2, 2)
        >>> x.tril_()
        tensor([[1., 0.],
                [1., 1.]])
    """,
    "triu": """The upper triangle of a matrix (or batch); other elements become zero.

    ``diagonal=0`` keeps the main diagonal, a positive value removes diagonals above it,
    a negative value keeps that many diagonals below it.

    Args:
        input (Tensor): a ``(*, m, n)`` tensor.
        diagonal (int): which diagonal to keep from. Default: 0.

    Returns:
        Tensor: same shape as ``input``.

    Examples:
        >>> import ember
        >>> x = ember.ones(3, 3)
        >>> ember.triu(x)
        tensor([[1., 1., 1.],
                [0., 1., 1.],
                [0., 0., 1.]])
        >>> x.triu(1)
        tensor([[0., 1., 1.],
                [0., 0., 1.],
                [0., 0., 0.]])
    """,
    "triu_": """In-place version of :meth:`Tensor.triu`.

    Examples:
        >>> import ember
        >>> x = ember.ones(2, 2)
        >>> x.triu_()
        tensor([[1., 1.],
                [0., 1.]])
    """,
    "tril_indices": """Row and column indices of the lower triangle of a ``row x col`` matrix.

    Args:
        row (int): the number of rows.
        col (int): the number of columns.
        offset (int): the diagonal to include up to, as in :func:`tril`. Default: 0.
        dtype (ember.dtype, optional): the index dtype. Default: ``int64``.
        device (ember.device, optional): where to allocate.

    Returns:
        Tensor: a ``(2, N)`` tensor: the row indices, then the column indices.

    Examples:
        >>> import ember
        >>> ember.tril_indices(3, 3)
        tensor([[0, 1, 1, 2, 2, 2],
                [0, 0, 1, 0, 1, 2]])
        >>> ember.tril_indices(3, 3, offset=-1)
        tensor([[1, 2, 2],
                [0, 0, 1]])
    """,
    "triu_indices": """Row and column indices of the upper triangle of a ``row x col`` matrix.

    Args:
        row (int): the number of rows.
        col (int): the number of columns.
        offset (int): the diagonal to include from, as in :func:`triu`. Default: 0.
        dtype (ember.dtype, optional): the index dtype. Default: ``int64``.
        device (ember.device, optional): where to allocate.

    Returns:
        Tensor: a ``(2, N)`` tensor: the row indices, then the column indices.

    Examples:
        >>> import ember
        >>> ember.triu_indices(3, 3, offset=1)
        tensor([[0, 0, 1],
                [1, 2, 2]])
    """,
    "true_divide": """Alias of :func:`div` with true (floating-point) division.

    Integer operands give a floating result. The operands broadcast.

    Args:
        input (Tensor): the dividend.
        other (Tensor or Number): the divisor.

    Returns:
        Tensor: ``input / other``.

    Examples:
        >>> import ember
        >>> a = ember.tensor([1, 2, 3])
        >>> ember.true_divide(a, 2)
        tensor([0.5000, 1.0000, 1.5000])
        >>> a.true_divide(ember.tensor([2, 2, 2]))
        tensor([0.5000, 1.0000, 1.5000])
    """,
    "trunc": """Round each element toward zero (drop the fractional part).

    Integer tensors are returned unchanged. ``fix`` is an alias.

    Args:
        input (Tensor): the input tensor.

    Returns:
        Tensor: same shape and dtype as ``input``.

    Examples:
        >>> import ember
        >>> x = ember.tensor([-1.7, -0.2, 0.5, 2.9])
        >>> ember.trunc(x)
        tensor([-1., -0.,  0.,  2.])
        >>> x.trunc()
        tensor([-1., -0.,  0.,  2.])
    """,
    "trunc_": """In-place version of :func:`trunc`.

    Examples:
        >>> import ember
        >>> x = ember.tensor([-1.7, 2.9])
        >>> ember.trunc_(x)
        tensor([-1.,  2.])
        >>> x.trunc_() is x
        True
    """,
    "Tensor.type": """Without arguments, the legacy type name; with a dtype, convert to it.

    ``x.type()`` returns a string such as ``"ember.FloatTensor"``; ``x.type(dtype)``
    (a dtype or such a string) is ``x.to(dtype)``.

    Args:
        dtype (ember.dtype or str, optional): the target type.
        non_blocking (bool): allow an asynchronous copy. Default: False.

    Returns:
        str or Tensor: the type name, or the converted tensor.

    Note:
        The names start with ``ember.`` where PyTorch's start with ``torch.``.

    Examples:
        >>> import ember
        >>> x = ember.tensor([1.5, 2.5])
        >>> x.type()
        'ember.FloatTensor'
        >>> x.type(ember.int32)
        tensor([1, 2], dtype=ember.int32)
        >>> x.type("ember.DoubleTensor").dtype
        ember.float64
    """,
    "Tensor.type_as": """Convert to ``other``'s dtype: ``self.to(other.dtype)``.

    Args:
        other (Tensor): the tensor whose dtype to take.

    Returns:
        Tensor: ``self`` if the dtype already matches, else a converted copy.

    Examples:
        >>> import ember
        >>> ember.tensor([1.7, 2.2]).type_as(ember.tensor([0]))
        tensor([1, 2])
    """,
    # -- unbind, unflatten, unfold --------------------------------------------------------
    "unbind": """Remove a dim and return the slices along it, as a tuple of views.

    Args:
        input (Tensor): the input tensor.
        dim (int): the dim to remove. Default: 0.

    Returns:
        tuple of Tensors: ``input.size(dim)`` tensors with one dim fewer.

    Examples:
        >>> import ember
        >>> x = ember.tensor([[1, 2, 3], [4, 5, 6]])
        >>> ember.unbind(x)
        (tensor([1, 2, 3]), tensor([4, 5, 6]))
        >>> x.unbind(dim=1)
        (tensor([1, 4]), tensor([2, 5]), tensor([3, 6]))
    """,
    "unbind_copy": """Like :func:`unbind` but returns copies instead of views.

    Args:
        input (Tensor): the input tensor.
        dim (int): the dim to remove. Default: 0.

    Returns:
        tuple of Tensors: the slices.

    Note:
        PyTorch has no ``Tensor.unbind_copy`` method, only the function.

    Examples:
        >>> import ember
        >>> x = ember.tensor([[1, 2], [3, 4]])
        >>> ember.unbind_copy(x, 1)
        (tensor([1, 3]), tensor([2, 4]))
        >>> x.unbind_copy()
        (tensor([1, 2]), tensor([3, 4]))
    """,
    "unflatten": """Expand one dim of ``input`` into several dims of the given sizes (a view).

    The inverse of :func:`flatten` for that dim; one size may be ``-1``.

    Args:
        input (Tensor): the input tensor.
        dim (int): the dim to expand.
        sizes (sequence of ints): the new sizes; their product is ``input.size(dim)``.

    Returns:
        Tensor: the reshaped view.

    Examples:
        >>> import ember
        >>> x = ember.zeros(2, 12)
        >>> ember.unflatten(x, 1, (3, 4)).shape
        ember.Size([2, 3, 4])
        >>> x.unflatten(1, (2, -1)).shape
        ember.Size([2, 2, 6])
    """,
    "unfold": """Sliding windows of length ``size`` along ``dimension``, a new last dim (a view).

    Windows start every ``step`` elements; an incomplete window at the end is dropped.
    The result has ``(self.size(dimension) - size) // step + 1`` windows in place of
    ``dimension`` and a new last dim of length ``size``.

    Args:
        dimension (int): the dim to slide along.
        size (int): the window length.
        step (int): the distance between window starts.

    Returns:
        Tensor: a view of ``self``.

    Examples:
        >>> import ember
        >>> x = ember.arange(1., 6.)
        >>> x.unfold(0, 2, 1)
        tensor([[1., 2.],
                [2., 3.],
                [3., 4.],
                [4., 5.]])
        >>> x.unfold(0, 2, 2)
        tensor([[1., 2.],
                [3., 4.]])
    """,
    "unfold_copy": """Like :meth:`Tensor.unfold` but returns a copy instead of a view.

    Args:
        input (Tensor): the input tensor.
        dimension (int): the dim to slide along.
        size (int): the window length.
        step (int): the distance between window starts.

    Returns:
        Tensor: a new tensor.

    Examples:
        >>> import ember
        >>> ember.unfold_copy(ember.arange(4), 0, 2, 2)
        tensor([[0, 1],
                [2, 3]])
    """,
    "uniform_": """Fill ``self`` with samples drawn uniformly from ``[from_, to)``, in place.

    Args:
        from_ (float): the lower bound. Default: 0.
        to (float): the upper bound. Default: 1.
        generator (Generator, optional): the random generator to use.

    Returns:
        Tensor: ``self``.

    Examples:
        >>> import ember
        >>> _ = ember.manual_seed(0)
        >>> x = ember.empty(4).uniform_(-1, 1)
        >>> bool(((x >= -1) & (x < 1)).all())
        True
    """,
    "Tensor.unique": """The distinct elements of the tensor, as :func:`unique`.

    Args:
        sorted (bool): return them in ascending order. Default: True.
        return_inverse (bool): also return, for each element, the index of its value in
            the output. Default: False.
        return_counts (bool): also return how often each value occurs. Default: False.
        dim (int, optional): find unique slices along this dim instead of elements.

    Returns:
        Tensor or tuple: the unique values, then the inverse and counts if asked for.

    Examples:
        >>> import ember
        >>> x = ember.tensor([3, 1, 3, 2, 1])
        >>> x.unique()
        tensor([1, 2, 3])
        >>> x.unique(return_inverse=True, return_counts=True)
        (tensor([1, 2, 3]), tensor([2, 0, 2, 1, 0]), tensor([2, 1, 2]))
    """,
    "Tensor.unique_consecutive": """Collapse runs of equal consecutive elements.

    Args:
        return_inverse (bool): also return, for each element, the index of its run.
            Default: False.
        return_counts (bool): also return the length of each run. Default: False.
        dim (int, optional): work on slices along this dim instead of elements.

    Returns:
        Tensor or tuple: the values, then the inverse and counts if asked for.

    Examples:
        >>> import ember
        >>> x = ember.tensor([1, 1, 2, 2, 1])
        >>> x.unique_consecutive()
        tensor([1, 2, 1])
        >>> x.unique_consecutive(return_counts=True)
        (tensor([1, 2, 1]), tensor([2, 2, 1]))
    """,
    "unsafe_chunk": """Like :func:`chunk`, for code that checks aliasing by hand (no view checks).

    In PyTorch the chunks skip autograd's checks for in-place changes to views; ember
    returns the same chunks as :func:`chunk`.

    Args:
        input (Tensor): the tensor to split.
        chunks (int): the number of chunks.
        dim (int): the dim to split. Default: 0.

    Returns:
        tuple of Tensors: the chunks.

    Examples:
        >>> import ember
        >>> ember.unsafe_chunk(ember.arange(5), 2)
        (tensor([0, 1, 2]), tensor([3, 4]))
        >>> ember.arange(4).unsafe_chunk(2)
        (tensor([0, 1]), tensor([2, 3]))
    """,
    "unsafe_split": """Like :func:`split`, for code that checks aliasing by hand (no view checks).

    In PyTorch the pieces skip autograd's checks for in-place changes to views; ember
    returns the same pieces as :func:`split`.

    Args:
        input (Tensor): the tensor to split.
        split_size (int): the size of each piece (the last may be smaller).
        dim (int): the dim to split. Default: 0.

    Returns:
        tuple of Tensors: the pieces.

    Examples:
        >>> import ember
        >>> ember.unsafe_split(ember.arange(5), 2)
        (tensor([0, 1]), tensor([2, 3]), tensor([4]))
        >>> ember.arange(4).unsafe_split(3)
        (tensor([0, 1, 2]), tensor([3]))
    """,
    "unsqueeze": """Insert a dim of size 1 at position ``dim`` (a view).

    ``dim`` ranges over ``[-input.dim() - 1, input.dim()]``; a negative value counts from
    the end of the result, so ``-1`` appends.

    Args:
        input (Tensor): the input tensor.
        dim (int): where the new dim goes.

    Returns:
        Tensor: a view with one more dim.

    Raises:
        IndexError: if ``dim`` is out of range.

    Examples:
        >>> import ember
        >>> x = ember.tensor([1, 2, 3])
        >>> ember.unsqueeze(x, 0)
        tensor([[1, 2, 3]])
        >>> x.unsqueeze(-1).shape
        ember.Size([3, 1])
        >>> x.unsqueeze(3)
        Traceback (most recent call last):
            ...
        IndexError: Dimension out of range (expected to be in range of [-2, 1], but got 3)
    """,
    "unsqueeze_": """In-place version of :meth:`Tensor.unsqueeze`: changes ``self``'s shape.

    Examples:
        >>> import ember
        >>> x = ember.zeros(3)
        >>> x.unsqueeze_(0).shape
        ember.Size([1, 3])
    """,
    "unsqueeze_copy": """Like :func:`unsqueeze` but returns a copy instead of a view.

    Args:
        input (Tensor): the input tensor.
        dim (int): where the new dim goes.

    Returns:
        Tensor: a new tensor.

    Examples:
        >>> import ember
        >>> ember.unsqueeze_copy(ember.tensor([1, 2]), 1)
        tensor([[1],
                [2]])
    """,
    "vander": """Vandermonde matrix: columns are powers of ``x``.

    By default the powers decrease from left to right: column ``i`` is
    ``x ** (N - i - 1)``.

    Args:
        x (Tensor): a 1-D tensor.
        N (int, optional): the number of columns. Default: ``len(x)``.
        increasing (bool): powers increase from left to right instead. Default: False.

    Returns:
        Tensor: a ``(len(x), N)`` tensor.

    Examples:
        >>> import ember
        >>> x = ember.tensor([1, 2, 3])
        >>> ember.vander(x)
        tensor([[1, 1, 1],
                [4, 2, 1],
                [9, 3, 1]])
        >>> ember.vander(x, N=2, increasing=True)
        tensor([[1, 1],
                [1, 2],
                [1, 3]])
    """,
    # -- views ----------------------------------------------------------------------------
    "Tensor.view": """Return a view of the tensor with a new shape, sharing its data.

    The new shape must have the same number of elements; one dim may be ``-1`` (inferred).
    A view needs strides that fit the new shape: a contiguous tensor always works, a
    transposed one often does not; :meth:`reshape` copies when it must. Writes through
    the view change the original. ``view(dtype)`` reinterprets the bytes as another
    dtype of the same size instead.

    Args:
        *shape (int or sequence of ints): the new shape.
        dtype (ember.dtype, optional): reinterpret the data as this dtype instead.

    Returns:
        Tensor: the view.

    Raises:
        RuntimeError: if the element count differs or the strides do not allow a view.

    Examples:
        >>> import ember
        >>> x = ember.arange(6.)
        >>> v = x.view(2, 3)
        >>> v
        tensor([[0., 1., 2.],
                [3., 4., 5.]])
        >>> v[0, 0] = 100.
        >>> x[0]
        tensor(100.)
        >>> x.view(-1, 2).shape
        ember.Size([3, 2])
        >>> v.t().view(6)  # doctest: +ELLIPSIS
        Traceback (most recent call last):
            ...
        RuntimeError: view size is not compatible with input tensor's size and stride ...
        >>> ember.tensor([1.], dtype=ember.float32).view(ember.int32)
        tensor([1065353216], dtype=ember.int32)
    """,
    "Tensor.view_as": """View the tensor with ``other``'s shape: ``self.view(other.shape)``.

    Args:
        other (Tensor): the tensor whose shape to take.

    Returns:
        Tensor: the view.

    Examples:
        >>> import ember
        >>> ember.arange(4).view_as(ember.zeros(2, 2))
        tensor([[0, 1],
                [2, 3]])
    """,
    "view_copy": """Like :meth:`Tensor.view` but returns a copy instead of a view.

    Args:
        input (Tensor): the input tensor.
        size (sequence of ints): the new shape.

    Returns:
        Tensor: a new tensor.

    Examples:
        >>> import ember
        >>> ember.view_copy(ember.arange(4), (2, 2))
        tensor([[0, 1],
                [2, 3]])
    """,
    "vsplit": """Split a tensor with at least 2 dims into rows: :func:`tensor_split` on dim 0.

    Args:
        input (Tensor): the tensor to split.
        indices_or_sections (int or list of ints): the number of equal parts (it must
            divide the dim), or the cut points.

    Returns:
        tuple of Tensors: the parts (views).

    Examples:
        >>> import ember
        >>> x = ember.arange(8).reshape(4, 2)
        >>> ember.vsplit(x, 2)
        (tensor([[0, 1],
                [2, 3]]), tensor([[4, 5],
                [6, 7]]))
        >>> x.vsplit([1])
        (tensor([[0, 1]]), tensor([[2, 3],
                [4, 5],
                [6, 7]]))
    """,
    "vstack": """Stack tensors vertically: along dim 0, 1-D tensors becoming rows.

    Same as ``ember.cat(ember.atleast_2d(tensors), dim=0)``.

    Args:
        tensors (sequence of Tensors): the tensors.

    Returns:
        Tensor: the stacked tensor.

    Examples:
        >>> import ember
        >>> ember.vstack([ember.tensor([1, 2]), ember.tensor([3, 4])])
        tensor([[1, 2],
                [3, 4]])
        >>> ember.vstack([ember.zeros(2, 3), ember.ones(1, 3)]).shape
        ember.Size([3, 3])
    """,
    "where": """Pick from ``input`` where ``condition`` is True, else from ``other``.

    The three arguments broadcast together; ``input`` and ``other`` may be numbers, and
    their dtypes promote. ``where(condition)`` alone is
    ``nonzero(condition, as_tuple=True)``. The method form reads
    ``x.where(condition, y)``: ``x`` where ``condition`` holds, else ``y``.

    Args:
        condition (Tensor): a ``bool`` tensor.
        input (Tensor or Number): values where ``condition`` is True.
        other (Tensor or Number): values where ``condition`` is False.

    Returns:
        Tensor or tuple of Tensors: the selection, or the indices of the True elements.

    Examples:
        >>> import ember
        >>> x = ember.tensor([[1., -2.], [-3., 4.]])
        >>> ember.where(x > 0, x, 0.)
        tensor([[1., 0.],
                [0., 4.]])
        >>> x.where(x < 0, ember.tensor([10., 20.]))
        tensor([[10., -2.],
                [-3., 20.]])
        >>> ember.where(x > 0)
        (tensor([0, 1]), tensor([0, 1]))
    """,
    "xlogy": """Compute ``input * log(other)`` elementwise, with 0 where ``input`` is 0.

    Where ``input == 0`` the result is 0 even if ``other`` is 0 (``0 * log 0``); NaN in
    ``other`` still gives NaN. Useful for entropies. The operands broadcast; either may
    be a number.

    Args:
        input (Tensor or Number): the factor.
        other (Tensor or Number): the argument of the logarithm.

    Returns:
        Tensor: a floating-point tensor.

    Examples:
        >>> import ember
        >>> x = ember.tensor([0., 1., 2.])
        >>> ember.xlogy(x, ember.tensor([0., 2.718281828459045, 4.]))
        tensor([0.0000, 1.0000, 2.7726])
        >>> x.xlogy(2)
        tensor([0.0000, 0.6931, 1.3863])
    """,
    "xlogy_": """In-place version of :func:`xlogy`.

    Examples:
        >>> import ember
        >>> x = ember.tensor([0., 2.])
        >>> ember.xlogy_(x, ember.tensor([0., 1.]))
        tensor([0., 0.])
        >>> x.xlogy_(4) is x
        True
    """,
    "zero_": """Fill ``self`` with zeros, in place.

    Returns:
        Tensor: ``self``.

    Examples:
        >>> import ember
        >>> x = ember.tensor([1., 2.])
        >>> x.zero_()
        tensor([0., 0.])
        >>> x
        tensor([0., 0.])
    """,
}
