"""Docstrings for ``ember.<name>`` and ``Tensor.<name>``, names ``a`` to ``l``.

Read by :func:`ember._docstrings.apply` (its docstring says what a key means). Each
value is a Google-style docstring; its examples run as doctests
(``tests/test_docstrings.py``).
"""

DOCS: dict[str, str] = {
    "abs": """Absolute value of each element.

    Args:
        input (Tensor): the input tensor.

    Returns:
        Tensor: a new tensor of the same shape and dtype.

    Examples:
        >>> import ember
        >>> x = ember.tensor([-1.5, 0.0, 2.0])
        >>> ember.abs(x)
        tensor([1.5000, 0.0000, 2.0000])
        >>> x.abs()
        tensor([1.5000, 0.0000, 2.0000])
    """,
    "abs_": """In-place version of :func:`ember.abs`.

    Overwrites the tensor with the result and returns it. The result must fit the tensor's shape
    and dtype (``self`` is not broadcast, and a float result cannot go into an integer tensor).

    Examples:
        >>> import ember
        >>> x = ember.tensor([-1.5, 0.0, 2.0])
        >>> x.abs_()
        tensor([1.5000, 0.0000, 2.0000])
        >>> x
        tensor([1.5000, 0.0000, 2.0000])
        >>> x = ember.tensor([-1.5, 0.0, 2.0])
        >>> _ = ember.abs_(x)
        >>> x
        tensor([1.5000, 0.0000, 2.0000])
    """,
    "absolute": """Alias of :func:`ember.abs` (the same result, under NumPy's name).

    Examples:
        >>> import ember
        >>> x = ember.tensor([-1.5, 0.0, 2.0])
        >>> ember.absolute(x)
        tensor([1.5000, 0.0000, 2.0000])
        >>> x.absolute()
        tensor([1.5000, 0.0000, 2.0000])
    """,
    "absolute_": """In-place version of :func:`ember.absolute`.

    Overwrites the tensor with the result and returns it. The result must fit the tensor's shape
    and dtype (``self`` is not broadcast, and a float result cannot go into an integer tensor).

    Examples:
        >>> import ember
        >>> x = ember.tensor([-1.5, 0.0, 2.0])
        >>> x.absolute_()
        tensor([1.5000, 0.0000, 2.0000])
        >>> x
        tensor([1.5000, 0.0000, 2.0000])
    """,
    "acos": """Inverse cosine (arccosine) of each element, in radians.

    Defined on ``[-1, 1]``; elements outside give ``nan``. ``arccos`` is an alias.

    Args:
        input (Tensor): the input tensor.

    Returns:
        Tensor: a new tensor of the same shape; integer inputs give the default float dtype.

    Examples:
        >>> import ember
        >>> x = ember.tensor([-1.0, 0.0, 1.0])
        >>> ember.acos(x)
        tensor([3.1416, 1.5708, 0.0000])
        >>> x.acos()
        tensor([3.1416, 1.5708, 0.0000])
    """,
    "acos_": """In-place version of :func:`ember.acos`.

    Overwrites the tensor with the result and returns it. The result must fit the tensor's shape
    and dtype (``self`` is not broadcast, and a float result cannot go into an integer tensor).

    Examples:
        >>> import ember
        >>> x = ember.tensor([-1.0, 0.0, 1.0])
        >>> x.acos_()
        tensor([3.1416, 1.5708, 0.0000])
        >>> x
        tensor([3.1416, 1.5708, 0.0000])
        >>> x = ember.tensor([-1.0, 0.0, 1.0])
        >>> _ = ember.acos_(x)
        >>> x
        tensor([3.1416, 1.5708, 0.0000])
    """,
    "acosh": """Inverse hyperbolic cosine of each element.

    Defined for ``input >= 1``; smaller elements give ``nan``. ``arccosh`` is an alias.

    Args:
        input (Tensor): the input tensor.

    Returns:
        Tensor: a new tensor of the same shape; integer inputs give the default float dtype.

    Examples:
        >>> import ember
        >>> x = ember.tensor([1.0, 2.0, 4.0])
        >>> ember.acosh(x)
        tensor([0.0000, 1.3170, 2.0634])
        >>> x.acosh()
        tensor([0.0000, 1.3170, 2.0634])
    """,
    "acosh_": """In-place version of :func:`ember.acosh`.

    Overwrites the tensor with the result and returns it. The result must fit the tensor's shape
    and dtype (``self`` is not broadcast, and a float result cannot go into an integer tensor).

    Examples:
        >>> import ember
        >>> x = ember.tensor([1.0, 2.0, 4.0])
        >>> x.acosh_()
        tensor([0.0000, 1.3170, 2.0634])
        >>> x
        tensor([0.0000, 1.3170, 2.0634])
        >>> x = ember.tensor([1.0, 2.0, 4.0])
        >>> _ = ember.acosh_(x)
        >>> x
        tensor([0.0000, 1.3170, 2.0634])
    """,
    "adaptive_avg_pool1d": """1-D average pooling to a fixed output length.

    The same computation as ``ember.nn.functional.adaptive_avg_pool1d``; prefer that name in new
    code. Each output element averages a window of the input that the sizes determine.

    Args:
        input (Tensor): ``(N, C, L)`` or ``(C, L)``.
        output_size (int): the output length.

    Returns:
        Tensor: ``(N, C, output_size)``.

    Examples:
        >>> import ember
        >>> x = ember.arange(6.0).reshape(1, 1, 6)
        >>> ember.adaptive_avg_pool1d(x, 3)
        tensor([[[0.5000, 2.5000, 4.5000]]])
    """,
    "adaptive_avg_pool2d": """2-D average pooling to a fixed output size.

    The same computation as ``ember.nn.functional.adaptive_avg_pool2d``; prefer that name in new
    code.

    Args:
        input (Tensor): ``(N, C, H, W)`` or ``(C, H, W)``.
        output_size (int or tuple of ints): the output ``(H, W)``.

    Returns:
        Tensor: ``(N, C, *output_size)``.

    Note:
        PyTorch has no ``torch.adaptive_avg_pool2d``: write
        ``nn.functional.adaptive_avg_pool2d`` in code that must run on both.

    Examples:
        >>> import ember
        >>> x = ember.arange(16.0).reshape(1, 1, 4, 4)
        >>> ember.adaptive_avg_pool2d(x, 2)
        tensor([[[[ 2.5000,  4.5000],
                  [10.5000, 12.5000]]]])
    """,
    "add": """Add ``other``, scaled by ``alpha``, to ``input``, elementwise.

    Computes ``input + alpha * other``. The operands broadcast to a common shape and promote to
    a common dtype (a Python number does not widen a tensor's dtype: ``int_tensor + 1.5`` is
    float, ``float16_tensor + 1.0`` stays float16).

    Args:
        input (Tensor): the first operand.
        other (Tensor or Number): the second operand, broadcast against ``input``.
        alpha (Number, optional): the multiplier of ``other``. Default: 1.

    Returns:
        Tensor: the sum, of the broadcast shape and promoted dtype.

    Raises:
        RuntimeError: the shapes cannot be broadcast together.

    Note:
        ember names this function's first parameter ``self`` (the schema's name), so pass the
        tensor positionally; PyTorch also accepts ``input=``.

    Examples:
        >>> import ember
        >>> x = ember.tensor([1.0, 2.0, 3.0])
        >>> ember.add(x, 10)
        tensor([11., 12., 13.])
        >>> x.add(ember.tensor([1.0, 1.0, 1.0]), alpha=2)
        tensor([3., 4., 5.])
        >>> x + ember.tensor([[0.0], [1.0]])
        tensor([[1., 2., 3.],
                [2., 3., 4.]])
    """,
    "Tensor.add_": """In-place version of :func:`ember.add`: adds into the tensor and returns it.

    ``other`` broadcasts to the tensor's shape (not the other way round), and the result must be
    castable to the tensor's dtype.

    Raises:
        RuntimeError: the broadcast shape differs from the tensor's shape, or the result dtype
            cannot be cast to the tensor's (a float result into an integer tensor).

    Examples:
        >>> import ember
        >>> x = ember.tensor([1.0, 2.0, 3.0])
        >>> x.add_(1, alpha=2)
        tensor([3., 4., 5.])
        >>> x
        tensor([3., 4., 5.])
    """,
    "addbmm": """Sum of batched matrix products added to a matrix.

    Computes ``beta * input + alpha * sum_i(batch1[i] @ batch2[i])``: the batch dimension is
    reduced, unlike :func:`ember.baddbmm`.

    Args:
        input (Tensor): the input tensor.
        batch1 (Tensor): shape ``(b, n, m)``.
        batch2 (Tensor): shape ``(b, m, p)``.
        beta (Number, optional): the multiplier of ``input``. Default: 1.
        alpha (Number, optional): the multiplier of the products. Default: 1.

    Returns:
        Tensor: a matrix of shape ``(n, p)``.

    Examples:
        >>> import ember
        >>> b1 = ember.ones(3, 2, 2)
        >>> ember.addbmm(ember.zeros(2, 2), b1, b1)
        tensor([[6., 6.],
                [6., 6.]])
        >>> ember.zeros(2, 2).addbmm(b1, b1, alpha=0.5)
        tensor([[3., 3.],
                [3., 3.]])
    """,
    "addbmm_": """In-place version of :func:`ember.addbmm`.

    Overwrites the tensor with the result and returns it. The result must fit the tensor's shape
    and dtype (``self`` is not broadcast, and a float result cannot go into an integer tensor).

    Examples:
        >>> import ember
        >>> x = ember.zeros(2, 2)
        >>> x.addbmm_(ember.ones(3, 2, 1), ember.ones(3, 1, 2))
        tensor([[3., 3.],
                [3., 3.]])
        >>> x
        tensor([[3., 3.],
                [3., 3.]])
    """,
    "addcdiv": """Add ``value * tensor1 / tensor2`` to ``input``, elementwise.

    All three tensors broadcast together. Integer ``tensor1`` / ``tensor2`` are not allowed (the
    division would be ambiguous).

    Args:
        input (Tensor): the input tensor.
        tensor1 (Tensor): the numerator.
        tensor2 (Tensor): the denominator.
        value (Number, optional): the multiplier of the quotient. Default: 1.

    Returns:
        Tensor: ``input + value * tensor1 / tensor2``.

    Examples:
        >>> import ember
        >>> x = ember.zeros(3)
        >>> a = ember.tensor([1.0, 2.0, 3.0])
        >>> b = ember.tensor([2.0, 4.0, 6.0])
        >>> ember.addcdiv(x, a, b, value=2)
        tensor([1., 1., 1.])
        >>> x.addcdiv(a, b)
        tensor([0.5000, 0.5000, 0.5000])
    """,
    "addcdiv_": """In-place version of :func:`ember.addcdiv`.

    Overwrites the tensor with the result and returns it. The result must fit the tensor's shape
    and dtype (``self`` is not broadcast, and a float result cannot go into an integer tensor).

    Examples:
        >>> import ember
        >>> x = ember.ones(2)
        >>> x.addcdiv_(ember.tensor([1.0, 3.0]), ember.tensor([2.0, 2.0]))
        tensor([1.5000, 2.5000])
        >>> x
        tensor([1.5000, 2.5000])
    """,
    "addcmul": """Add ``value * tensor1 * tensor2`` to ``input``, elementwise.

    All three tensors broadcast together.

    Args:
        input (Tensor): the input tensor.
        tensor1 (Tensor): the first factor.
        tensor2 (Tensor): the second factor.
        value (Number, optional): the multiplier of the product. Default: 1.

    Returns:
        Tensor: ``input + value * tensor1 * tensor2``.

    Examples:
        >>> import ember
        >>> x = ember.ones(3)
        >>> a = ember.tensor([1.0, 2.0, 3.0])
        >>> ember.addcmul(x, a, a, value=0.5)
        tensor([1.5000, 3.0000, 5.5000])
        >>> x.addcmul(a, a)
        tensor([ 2.,  5., 10.])
    """,
    "addcmul_": """In-place version of :func:`ember.addcmul`.

    Overwrites the tensor with the result and returns it. The result must fit the tensor's shape
    and dtype (``self`` is not broadcast, and a float result cannot go into an integer tensor).

    Examples:
        >>> import ember
        >>> x = ember.ones(2)
        >>> x.addcmul_(ember.tensor([1.0, 3.0]), ember.tensor([2.0, 2.0]))
        tensor([3., 7.])
        >>> x
        tensor([3., 7.])
    """,
    "addmm": """Matrix product added to a matrix: ``beta * input + alpha * (mat1 @ mat2)``.

    ``mat1`` is ``(n, m)`` and ``mat2`` is ``(m, p)``; ``input`` broadcasts to ``(n, p)``. With
    ``beta=0`` ``input`` is ignored (NaNs in it do not propagate). This is what a linear layer
    computes.

    Args:
        input (Tensor): the input tensor.
        mat1 (Tensor): the first matrix.
        mat2 (Tensor): the second matrix.
        beta (Number, optional): the multiplier of ``input``. Default: 1.
        alpha (Number, optional): the multiplier of the product. Default: 1.

    Returns:
        Tensor: a tensor of shape ``(n, p)``.

    Raises:
        RuntimeError: the inner sizes differ or an operand is not 2-D.

    Examples:
        >>> import ember
        >>> m = ember.tensor([[1.0, 2.0], [3.0, 4.0]])
        >>> bias = ember.tensor([10.0, 20.0])
        >>> ember.addmm(bias, m, m)
        tensor([[17., 30.],
                [25., 42.]])
        >>> bias.addmm(m, m, beta=0, alpha=2)
        tensor([[14., 20.],
                [30., 44.]])
    """,
    "addmm_": """In-place version of :func:`ember.addmm`.

    Overwrites the tensor with the result and returns it. The result must fit the tensor's shape
    and dtype (``self`` is not broadcast, and a float result cannot go into an integer tensor).

    Examples:
        >>> import ember
        >>> x = ember.zeros(2, 2)
        >>> x.addmm_(ember.eye(2), ember.ones(2, 2))
        tensor([[1., 1.],
                [1., 1.]])
        >>> x
        tensor([[1., 1.],
                [1., 1.]])
    """,
    "addmv": """Matrix-vector product added to a vector: ``beta * input + alpha * (mat @ vec)``.

    Args:
        input (Tensor): the input tensor.
        mat (Tensor): a matrix of shape ``(n, m)``.
        vec (Tensor): a vector of length ``m``.
        beta (Number, optional): the multiplier of ``input``. Default: 1.
        alpha (Number, optional): the multiplier of the product. Default: 1.

    Returns:
        Tensor: a vector of length ``n``.

    Examples:
        >>> import ember
        >>> m = ember.tensor([[1.0, 2.0], [3.0, 4.0]])
        >>> v = ember.tensor([1.0, 1.0])
        >>> ember.addmv(v, m, v)
        tensor([4., 8.])
        >>> v.addmv(m, v, alpha=2)
        tensor([ 7., 15.])
    """,
    "addmv_": """In-place version of :func:`ember.addmv`.

    Overwrites the tensor with the result and returns it. The result must fit the tensor's shape
    and dtype (``self`` is not broadcast, and a float result cannot go into an integer tensor).

    Examples:
        >>> import ember
        >>> x = ember.zeros(2)
        >>> x.addmv_(ember.eye(2), ember.tensor([1.0, 2.0]))
        tensor([1., 2.])
        >>> x
        tensor([1., 2.])
    """,
    "addr": """Outer product added to a matrix: ``beta * input + alpha * outer(vec1, vec2)``.

    Args:
        input (Tensor): the input tensor.
        vec1 (Tensor): a vector of length ``n``.
        vec2 (Tensor): a vector of length ``m``.
        beta (Number, optional): the multiplier of ``input``. Default: 1.
        alpha (Number, optional): the multiplier of the product. Default: 1.

    Returns:
        Tensor: a matrix of shape ``(n, m)``.

    Examples:
        >>> import ember
        >>> x = ember.zeros(2, 3)
        >>> ember.addr(x, ember.tensor([1.0, 2.0]), ember.tensor([1.0, 2.0, 3.0]))
        tensor([[1., 2., 3.],
                [2., 4., 6.]])
        >>> x.addr(ember.ones(2), ember.ones(3), alpha=5)
        tensor([[5., 5., 5.],
                [5., 5., 5.]])
    """,
    "addr_": """In-place version of :func:`ember.addr`.

    Overwrites the tensor with the result and returns it. The result must fit the tensor's shape
    and dtype (``self`` is not broadcast, and a float result cannot go into an integer tensor).

    Examples:
        >>> import ember
        >>> x = ember.zeros(2, 2)
        >>> x.addr_(ember.tensor([1.0, 2.0]), ember.ones(2))
        tensor([[1., 1.],
                [2., 2.]])
        >>> x
        tensor([[1., 1.],
                [2., 2.]])
    """,
    "adjoint": """View of a tensor with its last two dimensions swapped (conjugated for complex).

    ember has no complex dtypes, so this is ``input.transpose(-2, -1)``: a view sharing
    ``input``'s memory.

    Args:
        input (Tensor): a tensor of at least 2 dims.

    Returns:
        Tensor: a view of ``input``.

    Examples:
        >>> import ember
        >>> x = ember.tensor([[1, 2, 3], [4, 5, 6]])
        >>> ember.adjoint(x)
        tensor([[1, 4],
                [2, 5],
                [3, 6]])
        >>> x.adjoint().shape
        ember.Size([3, 2])
    """,
    "alias_copy": """A copy of ``input`` (the copying form of the ``alias`` view).

    Args:
        input (Tensor): the input tensor.

    Returns:
        Tensor: a new tensor with ``input``'s values.

    Examples:
        >>> import ember
        >>> x = ember.tensor([1.0, 2.0])
        >>> y = ember.alias_copy(x)
        >>> y.data_ptr() == x.data_ptr()
        False
    """,
    "all": """Test whether every element (along ``dim``) is true.

    Nonzero elements count as true. Empty reductions give ``True``.

    Args:
        input (Tensor): the input tensor.
        dim (int or tuple of ints, optional): the dimension(s) to reduce. Default: all.
        keepdim (bool, optional): keep the reduced dimensions with size 1. Default: False.

    Returns:
        Tensor: a ``bool`` tensor (0-dim when reducing everything).

    Examples:
        >>> import ember
        >>> x = ember.tensor([[1.0, 0.0], [2.0, 3.0]])
        >>> ember.all(x)
        tensor(False)
        >>> x.all(dim=1)
        tensor([False,  True])
        >>> (x >= 0).all()
        tensor(True)
    """,
    "allclose": """Test whether two tensors are elementwise equal within a tolerance.

    True when ``|input - other| <= atol + rtol * |other|`` holds everywhere (the operands
    broadcast). NaNs are unequal unless ``equal_nan``.

    Args:
        input (Tensor): the first tensor.
        other (Tensor): the second tensor.
        rtol (float, optional): the relative tolerance. Default: 1e-05.
        atol (float, optional): the absolute tolerance. Default: 1e-08.
        equal_nan (bool, optional): count two NaNs as equal. Default: False.

    Returns:
        bool: a Python bool.

    Examples:
        >>> import ember
        >>> x = ember.tensor([1.0, 2.0])
        >>> ember.allclose(x, x + 1e-6)
        True
        >>> x.allclose(x + 0.1)
        False
        >>> x.allclose(x + 0.1, atol=0.2)
        True
    """,
    "amax": """The maximum of the elements over one or more dimensions.

    Unlike :func:`ember.max` with ``dim`` it returns only the values, accepts several
    dimensions, and its gradient is spread evenly over tied elements. NaN propagates.

    Args:
        input (Tensor): the input tensor.
        dim (int or tuple of ints, optional): the dimensions to reduce. Default: ``()``, all of
            them.
        keepdim (bool, optional): keep the reduced dimensions with size 1. Default: False.

    Returns:
        Tensor: the reduced values.

    Examples:
        >>> import ember
        >>> x = ember.tensor([[1.0, 5.0], [3.0, 2.0]])
        >>> ember.amax(x)
        tensor(5.)
        >>> x.amax(dim=0)
        tensor([3., 5.])
        >>> x.amax(dim=(0, 1), keepdim=True)
        tensor([[5.]])
    """,
    "amin": """The minimum of the elements over one or more dimensions.

    Unlike :func:`ember.min` with ``dim`` it returns only the values, accepts several
    dimensions, and its gradient is spread evenly over tied elements. NaN propagates.

    Args:
        input (Tensor): the input tensor.
        dim (int or tuple of ints, optional): the dimensions to reduce. Default: ``()``, all of
            them.
        keepdim (bool, optional): keep the reduced dimensions with size 1. Default: False.

    Returns:
        Tensor: the reduced values.

    Examples:
        >>> import ember
        >>> x = ember.tensor([[1.0, 5.0], [3.0, 2.0]])
        >>> ember.amin(x)
        tensor(1.)
        >>> x.amin(dim=0)
        tensor([1., 2.])
        >>> x.amin(dim=(0, 1), keepdim=True)
        tensor([[1.]])
    """,
    "aminmax": """Minimum and maximum of a tensor in one call.

    Reduces everything, or only ``dim`` when given.

    Args:
        input (Tensor): the input tensor.
        dim (int, optional): the dimension to reduce. Default: None (all).
        keepdim (bool, optional): keep the reduced dimensions with size 1. Default: False.

    Returns:
        tuple[Tensor, Tensor]: a named tuple ``(min, max)``.

    Raises:
        RuntimeError: ``input`` is empty and no ``dim`` is given.

    Note:
        The result prints as ``MinMax(min=..., max=...)``; PyTorch's prints as
        ``torch.return_types.aminmax(...)``. Both unpack and index the same way.

    Examples:
        >>> import ember
        >>> x = ember.tensor([[1.0, 5.0], [3.0, 2.0]])
        >>> lo, hi = ember.aminmax(x)
        >>> lo, hi
        (tensor(1.), tensor(5.))
        >>> x.aminmax(dim=1).max
        tensor([5., 3.])
    """,
    "any": """Test whether any element (along ``dim``) is true.

    Nonzero elements count as true. Empty reductions give ``False``.

    Args:
        input (Tensor): the input tensor.
        dim (int or tuple of ints, optional): the dimension(s) to reduce. Default: all.
        keepdim (bool, optional): keep the reduced dimensions with size 1. Default: False.

    Returns:
        Tensor: a ``bool`` tensor (0-dim when reducing everything).

    Examples:
        >>> import ember
        >>> x = ember.tensor([[0.0, 0.0], [2.0, 0.0]])
        >>> ember.any(x)
        tensor(True)
        >>> x.any(dim=1)
        tensor([False,  True])
    """,
    "arccos": """Alias of :func:`ember.acos` (the same result, under NumPy's name).

    Examples:
        >>> import ember
        >>> x = ember.tensor([-1.0, 0.0, 1.0])
        >>> ember.arccos(x)
        tensor([3.1416, 1.5708, 0.0000])
        >>> x.arccos()
        tensor([3.1416, 1.5708, 0.0000])
    """,
    "arccos_": """In-place version of :func:`ember.arccos`.

    Overwrites the tensor with the result and returns it. The result must fit the tensor's shape
    and dtype (``self`` is not broadcast, and a float result cannot go into an integer tensor).

    Examples:
        >>> import ember
        >>> x = ember.tensor([-1.0, 0.0, 1.0])
        >>> x.arccos_()
        tensor([3.1416, 1.5708, 0.0000])
        >>> x
        tensor([3.1416, 1.5708, 0.0000])
        >>> x = ember.tensor([-1.0, 0.0, 1.0])
        >>> _ = ember.arccos_(x)
        >>> x
        tensor([3.1416, 1.5708, 0.0000])
    """,
    "arccosh": """Alias of :func:`ember.acosh` (the same result, under NumPy's name).

    Examples:
        >>> import ember
        >>> x = ember.tensor([1.0, 2.0, 4.0])
        >>> ember.arccosh(x)
        tensor([0.0000, 1.3170, 2.0634])
        >>> x.arccosh()
        tensor([0.0000, 1.3170, 2.0634])
    """,
    "arccosh_": """In-place version of :func:`ember.arccosh`.

    Overwrites the tensor with the result and returns it. The result must fit the tensor's shape
    and dtype (``self`` is not broadcast, and a float result cannot go into an integer tensor).

    Examples:
        >>> import ember
        >>> x = ember.tensor([1.0, 2.0, 4.0])
        >>> x.arccosh_()
        tensor([0.0000, 1.3170, 2.0634])
        >>> x
        tensor([0.0000, 1.3170, 2.0634])
        >>> x = ember.tensor([1.0, 2.0, 4.0])
        >>> _ = ember.arccosh_(x)
        >>> x
        tensor([0.0000, 1.3170, 2.0634])
    """,
    "arcsin": """Alias of :func:`ember.asin` (the same result, under NumPy's name).

    Examples:
        >>> import ember
        >>> x = ember.tensor([-1.0, 0.0, 1.0])
        >>> ember.arcsin(x)
        tensor([-1.5708,  0.0000,  1.5708])
        >>> x.arcsin()
        tensor([-1.5708,  0.0000,  1.5708])
    """,
    "arcsin_": """In-place version of :func:`ember.arcsin`.

    Overwrites the tensor with the result and returns it. The result must fit the tensor's shape
    and dtype (``self`` is not broadcast, and a float result cannot go into an integer tensor).

    Examples:
        >>> import ember
        >>> x = ember.tensor([-1.0, 0.0, 1.0])
        >>> x.arcsin_()
        tensor([-1.5708,  0.0000,  1.5708])
        >>> x
        tensor([-1.5708,  0.0000,  1.5708])
        >>> x = ember.tensor([-1.0, 0.0, 1.0])
        >>> _ = ember.arcsin_(x)
        >>> x
        tensor([-1.5708,  0.0000,  1.5708])
    """,
    "arcsinh": """Alias of :func:`ember.asinh` (the same result, under NumPy's name).

    Examples:
        >>> import ember
        >>> x = ember.tensor([-1.0, 0.0, 2.0])
        >>> ember.arcsinh(x)
        tensor([-0.8814,  0.0000,  1.4436])
        >>> x.arcsinh()
        tensor([-0.8814,  0.0000,  1.4436])
    """,
    "arcsinh_": """In-place version of :func:`ember.arcsinh`.

    Overwrites the tensor with the result and returns it. The result must fit the tensor's shape
    and dtype (``self`` is not broadcast, and a float result cannot go into an integer tensor).

    Examples:
        >>> import ember
        >>> x = ember.tensor([-1.0, 0.0, 2.0])
        >>> x.arcsinh_()
        tensor([-0.8814,  0.0000,  1.4436])
        >>> x
        tensor([-0.8814,  0.0000,  1.4436])
        >>> x = ember.tensor([-1.0, 0.0, 2.0])
        >>> _ = ember.arcsinh_(x)
        >>> x
        tensor([-0.8814,  0.0000,  1.4436])
    """,
    "arctan": """Alias of :func:`ember.atan` (the same result, under NumPy's name).

    Examples:
        >>> import ember
        >>> x = ember.tensor([-1.0, 0.0, 1.0])
        >>> ember.arctan(x)
        tensor([-0.7854,  0.0000,  0.7854])
        >>> x.arctan()
        tensor([-0.7854,  0.0000,  0.7854])
    """,
    "arctan2": """Alias of :func:`ember.atan2` (the same result, under NumPy's name).

    Examples:
        >>> import ember
        >>> x = ember.tensor([1.0, -1.0])
        >>> ember.arctan2(x, ember.tensor([1.0, 1.0]))
        tensor([ 0.7854, -0.7854])
    """,
    "arctan2_": """In-place version of :func:`ember.arctan2`.

    Overwrites the tensor with the result and returns it. The result must fit the tensor's shape
    and dtype (``self`` is not broadcast, and a float result cannot go into an integer tensor).

    Examples:
        >>> import ember
        >>> x = ember.tensor([1.0, 1.0, -1.0])
        >>> x.arctan2_(ember.tensor([1.0, -1.0, -1.0]))
        tensor([ 0.7854,  2.3562, -2.3562])
        >>> x
        tensor([ 0.7854,  2.3562, -2.3562])
    """,
    "arctan_": """In-place version of :func:`ember.arctan`.

    Overwrites the tensor with the result and returns it. The result must fit the tensor's shape
    and dtype (``self`` is not broadcast, and a float result cannot go into an integer tensor).

    Examples:
        >>> import ember
        >>> x = ember.tensor([-1.0, 0.0, 1.0])
        >>> x.arctan_()
        tensor([-0.7854,  0.0000,  0.7854])
        >>> x
        tensor([-0.7854,  0.0000,  0.7854])
        >>> x = ember.tensor([-1.0, 0.0, 1.0])
        >>> _ = ember.arctan_(x)
        >>> x
        tensor([-0.7854,  0.0000,  0.7854])
    """,
    "arctanh": """Alias of :func:`ember.atanh` (the same result, under NumPy's name).

    Examples:
        >>> import ember
        >>> x = ember.tensor([-0.5, 0.0, 0.5])
        >>> ember.arctanh(x)
        tensor([-0.5493,  0.0000,  0.5493])
        >>> x.arctanh()
        tensor([-0.5493,  0.0000,  0.5493])
    """,
    "arctanh_": """In-place version of :func:`ember.arctanh`.

    Overwrites the tensor with the result and returns it. The result must fit the tensor's shape
    and dtype (``self`` is not broadcast, and a float result cannot go into an integer tensor).

    Examples:
        >>> import ember
        >>> x = ember.tensor([-0.5, 0.0, 0.5])
        >>> x.arctanh_()
        tensor([-0.5493,  0.0000,  0.5493])
        >>> x
        tensor([-0.5493,  0.0000,  0.5493])
        >>> x = ember.tensor([-0.5, 0.0, 0.5])
        >>> _ = ember.arctanh_(x)
        >>> x
        tensor([-0.5493,  0.0000,  0.5493])
    """,
    "argmax": """Index of the largest element, over the flattened tensor or along ``dim``.

    Ties give the first index. Without ``dim`` the index is into the flattened tensor.

    Args:
        input (Tensor): the input tensor.
        dim (int, optional): the dimension to reduce. Default: None (flatten).
        keepdim (bool, optional): keep the reduced dimensions with size 1. Default: False.

    Returns:
        Tensor: ``int64`` indices.

    Examples:
        >>> import ember
        >>> x = ember.tensor([[1.0, 5.0], [3.0, 2.0]])
        >>> ember.argmax(x)
        tensor(1)
        >>> x.argmax(dim=1)
        tensor([1, 0])
        >>> x.argmax(dim=0, keepdim=True)
        tensor([[1, 0]])
    """,
    "argmin": """Index of the smallest element, over the flattened tensor or along ``dim``.

    Ties give the first index. Without ``dim`` the index is into the flattened tensor.

    Args:
        input (Tensor): the input tensor.
        dim (int, optional): the dimension to reduce. Default: None (flatten).
        keepdim (bool, optional): keep the reduced dimensions with size 1. Default: False.

    Returns:
        Tensor: ``int64`` indices.

    Examples:
        >>> import ember
        >>> x = ember.tensor([[1.0, 5.0], [3.0, 2.0]])
        >>> ember.argmin(x)
        tensor(0)
        >>> x.argmin(dim=1)
        tensor([0, 1])
        >>> x.argmin(dim=0, keepdim=True)
        tensor([[0, 1]])
    """,
    "argsort": """The indices that sort a tensor along ``dim``.

    ``input.gather(dim, argsort(input, dim))`` is sorted. With ``stable=True`` equal elements
    keep their order.

    Args:
        input (Tensor): the input tensor.
        dim (int, optional): the dimension to sort. Default: -1.
        descending (bool, optional): largest first. Default: False.
        stable (bool, optional): keep the order of equal elements. Default: False.

    Returns:
        Tensor: ``int64`` indices of ``input``'s shape.

    Examples:
        >>> import ember
        >>> x = ember.tensor([3.0, 1.0, 2.0])
        >>> ember.argsort(x)
        tensor([1, 2, 0])
        >>> x.argsort(descending=True)
        tensor([0, 2, 1])
    """,
    "argwhere": """The indices of the nonzero elements of a tensor, one row per element.

    The same as ``ember.nonzero(input)``: row-major order, shape ``(count, input.dim())``.

    Args:
        input (Tensor): the input tensor.

    Returns:
        Tensor: an ``int64`` tensor of shape ``(count, input.dim())``.

    Examples:
        >>> import ember
        >>> x = ember.tensor([[1.0, 0.0], [0.0, 2.0]])
        >>> ember.argwhere(x)
        tensor([[0, 0],
                [1, 1]])
        >>> x.argwhere().shape
        ember.Size([2, 2])
    """,
    "as_strided": """View a tensor's memory with an explicit shape, stride and storage offset.

    The view reads the underlying storage directly, so overlapping or out-of-order views are
    possible; writing to an overlapping view is unsafe. Prefer ``view``, ``expand`` or
    ``unfold`` where they do the job.

    Args:
        input (Tensor): the input tensor.
        size (sequence of ints): the shape of the view.
        stride (sequence of ints): the step of each dimension, in elements.
        storage_offset (int, optional): the first element. Default: ``input``'s offset.

    Returns:
        Tensor: a view of ``input``'s storage.

    Raises:
        RuntimeError: the view would reach outside the storage.

    Examples:
        >>> import ember
        >>> x = ember.arange(6)
        >>> ember.as_strided(x, (2, 2), (1, 2))
        tensor([[0, 2],
                [1, 3]])
        >>> x.as_strided((3,), (2,), 1)
        tensor([1, 3, 5])
    """,
    "as_strided_copy": """A copy of :func:`ember.as_strided`'s view (the result owns its memory).

    Args:
        input (Tensor): the input tensor.
        size (sequence of ints): the shape.
        stride (sequence of ints): the strides.
        storage_offset (int, optional): the first element. Default: ``input``'s offset.

    Returns:
        Tensor: a new contiguous tensor.

    Examples:
        >>> import ember
        >>> x = ember.arange(6)
        >>> ember.as_strided_copy(x, (2, 2), (1, 2))
        tensor([[0, 2],
                [1, 3]])
    """,
    "as_strided_scatter": """A copy of ``input`` with ``src`` written into a strided view of it.

    The out-of-place form of ``input.as_strided(size, stride, offset).copy_(src)``.

    Args:
        input (Tensor): the input tensor.
        src (Tensor): the values, of shape ``size``.
        size (sequence of ints): the shape of the view.
        stride (sequence of ints): the strides of the view.
        storage_offset (int, optional): the first element. Default: ``input``'s offset.

    Returns:
        Tensor: a new tensor.

    Examples:
        >>> import ember
        >>> x = ember.zeros(4)
        >>> ember.as_strided_scatter(x, ember.ones(2), (2,), (2,))
        tensor([1., 0., 1., 0.])
        >>> x.as_strided_scatter(ember.ones(2), (2,), (1,), 2)
        tensor([0., 0., 1., 1.])
    """,
    "as_tensor": """
    Examples:
        >>> import ember
        >>> ember.as_tensor([1, 2, 3])
        tensor([1, 2, 3])
        >>> x = ember.tensor([1.0, 2.0])
        >>> ember.as_tensor(x) is x
        True
        >>> ember.as_tensor(x, dtype=ember.float64)
        tensor([1., 2.], dtype=ember.float64)
    """,
    "asin": """Inverse sine (arcsine) of each element, in radians.

    Defined on ``[-1, 1]``; elements outside give ``nan``. ``arcsin`` is an alias.

    Args:
        input (Tensor): the input tensor.

    Returns:
        Tensor: a new tensor of the same shape; integer inputs give the default float dtype.

    Examples:
        >>> import ember
        >>> x = ember.tensor([-1.0, 0.0, 1.0])
        >>> ember.asin(x)
        tensor([-1.5708,  0.0000,  1.5708])
        >>> x.asin()
        tensor([-1.5708,  0.0000,  1.5708])
    """,
    "asin_": """In-place version of :func:`ember.asin`.

    Overwrites the tensor with the result and returns it. The result must fit the tensor's shape
    and dtype (``self`` is not broadcast, and a float result cannot go into an integer tensor).

    Examples:
        >>> import ember
        >>> x = ember.tensor([-1.0, 0.0, 1.0])
        >>> x.asin_()
        tensor([-1.5708,  0.0000,  1.5708])
        >>> x
        tensor([-1.5708,  0.0000,  1.5708])
        >>> x = ember.tensor([-1.0, 0.0, 1.0])
        >>> _ = ember.asin_(x)
        >>> x
        tensor([-1.5708,  0.0000,  1.5708])
    """,
    "asinh": """Inverse hyperbolic sine of each element.

    ``arcsinh`` is an alias.

    Args:
        input (Tensor): the input tensor.

    Returns:
        Tensor: a new tensor of the same shape; integer inputs give the default float dtype.

    Examples:
        >>> import ember
        >>> x = ember.tensor([-1.0, 0.0, 2.0])
        >>> ember.asinh(x)
        tensor([-0.8814,  0.0000,  1.4436])
        >>> x.asinh()
        tensor([-0.8814,  0.0000,  1.4436])
    """,
    "asinh_": """In-place version of :func:`ember.asinh`.

    Overwrites the tensor with the result and returns it. The result must fit the tensor's shape
    and dtype (``self`` is not broadcast, and a float result cannot go into an integer tensor).

    Examples:
        >>> import ember
        >>> x = ember.tensor([-1.0, 0.0, 2.0])
        >>> x.asinh_()
        tensor([-0.8814,  0.0000,  1.4436])
        >>> x
        tensor([-0.8814,  0.0000,  1.4436])
        >>> x = ember.tensor([-1.0, 0.0, 2.0])
        >>> _ = ember.asinh_(x)
        >>> x
        tensor([-0.8814,  0.0000,  1.4436])
    """,
    "atan": """Inverse tangent (arctangent) of each element, in radians.

    Results lie in ``(-pi/2, pi/2)``. ``arctan`` is an alias.

    Args:
        input (Tensor): the input tensor.

    Returns:
        Tensor: a new tensor of the same shape; integer inputs give the default float dtype.

    Examples:
        >>> import ember
        >>> x = ember.tensor([-1.0, 0.0, 1.0])
        >>> ember.atan(x)
        tensor([-0.7854,  0.0000,  0.7854])
        >>> x.atan()
        tensor([-0.7854,  0.0000,  0.7854])
    """,
    "atan2": """Elementwise arctangent of ``input / other`` with the quadrant taken into account.

    The angle, in ``[-pi, pi]``, of the point ``(other, input)``: the first argument is the y
    coordinate. ``arctan2`` is an alias. Both operands broadcast to a common shape and promote
    to a common dtype.

    Args:
        input (Tensor): the first operand.
        other (Tensor): the second operand, broadcast against ``input``.

    Returns:
        Tensor: the elementwise result, of the broadcast shape.

    Raises:
        RuntimeError: the shapes cannot be broadcast together.

    Examples:
        >>> import ember
        >>> x = ember.tensor([1.0, 1.0, -1.0])
        >>> ember.atan2(x, ember.tensor([1.0, -1.0, -1.0]))
        tensor([ 0.7854,  2.3562, -2.3562])
        >>> x.atan2(ember.tensor([1.0, -1.0, -1.0]))
        tensor([ 0.7854,  2.3562, -2.3562])
    """,
    "atan2_": """In-place version of :func:`ember.atan2`.

    Overwrites the tensor with the result and returns it. The result must fit the tensor's shape
    and dtype (``self`` is not broadcast, and a float result cannot go into an integer tensor).

    Examples:
        >>> import ember
        >>> x = ember.tensor([1.0, 1.0, -1.0])
        >>> x.atan2_(ember.tensor([1.0, -1.0, -1.0]))
        tensor([ 0.7854,  2.3562, -2.3562])
        >>> x
        tensor([ 0.7854,  2.3562, -2.3562])
    """,
    "atan_": """In-place version of :func:`ember.atan`.

    Overwrites the tensor with the result and returns it. The result must fit the tensor's shape
    and dtype (``self`` is not broadcast, and a float result cannot go into an integer tensor).

    Examples:
        >>> import ember
        >>> x = ember.tensor([-1.0, 0.0, 1.0])
        >>> x.atan_()
        tensor([-0.7854,  0.0000,  0.7854])
        >>> x
        tensor([-0.7854,  0.0000,  0.7854])
        >>> x = ember.tensor([-1.0, 0.0, 1.0])
        >>> _ = ember.atan_(x)
        >>> x
        tensor([-0.7854,  0.0000,  0.7854])
    """,
    "atanh": """Inverse hyperbolic tangent of each element.

    Defined on ``(-1, 1)``; ``+-1`` give ``+-inf`` and elements outside give ``nan``.
    ``arctanh`` is an alias.

    Args:
        input (Tensor): the input tensor.

    Returns:
        Tensor: a new tensor of the same shape; integer inputs give the default float dtype.

    Examples:
        >>> import ember
        >>> x = ember.tensor([-0.5, 0.0, 0.5])
        >>> ember.atanh(x)
        tensor([-0.5493,  0.0000,  0.5493])
        >>> x.atanh()
        tensor([-0.5493,  0.0000,  0.5493])
    """,
    "atanh_": """In-place version of :func:`ember.atanh`.

    Overwrites the tensor with the result and returns it. The result must fit the tensor's shape
    and dtype (``self`` is not broadcast, and a float result cannot go into an integer tensor).

    Examples:
        >>> import ember
        >>> x = ember.tensor([-0.5, 0.0, 0.5])
        >>> x.atanh_()
        tensor([-0.5493,  0.0000,  0.5493])
        >>> x
        tensor([-0.5493,  0.0000,  0.5493])
        >>> x = ember.tensor([-0.5, 0.0, 0.5])
        >>> _ = ember.atanh_(x)
        >>> x
        tensor([-0.5493,  0.0000,  0.5493])
    """,
    "atleast_1d": """View each tensor with at least 1 dimension.

    Tensors that already have enough dims come back unchanged; smaller ones get leading (and,
    for 3-D, trailing) dimensions of size 1, as in NumPy.

    Args:
        *tensors (Tensor): one tensor, or several (or one sequence).

    Returns:
        Tensor or tuple[Tensor, ...]: one view for one tensor, else a tuple.

    Examples:
        >>> import ember
        >>> ember.atleast_1d(ember.tensor(1.0)).shape
        ember.Size([1])
        >>> [t.shape for t in ember.atleast_1d(ember.ones(2), ember.ones(2, 2))]
        [ember.Size([2]), ember.Size([2, 2])]
    """,
    "atleast_2d": """View each tensor with at least 2 dimensions.

    Tensors that already have enough dims come back unchanged; smaller ones get leading (and,
    for 3-D, trailing) dimensions of size 1, as in NumPy.

    Args:
        *tensors (Tensor): one tensor, or several (or one sequence).

    Returns:
        Tensor or tuple[Tensor, ...]: one view for one tensor, else a tuple.

    Examples:
        >>> import ember
        >>> ember.atleast_2d(ember.tensor(1.0)).shape
        ember.Size([1, 1])
        >>> [t.shape for t in ember.atleast_2d(ember.ones(2), ember.ones(2, 2))]
        [ember.Size([1, 2]), ember.Size([2, 2])]
    """,
    "atleast_3d": """View each tensor with at least 3 dimensions.

    Tensors that already have enough dims come back unchanged; smaller ones get leading (and,
    for 3-D, trailing) dimensions of size 1, as in NumPy.

    Args:
        *tensors (Tensor): one tensor, or several (or one sequence).

    Returns:
        Tensor or tuple[Tensor, ...]: one view for one tensor, else a tuple.

    Examples:
        >>> import ember
        >>> ember.atleast_3d(ember.tensor(1.0)).shape
        ember.Size([1, 1, 1])
        >>> [t.shape for t in ember.atleast_3d(ember.ones(2), ember.ones(2, 2))]
        [ember.Size([1, 2, 1]), ember.Size([2, 2, 1])]
    """,
    "avg_pool1d": """1-D average pooling over windows of ``kernel_size``.

    The same computation as ``ember.nn.functional.avg_pool1d``; prefer that name in new code.

    Args:
        input (Tensor): ``(N, C, L)`` or ``(C, L)``.
        kernel_size (int): the window length.
        stride (int, optional): the step. Default: ``kernel_size``.
        padding (int, optional): zeros added on both sides. Default: 0.
        ceil_mode (bool, optional): round the output length up. Default: False.
        count_include_pad (bool, optional): count padding in the mean. Default: True.

    Returns:
        Tensor: the pooled tensor.

    Examples:
        >>> import ember
        >>> x = ember.arange(6.0).reshape(1, 1, 6)
        >>> ember.avg_pool1d(x, 2)
        tensor([[[0.5000, 2.5000, 4.5000]]])
        >>> ember.avg_pool1d(x, 3, stride=1).shape
        ember.Size([1, 1, 4])
    """,
    "baddbmm": """Batched matrix product added to a batch of matrices.

    Computes ``beta * input + alpha * (batch1 @ batch2)``. Each of the ``b`` products is added
    to the matching matrix of ``input`` (which broadcasts to ``(b, n, p)``).

    Args:
        input (Tensor): the input tensor.
        batch1 (Tensor): shape ``(b, n, m)``.
        batch2 (Tensor): shape ``(b, m, p)``.
        beta (Number, optional): the multiplier of ``input``. Default: 1.
        alpha (Number, optional): the multiplier of the products. Default: 1.

    Returns:
        Tensor: a tensor of shape ``(b, n, p)``.

    Examples:
        >>> import ember
        >>> b1 = ember.ones(2, 1, 3)
        >>> b2 = ember.ones(2, 3, 1)
        >>> ember.baddbmm(ember.tensor([1.0]), b1, b2)
        tensor([[[4.]],
        <BLANKLINE>
                [[4.]]])
        >>> ember.zeros(2, 1, 1).baddbmm(b1, b2).shape
        ember.Size([2, 1, 1])
    """,
    "baddbmm_": """In-place version of :func:`ember.baddbmm`.

    Overwrites the tensor with the result and returns it. The result must fit the tensor's shape
    and dtype (``self`` is not broadcast, and a float result cannot go into an integer tensor).

    Examples:
        >>> import ember
        >>> x = ember.zeros(1, 2, 2)
        >>> x.baddbmm_(ember.ones(1, 2, 1), ember.ones(1, 1, 2))
        tensor([[[1., 1.],
                 [1., 1.]]])
        >>> x
        tensor([[[1., 1.],
                 [1., 1.]]])
    """,
    "Tensor.bernoulli_": """Fill the tensor with 0/1 draws that are 1 with probability ``p``.

    Draws come from the default generator unless ``generator`` is given, so
    :func:`ember.manual_seed` makes them repeatable. The tensor keeps its dtype.

    Args:
        p (float or Tensor, optional): the probability of 1. Default: 0.5.
        generator (ember.Generator, optional): the random source. Default: None.

    Returns:
        Tensor: this tensor.

    Note:
        ember's random streams differ from PyTorch's: the same seed gives other values.

    Examples:
        >>> import ember
        >>> _ = ember.manual_seed(0)
        >>> x = ember.empty(6)
        >>> x.bernoulli_(0.5)
        tensor([1., 1., 1., 1., 0., 1.])
        >>> _ = ember.manual_seed(0)
        >>> ember.equal(ember.empty(6).bernoulli_(0.5), x)
        True
    """,
    "Tensor.bfloat16": """The tensor converted to ``ember.bfloat16``; ``self`` if it already is.

    The same as ``self.to(ember.bfloat16)``. Conversion to an integer dtype truncates toward
    zero; to ``bool``, nonzero gives True.

    Args:
        memory_format (ember.memory_format, optional): the layout of a copy. Default:
            ``ember.preserve_format``.

    Returns:
        Tensor: a ``bfloat16`` tensor.

    Examples:
        >>> import ember
        >>> x = ember.tensor([1.5, 2.0])
        >>> x.bfloat16()
        tensor([1.5000, 2.0000], dtype=ember.bfloat16)
    """,
    "bincount": """Count the occurrences of each value in a tensor of non-negative integers.

    The result has length ``max(input) + 1`` (at least ``minlength``). With ``weights`` each
    occurrence adds its weight instead of 1.

    Args:
        input (Tensor): a 1-D tensor of non-negative integers.
        weights (Tensor, optional): a weight per element of ``input``. Default: None.
        minlength (int, optional): the minimum length of the result. Default: 0.

    Returns:
        Tensor: ``int64`` counts, or float sums with ``weights``.

    Raises:
        RuntimeError: ``input`` is not 1-D or has negative values.

    Examples:
        >>> import ember
        >>> x = ember.tensor([0, 1, 1, 3])
        >>> ember.bincount(x)
        tensor([1, 2, 0, 1])
        >>> x.bincount(minlength=6)
        tensor([1, 2, 0, 1, 0, 0])
        >>> x.bincount(weights=ember.tensor([0.5, 1.0, 1.0, 2.0]))
        tensor([0.5000, 2.0000, 0.0000, 2.0000])
    """,
    "bitwise_and": """Bitwise AND of two integer or boolean tensors.

    Float inputs raise an error. Both operands broadcast to a common shape and promote to a
    common dtype.

    Args:
        input (Tensor): the first operand.
        other (Tensor): the second operand, broadcast against ``input``.

    Returns:
        Tensor: the elementwise result, of the broadcast shape.

    Raises:
        RuntimeError: the shapes cannot be broadcast together.

    Examples:
        >>> import ember
        >>> x = ember.tensor([12, 10, 7])
        >>> ember.bitwise_and(x, ember.tensor([10, 6, 1]))
        tensor([8, 2, 1])
        >>> x.bitwise_and(ember.tensor([10, 6, 1]))
        tensor([8, 2, 1])
    """,
    "bitwise_and_": """In-place version of :func:`ember.bitwise_and`.

    Overwrites the tensor with the result and returns it. The result must fit the tensor's shape
    and dtype (``self`` is not broadcast, and a float result cannot go into an integer tensor).

    Examples:
        >>> import ember
        >>> x = ember.tensor([12, 10, 7])
        >>> x.bitwise_and_(ember.tensor([10, 6, 1]))
        tensor([8, 2, 1])
        >>> x
        tensor([8, 2, 1])
    """,
    "bitwise_left_shift": """Shift the bits of each integer element left.

    Computes ``input << other`` elementwise. Both operands broadcast to a common shape and
    promote to a common dtype.

    Args:
        input (Tensor): the first operand.
        other (Tensor): the second operand, broadcast against ``input``.

    Returns:
        Tensor: the elementwise result, of the broadcast shape.

    Raises:
        RuntimeError: the shapes cannot be broadcast together.

    Examples:
        >>> import ember
        >>> x = ember.tensor([1, 2, 3])
        >>> ember.bitwise_left_shift(x, ember.tensor([1, 2, 3]))
        tensor([ 2,  8, 24])
        >>> x.bitwise_left_shift(ember.tensor([1, 2, 3]))
        tensor([ 2,  8, 24])
    """,
    "bitwise_left_shift_": """In-place version of :func:`ember.bitwise_left_shift`.

    Overwrites the tensor with the result and returns it. The result must fit the tensor's shape
    and dtype (``self`` is not broadcast, and a float result cannot go into an integer tensor).

    Examples:
        >>> import ember
        >>> x = ember.tensor([1, 2, 3])
        >>> x.bitwise_left_shift_(ember.tensor([1, 2, 3]))
        tensor([ 2,  8, 24])
        >>> x
        tensor([ 2,  8, 24])
    """,
    "bitwise_not": """Bitwise NOT of an integer or boolean tensor.

    For ``bool`` it is logical negation; for signed integers ``~x == -x - 1``. Float inputs
    raise an error.

    Args:
        input (Tensor): the input tensor.

    Returns:
        Tensor: a new tensor of the same shape and dtype.

    Examples:
        >>> import ember
        >>> x = ember.tensor([0, 5, -3])
        >>> ember.bitwise_not(x)
        tensor([-1, -6,  2])
        >>> x.bitwise_not()
        tensor([-1, -6,  2])
        >>> ember.tensor([True, False]).bitwise_not()
        tensor([False,  True])
    """,
    "bitwise_not_": """In-place version of :func:`ember.bitwise_not`.

    Overwrites the tensor with the result and returns it. The result must fit the tensor's shape
    and dtype (``self`` is not broadcast, and a float result cannot go into an integer tensor).

    Examples:
        >>> import ember
        >>> x = ember.tensor([0, 5, -3])
        >>> x.bitwise_not_()
        tensor([-1, -6,  2])
        >>> x
        tensor([-1, -6,  2])
    """,
    "bitwise_or": """Bitwise OR of two integer or boolean tensors.

    Float inputs raise an error. Both operands broadcast to a common shape and promote to a
    common dtype.

    Args:
        input (Tensor): the first operand.
        other (Tensor): the second operand, broadcast against ``input``.

    Returns:
        Tensor: the elementwise result, of the broadcast shape.

    Raises:
        RuntimeError: the shapes cannot be broadcast together.

    Examples:
        >>> import ember
        >>> x = ember.tensor([12, 10, 7])
        >>> ember.bitwise_or(x, ember.tensor([10, 6, 1]))
        tensor([14, 14,  7])
        >>> x.bitwise_or(ember.tensor([10, 6, 1]))
        tensor([14, 14,  7])
    """,
    "bitwise_or_": """In-place version of :func:`ember.bitwise_or`.

    Overwrites the tensor with the result and returns it. The result must fit the tensor's shape
    and dtype (``self`` is not broadcast, and a float result cannot go into an integer tensor).

    Examples:
        >>> import ember
        >>> x = ember.tensor([12, 10, 7])
        >>> x.bitwise_or_(ember.tensor([10, 6, 1]))
        tensor([14, 14,  7])
        >>> x
        tensor([14, 14,  7])
    """,
    "bitwise_right_shift": """Shift the bits of each integer element right.

    Computes ``input >> other`` elementwise (an arithmetic shift for signed types). Both
    operands broadcast to a common shape and promote to a common dtype.

    Args:
        input (Tensor): the first operand.
        other (Tensor): the second operand, broadcast against ``input``.

    Returns:
        Tensor: the elementwise result, of the broadcast shape.

    Raises:
        RuntimeError: the shapes cannot be broadcast together.

    Examples:
        >>> import ember
        >>> x = ember.tensor([16, -16, 7])
        >>> ember.bitwise_right_shift(x, ember.tensor([2, 2, 1]))
        tensor([ 4, -4,  3])
        >>> x.bitwise_right_shift(ember.tensor([2, 2, 1]))
        tensor([ 4, -4,  3])
    """,
    "bitwise_right_shift_": """In-place version of :func:`ember.bitwise_right_shift`.

    Overwrites the tensor with the result and returns it. The result must fit the tensor's shape
    and dtype (``self`` is not broadcast, and a float result cannot go into an integer tensor).

    Examples:
        >>> import ember
        >>> x = ember.tensor([16, -16, 7])
        >>> x.bitwise_right_shift_(ember.tensor([2, 2, 1]))
        tensor([ 4, -4,  3])
        >>> x
        tensor([ 4, -4,  3])
    """,
    "bitwise_xor": """Bitwise exclusive OR of two integer or boolean tensors.

    Float inputs raise an error. Both operands broadcast to a common shape and promote to a
    common dtype.

    Args:
        input (Tensor): the first operand.
        other (Tensor): the second operand, broadcast against ``input``.

    Returns:
        Tensor: the elementwise result, of the broadcast shape.

    Raises:
        RuntimeError: the shapes cannot be broadcast together.

    Examples:
        >>> import ember
        >>> x = ember.tensor([12, 10, 7])
        >>> ember.bitwise_xor(x, ember.tensor([10, 6, 1]))
        tensor([ 6, 12,  6])
        >>> x.bitwise_xor(ember.tensor([10, 6, 1]))
        tensor([ 6, 12,  6])
    """,
    "bitwise_xor_": """In-place version of :func:`ember.bitwise_xor`.

    Overwrites the tensor with the result and returns it. The result must fit the tensor's shape
    and dtype (``self`` is not broadcast, and a float result cannot go into an integer tensor).

    Examples:
        >>> import ember
        >>> x = ember.tensor([12, 10, 7])
        >>> x.bitwise_xor_(ember.tensor([10, 6, 1]))
        tensor([ 6, 12,  6])
        >>> x
        tensor([ 6, 12,  6])
    """,
    "bmm": """Batched matrix product of two 3-D tensors.

    For ``input`` of shape ``(b, n, m)`` and ``mat2`` of shape ``(b, m, p)`` it multiplies each
    of the ``b`` pairs, giving ``(b, n, p)``. Unlike :func:`ember.matmul` it does not broadcast.

    Args:
        input (Tensor): the first batch, of shape ``(b, n, m)``.
        mat2 (Tensor): the second batch, of shape ``(b, m, p)``.

    Returns:
        Tensor: the products, of shape ``(b, n, p)``.

    Raises:
        RuntimeError: an operand is not 3-D, or the batch or inner sizes differ.

    Examples:
        >>> import ember
        >>> a = ember.ones(2, 1, 3)
        >>> b = ember.arange(6.0).reshape(2, 3, 1)
        >>> ember.bmm(a, b)
        tensor([[[ 3.]],
        <BLANKLINE>
                [[12.]]])
        >>> a.bmm(b).shape
        ember.Size([2, 1, 1])
    """,
    "Tensor.bool": """The tensor converted to ``ember.bool``; ``self`` if it already is.

    The same as ``self.to(ember.bool)``. Conversion to an integer dtype truncates toward zero;
    to ``bool``, nonzero gives True.

    Args:
        memory_format (ember.memory_format, optional): the layout of a copy. Default:
            ``ember.preserve_format``.

    Returns:
        Tensor: a ``bool`` tensor.

    Examples:
        >>> import ember
        >>> x = ember.tensor([0.0, 2.0])
        >>> x.bool()
        tensor([False,  True])
    """,
    "broadcast_shapes": """The shape that tensors of the given shapes broadcast to.

    Computes the result shape without allocating a tensor.

    Args:
        *shapes (int or sequence of ints): the shapes.

    Returns:
        ember.Size: the broadcast shape.

    Raises:
        RuntimeError: the shapes cannot be broadcast together.

    Examples:
        >>> import ember
        >>> ember.broadcast_shapes((2, 1), (1, 3))
        ember.Size([2, 3])
        >>> ember.broadcast_shapes((5, 1, 4), (4,))
        ember.Size([5, 1, 4])
    """,
    "broadcast_tensors": """Expand tensors to their common broadcast shape.

    The results are views (:meth:`Tensor.expand`): expanded dimensions have stride 0, so write
    to a clone, not to them.

    Args:
        *tensors (Tensor): the tensors.

    Returns:
        tuple[Tensor, ...]: views of the common shape.

    Raises:
        RuntimeError: the shapes cannot be broadcast together.

    Examples:
        >>> import ember
        >>> a, b = ember.broadcast_tensors(ember.tensor([[1], [2]]), ember.tensor([10, 20, 30]))
        >>> a
        tensor([[1, 1, 1],
                [2, 2, 2]])
        >>> b.shape
        ember.Size([2, 3])
    """,
    "broadcast_to": """View a tensor broadcast to a larger shape.

    The same as :meth:`Tensor.expand`: no data is copied, and ``-1`` keeps a size.

    Args:
        input (Tensor): the input tensor.
        size (sequence of ints): the target shape.

    Returns:
        Tensor: a view of ``input``.

    Raises:
        RuntimeError: ``input`` cannot be broadcast to ``size``.

    Examples:
        >>> import ember
        >>> x = ember.tensor([1, 2, 3])
        >>> ember.broadcast_to(x, (2, 3))
        tensor([[1, 2, 3],
                [1, 2, 3]])
        >>> x.broadcast_to(2, -1).shape
        ember.Size([2, 3])
    """,
    "Tensor.byte": """The tensor converted to ``ember.uint8``; ``self`` if it already is.

    The same as ``self.to(ember.uint8)``. Conversion to an integer dtype truncates toward zero;
    to ``bool``, nonzero gives True.

    Args:
        memory_format (ember.memory_format, optional): the layout of a copy. Default:
            ``ember.preserve_format``.

    Returns:
        Tensor: a ``uint8`` tensor.

    Examples:
        >>> import ember
        >>> x = ember.tensor([1.0, 2.7])
        >>> x.byte()
        tensor([1, 2], dtype=ember.uint8)
    """,
    "cartesian_prod": """Cartesian product of 1-D tensors.

    Like ``itertools.product``: each row of the result is one combination.

    Args:
        *tensors (Tensor): 1-D tensors.

    Returns:
        Tensor: a ``(N, len(tensors))`` tensor (1-D for a single input).

    Examples:
        >>> import ember
        >>> ember.cartesian_prod(ember.tensor([1, 2]), ember.tensor([3, 4]))
        tensor([[1, 3],
                [1, 4],
                [2, 3],
                [2, 4]])
    """,
    "Tensor.cauchy_": """Fill the tensor with draws from a Cauchy distribution.

    Draws come from the default generator unless ``generator`` is given, so
    :func:`ember.manual_seed` makes them repeatable. The tensor keeps its dtype.

    Args:
        median (float, optional): the location. Default: 0.
        sigma (float, optional): the scale. Default: 1.
        generator (ember.Generator, optional): the random source. Default: None.

    Returns:
        Tensor: this tensor.

    Note:
        ember's random streams differ from PyTorch's: the same seed gives other values.

    Examples:
        >>> import ember
        >>> _ = ember.manual_seed(0)
        >>> x = ember.empty(6)
        >>> x.cauchy_(median=0.0, sigma=1.0)
        tensor([-22.6134,  -0.9524,  -0.0896,  -3.3856,  15.2335,  -0.9625])
        >>> _ = ember.manual_seed(0)
        >>> ember.equal(ember.empty(6).cauchy_(median=0.0, sigma=1.0), x)
        True
    """,
    "ceil": """Round each element up to the nearest integer.

    The result keeps ``input``'s dtype; integer tensors are returned unchanged.

    Args:
        input (Tensor): the input tensor.

    Returns:
        Tensor: a new tensor of the same shape and dtype.

    Examples:
        >>> import ember
        >>> x = ember.tensor([-1.5, 0.2, 2.0])
        >>> ember.ceil(x)
        tensor([-1.,  1.,  2.])
        >>> x.ceil()
        tensor([-1.,  1.,  2.])
    """,
    "ceil_": """In-place version of :func:`ember.ceil`.

    Overwrites the tensor with the result and returns it. The result must fit the tensor's shape
    and dtype (``self`` is not broadcast, and a float result cannot go into an integer tensor).

    Examples:
        >>> import ember
        >>> x = ember.tensor([-1.5, 0.2, 2.0])
        >>> x.ceil_()
        tensor([-1.,  1.,  2.])
        >>> x
        tensor([-1.,  1.,  2.])
        >>> x = ember.tensor([-1.5, 0.2, 2.0])
        >>> _ = ember.ceil_(x)
        >>> x
        tensor([-1.,  1.,  2.])
    """,
    "chain_matmul": """Matrix product of a sequence of 2-D tensors.

    Computes ``matrices[0] @ matrices[1] @ ...``. Deprecated in PyTorch in favour of
    ``ember.linalg.multi_dot``, which takes a list.

    Args:
        *matrices (Tensor): two or more matrices with matching inner sizes.

    Returns:
        Tensor: the product.

    Examples:
        >>> import ember
        >>> a = ember.tensor([[1.0, 2.0]])
        >>> b = ember.ones(2, 2)
        >>> ember.chain_matmul(a, b, ember.tensor([[1.0], [0.0]]))
        tensor([[3.]])
    """,
    "Tensor.char": """The tensor converted to ``ember.int8``; ``self`` if it already is.

    The same as ``self.to(ember.int8)``. Conversion to an integer dtype truncates toward zero;
    to ``bool``, nonzero gives True.

    Args:
        memory_format (ember.memory_format, optional): the layout of a copy. Default:
            ``ember.preserve_format``.

    Returns:
        Tensor: a ``int8`` tensor.

    Examples:
        >>> import ember
        >>> x = ember.tensor([1.0, -2.7])
        >>> x.char()
        tensor([ 1, -2], dtype=ember.int8)
    """,
    "cholesky": """Cholesky factor of a symmetric positive-definite matrix.

    Returns ``L`` lower triangular with ``a == L @ L.mT`` (or ``U`` upper triangular with ``a ==
    U.mT @ U`` when ``upper=True``). Batches of matrices are supported. Prefer
    ``ember.linalg.cholesky``.

    Args:
        input (Tensor): a matrix or batch of matrices, shape ``(*, n, n)``.
        upper (bool, optional): return the upper factor. Default: False.

    Returns:
        Tensor: the triangular factor, of the same shape.

    Raises:
        RuntimeError: the matrix is not positive-definite (``LinAlgError``, a subclass).

    Examples:
        >>> import ember
        >>> a = ember.tensor([[4.0, 2.0], [2.0, 2.0]])
        >>> L = ember.cholesky(a)
        >>> L
        tensor([[2., 0.],
                [1., 1.]])
        >>> ember.allclose(L @ L.mT, a)
        True
        >>> a.cholesky(upper=True)
        tensor([[2., 1.],
                [0., 1.]])
    """,
    "cholesky_inverse": """Inverse of a positive-definite matrix from its Cholesky factor.

    Given ``L`` with ``a == L @ L.mT`` it returns ``a``'s inverse.

    Args:
        input (Tensor): the triangular factor, shape ``(*, n, n)``.
        upper (bool, optional): ``input`` is the upper factor. Default: False.

    Returns:
        Tensor: the inverse of the original matrix.

    Examples:
        >>> import ember
        >>> a = ember.tensor([[4.0, 2.0], [2.0, 2.0]])
        >>> L = ember.cholesky(a)
        >>> ember.cholesky_inverse(L)
        tensor([[ 0.5000, -0.5000],
                [-0.5000,  1.0000]])
        >>> L.cholesky_inverse().shape
        ember.Size([2, 2])
    """,
    "cholesky_solve": """Solve ``A @ X = B`` given the Cholesky factor of ``A``.

    Args:
        input (Tensor): the right-hand side ``B``, shape ``(*, n, k)``.
        input2 (Tensor): the triangular factor of ``A``, shape ``(*, n, n)``.
        upper (bool, optional): ``input2`` is the upper factor. Default: False.

    Returns:
        Tensor: the solution ``X``, shape ``(*, n, k)``.

    Examples:
        >>> import ember
        >>> a = ember.tensor([[4.0, 2.0], [2.0, 2.0]])
        >>> b = ember.tensor([[6.0], [4.0]])
        >>> ember.cholesky_solve(b, ember.cholesky(a))
        tensor([[1.],
                [1.]])
        >>> b.cholesky_solve(ember.cholesky(a)).shape
        ember.Size([2, 1])
    """,
    "chunk": """Split a tensor into ``chunks`` pieces along ``dim``.

    Each piece is a view of size ``ceil(size / chunks)`` except perhaps the last; fewer than
    ``chunks`` pieces come back when the size does not allow more.

    Args:
        input (Tensor): the input tensor.
        chunks (int): how many pieces (at most).
        dim (int, optional): the dimension to split. Default: 0.

    Returns:
        tuple[Tensor, ...]: views of ``input``.

    Examples:
        >>> import ember
        >>> x = ember.arange(5)
        >>> ember.chunk(x, 2)
        (tensor([0, 1, 2]), tensor([3, 4]))
        >>> x.chunk(3)
        (tensor([0, 1]), tensor([2, 3]), tensor([4]))
        >>> ember.arange(6).reshape(2, 3).chunk(3, dim=1)[0]
        tensor([[0],
                [3]])
    """,
    "clamp_": """In-place version of :func:`ember.clamp`.

    Overwrites the tensor with the result and returns it. The result must fit the tensor's shape
    and dtype (``self`` is not broadcast, and a float result cannot go into an integer tensor).

    Examples:
        >>> import ember
        >>> x = ember.tensor([-1.0, 0.5, 2.0])
        >>> x.clamp_(0, 1)
        tensor([0.0000, 0.5000, 1.0000])
        >>> x
        tensor([0.0000, 0.5000, 1.0000])
        >>> x = ember.tensor([-1.0, 0.5, 2.0])
        >>> _ = ember.clamp_(x, 0, 1)
        >>> x
        tensor([0.0000, 0.5000, 1.0000])
    """,
    "clamp_max": """Clamp every element from above: ``min(input, max)``.

    ``max`` may be a number or a tensor that broadcasts against ``input``.

    Args:
        input (Tensor): the input tensor.
        max (Tensor or Number): the upper bound.

    Returns:
        Tensor: the clamped tensor.

    Examples:
        >>> import ember
        >>> x = ember.tensor([-1.0, 0.5, 2.0])
        >>> ember.clamp_max(x, 1)
        tensor([-1.0000,  0.5000,  1.0000])
        >>> x.clamp_max(0)
        tensor([-1.,  0.,  0.])
    """,
    "clamp_max_": """In-place version of :func:`ember.clamp_max`.

    Overwrites the tensor with the result and returns it. The result must fit the tensor's shape
    and dtype (``self`` is not broadcast, and a float result cannot go into an integer tensor).

    Examples:
        >>> import ember
        >>> x = ember.tensor([-1.0, 0.5, 2.0])
        >>> x.clamp_max_(0)
        tensor([-1.,  0.,  0.])
        >>> x
        tensor([-1.,  0.,  0.])
        >>> x = ember.tensor([-1.0, 0.5, 2.0])
        >>> _ = ember.clamp_max_(x, 0)
        >>> x
        tensor([-1.,  0.,  0.])
    """,
    "clamp_min": """Clamp every element from below: ``max(input, min)``.

    ``min`` may be a number or a tensor that broadcasts against ``input``.

    Args:
        input (Tensor): the input tensor.
        min (Tensor or Number): the lower bound.

    Returns:
        Tensor: the clamped tensor.

    Examples:
        >>> import ember
        >>> x = ember.tensor([-1.0, 0.5, 2.0])
        >>> ember.clamp_min(x, 0)
        tensor([0.0000, 0.5000, 2.0000])
        >>> x.clamp_min(ember.tensor([0.0, 1.0, 0.0]))
        tensor([0., 1., 2.])
    """,
    "clamp_min_": """In-place version of :func:`ember.clamp_min`.

    Overwrites the tensor with the result and returns it. The result must fit the tensor's shape
    and dtype (``self`` is not broadcast, and a float result cannot go into an integer tensor).

    Examples:
        >>> import ember
        >>> x = ember.tensor([-1.0, 0.5, 2.0])
        >>> x.clamp_min_(0)
        tensor([0.0000, 0.5000, 2.0000])
        >>> x
        tensor([0.0000, 0.5000, 2.0000])
        >>> x = ember.tensor([-1.0, 0.5, 2.0])
        >>> _ = ember.clamp_min_(x, 0)
        >>> x
        tensor([0.0000, 0.5000, 2.0000])
    """,
    "clip": """Alias of :func:`ember.clamp`: limit every element to ``[min, max]``.

    Args:
        input (Tensor): the input tensor.
        min (Tensor or Number, optional): the lower bound. Default: None.
        max (Tensor or Number, optional): the upper bound. Default: None.

    Returns:
        Tensor: the clamped tensor.

    Examples:
        >>> import ember
        >>> x = ember.tensor([-1.0, 0.5, 2.0])
        >>> ember.clip(x, 0, 1)
        tensor([0.0000, 0.5000, 1.0000])
        >>> x.clip(max=0)
        tensor([-1.,  0.,  0.])
    """,
    "clip_": """In-place version of :func:`ember.clip`.

    Overwrites the tensor with the result and returns it. The result must fit the tensor's shape
    and dtype (``self`` is not broadcast, and a float result cannot go into an integer tensor).

    Examples:
        >>> import ember
        >>> x = ember.tensor([-1.0, 0.5, 2.0])
        >>> x.clip_(0, 1)
        tensor([0.0000, 0.5000, 1.0000])
        >>> x
        tensor([0.0000, 0.5000, 1.0000])
        >>> x = ember.tensor([-1.0, 0.5, 2.0])
        >>> _ = ember.clip_(x, 0, 1)
        >>> x
        tensor([0.0000, 0.5000, 1.0000])
    """,
    "clone": """A copy of a tensor that owns its memory.

    Autograd sees the copy: gradients flow back to ``input`` (use :meth:`Tensor.detach` too to
    cut the graph). The copy keeps ``input``'s strides when they are dense, unless
    ``memory_format`` says otherwise.

    Args:
        input (Tensor): the input tensor.
        memory_format (ember.memory_format, optional): the layout of the copy. Default:
            ``ember.preserve_format``.

    Returns:
        Tensor: a new tensor with the same values.

    Examples:
        >>> import ember
        >>> x = ember.tensor([1.0, 2.0])
        >>> y = ember.clone(x)
        >>> y[0] = 5.0
        >>> x
        tensor([1., 2.])
        >>> x.clone().data_ptr() == x.data_ptr()
        False
    """,
    "column_stack": """Stack tensors as the columns of a matrix.

    1-D tensors become columns; 2-D tensors are joined along dimension 1 (like
    :func:`ember.hstack` after turning vectors into columns).

    Args:
        tensors (sequence of Tensor): the columns, all with the same number of rows.

    Returns:
        Tensor: a 2-D tensor.

    Examples:
        >>> import ember
        >>> ember.column_stack([ember.tensor([1, 2]), ember.tensor([3, 4])])
        tensor([[1, 3],
                [2, 4]])
    """,
    "combinations": """Combinations of the elements of a 1-D tensor, of length ``r``.

    Like ``itertools.combinations`` (or with replacement).

    Args:
        input (Tensor): a 1-D tensor.
        r (int, optional): the length of each combination. Default: 2.
        with_replacement (bool, optional): allow repeated elements. Default: False.

    Returns:
        Tensor: a ``(N, r)`` tensor, one combination per row.

    Examples:
        >>> import ember
        >>> x = ember.tensor([1, 2, 3])
        >>> ember.combinations(x)
        tensor([[1, 2],
                [1, 3],
                [2, 3]])
        >>> ember.combinations(x, r=2, with_replacement=True).shape
        ember.Size([6, 2])
    """,
    "concat": """Alias of :func:`ember.cat`: join tensors along an existing dimension.

    Args:
        tensors (sequence of Tensor): tensors of the same shape except along ``dim``.
        dim (int, optional): the dimension to join along. Default: 0.

    Returns:
        Tensor: the joined tensor.

    Examples:
        >>> import ember
        >>> x = ember.tensor([[1, 2]])
        >>> ember.concat([x, x])
        tensor([[1, 2],
                [1, 2]])
        >>> ember.concat((x, x), dim=1)
        tensor([[1, 2, 1, 2]])
    """,
    "concatenate": """Alias of :func:`ember.cat` (NumPy's name): join tensors along a dimension.

    Args:
        tensors (sequence of Tensor): tensors of the same shape except along ``axis``.
        axis (int, optional): the dimension to join along. Default: 0.

    Returns:
        Tensor: the joined tensor.

    Examples:
        >>> import ember
        >>> x = ember.tensor([[1, 2]])
        >>> ember.concatenate([x, x], axis=1)
        tensor([[1, 2, 1, 2]])
    """,
    "conj": """The complex conjugate of a tensor; ``input`` itself for ember's real dtypes.

    ember has no complex dtypes, so ``conj``, ``resolve_conj`` and ``resolve_neg`` return
    ``input`` unchanged (they are one function).

    Args:
        input (Tensor): the input tensor.

    Returns:
        Tensor: ``input``.

    Examples:
        >>> import ember
        >>> x = ember.tensor([1.0, -2.0])
        >>> ember.conj(x) is x
        True
        >>> x.conj()
        tensor([ 1., -2.])
    """,
    "conj_physical": """The complex conjugate of a tensor, computed into new memory.

    ember has no complex dtypes, so the result has ``input``'s values.

    Args:
        input (Tensor): the input tensor.

    Returns:
        Tensor: a tensor equal to ``input``.

    Examples:
        >>> import ember
        >>> x = ember.tensor([1.0, -2.0])
        >>> ember.conj_physical(x)
        tensor([ 1., -2.])
    """,
    "constant_pad_nd": """Pad a tensor with a constant value.

    ``pad`` lists ``(before, after)`` pairs starting from the last dimension, as in
    ``ember.nn.functional.pad``; negative amounts crop.

    Args:
        input (Tensor): the input tensor.
        pad (sequence of ints): the amounts, last dimension first.
        value (Number, optional): the fill value. Default: 0.

    Returns:
        Tensor: the padded tensor.

    Examples:
        >>> import ember
        >>> ember.constant_pad_nd(ember.ones(2), (1, 2), 0.5)
        tensor([0.5000, 1.0000, 1.0000, 0.5000, 0.5000])
        >>> ember.constant_pad_nd(ember.ones(2, 2), (0, 0, 1, 0)).shape
        ember.Size([3, 2])
    """,
    "Tensor.contiguous": """This tensor's data in row-major (C-contiguous) order.

    Returns ``self`` when the tensor is already contiguous in ``memory_format``, else a
    contiguous copy. Call it before :meth:`Tensor.view` on a transposed tensor, or before
    handing memory to code that expects a dense layout.

    Args:
        memory_format (ember.memory_format, optional): the layout wanted. Default:
            ``ember.contiguous_format``.

    Returns:
        Tensor: ``self`` or a contiguous copy.

    Examples:
        >>> import ember
        >>> x = ember.tensor([[1, 2], [3, 4]]).t()
        >>> x.is_contiguous()
        False
        >>> y = x.contiguous()
        >>> y.is_contiguous(), y.stride()
        (True, (2, 1))
        >>> y.contiguous() is y
        True
    """,
    "conv1d": """1-D convolution (cross-correlation) of an input with a filter bank.

    The same computation as ``ember.nn.functional.conv1d``; prefer that name in new code.

    Args:
        input (Tensor): ``(N, C_in, L)`` (or without the batch dimension).
        weight (Tensor): ``(C_out, C_in / groups, k)``.
        bias (Tensor, optional): ``(C_out,)``. Default: None.
        stride (int or tuple, optional): the step of the filter. Default: 1.
        padding (int, tuple or str, optional): zeros added on both sides, or ``'valid'`` /
            ``'same'``. Default: 0.
        dilation (int or tuple, optional): the spacing of filter taps. Default: 1.
        groups (int, optional): split channels into this many groups. Default: 1.

    Returns:
        Tensor: the output feature maps.

    Raises:
        RuntimeError: the channel counts of ``input`` and ``weight`` do not match.

    Examples:
        >>> import ember
        >>> x = ember.ones(1, 1, 4)
        >>> w = ember.ones(1, 1, 2)
        >>> ember.conv1d(x, w)
        tensor([[[2., 2., 2.]]])
        >>> ember.conv1d(x, w, padding=1).shape
        ember.Size([1, 1, 5])
    """,
    "conv2d": """2-D convolution (cross-correlation) of an input with a filter bank.

    The same computation as ``ember.nn.functional.conv2d``; prefer that name in new code.

    Args:
        input (Tensor): ``(N, C_in, H, W)`` (or without the batch dimension).
        weight (Tensor): ``(C_out, C_in / groups, kH, kW)``.
        bias (Tensor, optional): ``(C_out,)``. Default: None.
        stride (int or tuple, optional): the step of the filter. Default: 1.
        padding (int, tuple or str, optional): zeros added on both sides, or ``'valid'`` /
            ``'same'``. Default: 0.
        dilation (int or tuple, optional): the spacing of filter taps. Default: 1.
        groups (int, optional): split channels into this many groups. Default: 1.

    Returns:
        Tensor: the output feature maps.

    Raises:
        RuntimeError: the channel counts of ``input`` and ``weight`` do not match.

    Examples:
        >>> import ember
        >>> x = ember.ones(1, 1, 3, 3)
        >>> w = ember.ones(1, 1, 2, 2)
        >>> ember.conv2d(x, w)
        tensor([[[[4., 4.],
                  [4., 4.]]]])
        >>> ember.conv2d(x, w, padding=1).shape
        ember.Size([1, 1, 4, 4])
    """,
    "conv_transpose1d": """1-D transposed convolution, the adjoint of ``conv1d``.

    The same computation as ``ember.nn.functional.conv_transpose1d``; prefer that name in new
    code. It upsamples: each input element scatters a scaled copy of the filter into the output.

    Args:
        input (Tensor): ``(N, C_in, *spatial)`` (or without the batch dimension).
        weight (Tensor): ``(C_in, C_out / groups, *kernel)``.
        bias (Tensor, optional): ``(C_out,)``. Default: None.
        stride (int or tuple, optional): the upsampling step. Default: 1.
        padding (int or tuple, optional): removed from both sides. Default: 0.
        output_padding (int or tuple, optional): added to one side. Default: 0.
        groups (int, optional): split channels into this many groups. Default: 1.
        dilation (int or tuple, optional): the spacing of filter taps. Default: 1.

    Returns:
        Tensor: the output feature maps.

    Examples:
        >>> import ember
        >>> x = ember.ones(1, 1, 2)
        >>> w = ember.ones(1, 1, 2)
        >>> ember.conv_transpose1d(x, w)
        tensor([[[1., 2., 1.]]])
        >>> ember.conv_transpose1d(x, w, stride=2).shape
        ember.Size([1, 1, 4])
    """,
    "conv_transpose2d": """2-D transposed convolution, the adjoint of ``conv2d``.

    The same computation as ``ember.nn.functional.conv_transpose2d``; prefer that name in new
    code. It upsamples: each input element scatters a scaled copy of the filter into the output.

    Args:
        input (Tensor): ``(N, C_in, *spatial)`` (or without the batch dimension).
        weight (Tensor): ``(C_in, C_out / groups, *kernel)``.
        bias (Tensor, optional): ``(C_out,)``. Default: None.
        stride (int or tuple, optional): the upsampling step. Default: 1.
        padding (int or tuple, optional): removed from both sides. Default: 0.
        output_padding (int or tuple, optional): added to one side. Default: 0.
        groups (int, optional): split channels into this many groups. Default: 1.
        dilation (int or tuple, optional): the spacing of filter taps. Default: 1.

    Returns:
        Tensor: the output feature maps.

    Examples:
        >>> import ember
        >>> x = ember.ones(1, 1, 2, 2)
        >>> w = ember.ones(1, 1, 2, 2)
        >>> ember.conv_transpose2d(x, w)
        tensor([[[[1., 2., 1.],
                  [2., 4., 2.],
                  [1., 2., 1.]]]])
        >>> ember.conv_transpose2d(x, w, stride=2).shape
        ember.Size([1, 1, 4, 4])
    """,
    "convolution": """General N-d convolution or transposed convolution (what ``conv*d`` call).

    ``transposed`` selects a transposed convolution; the number of spatial dimensions follows
    ``weight``.

    Args:
        input (Tensor): ``(N, C_in, *spatial)``.
        weight (Tensor): the filters.
        bias (Tensor or None): ``(C_out,)``.
        stride (sequence of ints): the steps.
        padding (sequence of ints): the padding.
        dilation (sequence of ints): the spacing.
        transposed (bool): a transposed convolution.
        output_padding (sequence of ints): extra output size (transposed only).
        groups (int): the channel groups.

    Returns:
        Tensor: the output feature maps.

    Examples:
        >>> import ember
        >>> x = ember.ones(1, 1, 4)
        >>> w = ember.ones(1, 1, 2)
        >>> ember.convolution(x, w, None, [1], [0], [1], False, [0], 1)
        tensor([[[2., 2., 2.]]])
    """,
    "Tensor.copy_": """Copy the elements of ``src`` into this tensor, in place.

    ``src`` broadcasts to this tensor's shape and is cast to its dtype; it may live on another
    device. Gradients flow to ``src``.

    Args:
        src (Tensor): the values to copy.
        non_blocking (bool, optional): allow an asynchronous copy between devices. Default: False.

    Returns:
        Tensor: this tensor.

    Raises:
        RuntimeError: ``src`` cannot be broadcast to this tensor's shape.

    Examples:
        >>> import ember
        >>> x = ember.zeros(2, 3)
        >>> x.copy_(ember.tensor([1, 2, 3]))
        tensor([[1., 2., 3.],
                [1., 2., 3.]])
    """,
    "copysign": """Magnitude of ``input`` with the sign of ``other``, elementwise.

    The result is a float tensor. Both operands broadcast to a common shape and promote to a
    common dtype.

    Args:
        input (Tensor): the first operand.
        other (Tensor): the second operand, broadcast against ``input``.

    Returns:
        Tensor: the elementwise result, of the broadcast shape.

    Raises:
        RuntimeError: the shapes cannot be broadcast together.

    Examples:
        >>> import ember
        >>> x = ember.tensor([1.0, -2.0, 3.0])
        >>> ember.copysign(x, ember.tensor([-1.0, 1.0, -0.0]))
        tensor([-1.,  2., -3.])
        >>> x.copysign(ember.tensor([-1.0, 1.0, -0.0]))
        tensor([-1.,  2., -3.])
    """,
    "copysign_": """In-place version of :func:`ember.copysign`.

    Overwrites the tensor with the result and returns it. The result must fit the tensor's shape
    and dtype (``self`` is not broadcast, and a float result cannot go into an integer tensor).

    Examples:
        >>> import ember
        >>> x = ember.tensor([1.0, -2.0, 3.0])
        >>> x.copysign_(-1.0)
        tensor([-1., -2., -3.])
        >>> x
        tensor([-1., -2., -3.])
    """,
    "corrcoef": """Pearson correlation coefficients of the rows of a matrix.

    Each row is a variable and each column an observation.

    Args:
        input (Tensor): a 1-D or 2-D tensor.

    Returns:
        Tensor: the correlation matrix, ``(rows, rows)``.

    Examples:
        >>> import ember
        >>> x = ember.tensor([[1.0, 2.0, 3.0], [3.0, 2.0, 1.0]])
        >>> ember.corrcoef(x)
        tensor([[ 1., -1.],
                [-1.,  1.]])
        >>> x.corrcoef().shape
        ember.Size([2, 2])
    """,
    "cos": """Cosine of each element (in radians).

    Args:
        input (Tensor): the input tensor.

    Returns:
        Tensor: a new tensor of the same shape; integer inputs give the default float dtype.

    Examples:
        >>> import ember
        >>> x = ember.tensor([0.0, 1.0, 3.1416])
        >>> ember.cos(x)
        tensor([ 1.0000,  0.5403, -1.0000])
        >>> x.cos()
        tensor([ 1.0000,  0.5403, -1.0000])
    """,
    "cos_": """In-place version of :func:`ember.cos`.

    Overwrites the tensor with the result and returns it. The result must fit the tensor's shape
    and dtype (``self`` is not broadcast, and a float result cannot go into an integer tensor).

    Examples:
        >>> import ember
        >>> x = ember.tensor([0.0, 1.0, 3.1416])
        >>> x.cos_()
        tensor([ 1.0000,  0.5403, -1.0000])
        >>> x
        tensor([ 1.0000,  0.5403, -1.0000])
        >>> x = ember.tensor([0.0, 1.0, 3.1416])
        >>> _ = ember.cos_(x)
        >>> x
        tensor([ 1.0000,  0.5403, -1.0000])
    """,
    "cosh": """Hyperbolic cosine of each element.

    Args:
        input (Tensor): the input tensor.

    Returns:
        Tensor: a new tensor of the same shape; integer inputs give the default float dtype.

    Examples:
        >>> import ember
        >>> x = ember.tensor([-1.0, 0.0, 1.0])
        >>> ember.cosh(x)
        tensor([1.5431, 1.0000, 1.5431])
        >>> x.cosh()
        tensor([1.5431, 1.0000, 1.5431])
    """,
    "cosh_": """In-place version of :func:`ember.cosh`.

    Overwrites the tensor with the result and returns it. The result must fit the tensor's shape
    and dtype (``self`` is not broadcast, and a float result cannot go into an integer tensor).

    Examples:
        >>> import ember
        >>> x = ember.tensor([-1.0, 0.0, 1.0])
        >>> x.cosh_()
        tensor([1.5431, 1.0000, 1.5431])
        >>> x
        tensor([1.5431, 1.0000, 1.5431])
        >>> x = ember.tensor([-1.0, 0.0, 1.0])
        >>> _ = ember.cosh_(x)
        >>> x
        tensor([1.5431, 1.0000, 1.5431])
    """,
    "count_nonzero": """Count the nonzero elements, over everything or along ``dim``.

    Args:
        input (Tensor): the input tensor.
        dim (int or tuple of ints, optional): the dimensions to count over. Default: None (all).

    Returns:
        Tensor: ``int64`` counts.

    Examples:
        >>> import ember
        >>> x = ember.tensor([[0.0, 1.0], [2.0, 3.0]])
        >>> ember.count_nonzero(x)
        tensor(3)
        >>> x.count_nonzero(dim=0)
        tensor([1, 2])
    """,
    "cov": """Covariance matrix of the rows of a matrix.

    Each row is a variable and each column an observation. ``correction=1`` gives the unbiased
    estimate; ``fweights`` and ``aweights`` weight the observations.

    Args:
        input (Tensor): a 1-D or 2-D tensor.
        correction (int, optional): subtracted from the number of observations. Default: 1.
        fweights (Tensor, optional): integer frequency weights. Default: None.
        aweights (Tensor, optional): observation weights. Default: None.

    Returns:
        Tensor: the covariance matrix, ``(rows, rows)``.

    Examples:
        >>> import ember
        >>> x = ember.tensor([[1.0, 2.0, 3.0], [3.0, 2.0, 1.0]])
        >>> ember.cov(x)
        tensor([[ 1., -1.],
                [-1.,  1.]])
        >>> x.cov(correction=0)
        tensor([[ 0.6667, -0.6667],
                [-0.6667,  0.6667]])
    """,
    "Tensor.cpu": """A copy of the tensor in CPU memory, or ``self`` if it already is there.

    Autograd records the copy, so gradients flow back to the original device.

    Args:
        memory_format (ember.memory_format, optional): the layout of a copy. Default:
            ``ember.preserve_format``.

    Returns:
        Tensor: a CPU tensor.

    Examples:
        >>> import ember
        >>> x = ember.ones(2)
        >>> x.cpu() is x
        True
        >>> x.cpu().device
        device(type='cpu')
    """,
    "cross": """Cross product of two tensors of 3-vectors.

    ``dim`` picks the dimension of size 3; without it the first dimension of size 3 is used
    (PyTorch deprecates that default: prefer ``ember.linalg.cross``, whose default is
    ``dim=-1``).

    Args:
        input (Tensor): the first vectors.
        other (Tensor): the second vectors.
        dim (int, optional): the dimension of size 3. Default: None.

    Returns:
        Tensor: the cross products.

    Examples:
        >>> import ember
        >>> x = ember.tensor([1.0, 0.0, 0.0])
        >>> ember.cross(x, ember.tensor([0.0, 1.0, 0.0]), dim=0)
        tensor([0., 0., 1.])
        >>> x.cross(ember.tensor([0.0, 0.0, 1.0]), dim=0)
        tensor([ 0., -1.,  0.])
    """,
    "Tensor.cuda": """A copy of the tensor on a CUDA GPU, or ``self`` if it already is there.

    Needs ember's ``cuda`` device plugin and a GPU; ``ember.cuda.is_available()`` says whether
    both are there.

    Args:
        device (int or ember.device, optional): which GPU. Default: the current one.
        non_blocking (bool, optional): allow an asynchronous copy. Default: False.

    Returns:
        Tensor: a tensor on the GPU.

    Raises:
        AssertionError: no CUDA device is available (as in PyTorch).

    Examples:
        >>> import ember
        >>> x = ember.ones(2)
        >>> y = x.cuda() if ember.cuda.is_available() else x
        >>> y.shape
        ember.Size([2])
    """,
    "cummax": """Running maximum along ``dim``, with the index where it was found.

    Args:
        input (Tensor): the input tensor.
        dim (int): the dimension to scan.

    Returns:
        tuple[Tensor, Tensor]: a named tuple ``(values, indices)``.

    Note:
        The result prints as ``ValuesIndices(values=..., indices=...)``; PyTorch's prints as
        ``torch.return_types.cummax(...)``. Both unpack the same way.

    Examples:
        >>> import ember
        >>> x = ember.tensor([1.0, 3.0, 2.0, 0.0])
        >>> values, indices = ember.cummax(x, dim=0)
        >>> values
        tensor([1., 3., 3., 3.])
        >>> indices
        tensor([0, 1, 1, 1])
        >>> x.cummax(0).values
        tensor([1., 3., 3., 3.])
    """,
    "cummin": """Running minimum along ``dim``, with the index where it was found.

    Args:
        input (Tensor): the input tensor.
        dim (int): the dimension to scan.

    Returns:
        tuple[Tensor, Tensor]: a named tuple ``(values, indices)``.

    Note:
        The result prints as ``ValuesIndices(values=..., indices=...)``; PyTorch's prints as
        ``torch.return_types.cummin(...)``. Both unpack the same way.

    Examples:
        >>> import ember
        >>> x = ember.tensor([1.0, 3.0, 2.0, 0.0])
        >>> values, indices = ember.cummin(x, dim=0)
        >>> values
        tensor([1., 1., 1., 0.])
        >>> indices
        tensor([0, 0, 0, 3])
        >>> x.cummin(0).values
        tensor([1., 1., 1., 0.])
    """,
    "cumprod": """Cumulative product of the elements along ``dim``.

    ``out[i] = input[0] * ... * input[i]`` along ``dim``. Integer and ``bool`` inputs accumulate
    in ``int64`` unless ``dtype`` says otherwise.

    Args:
        input (Tensor): the input tensor.
        dim (int): the dimension to accumulate along.
        dtype (ember.dtype, optional): cast ``input`` to this dtype first. Default: None.

    Returns:
        Tensor: a tensor of ``input``'s shape.

    Examples:
        >>> import ember
        >>> x = ember.tensor([[1, 2, 3], [4, 5, 6]])
        >>> ember.cumprod(x, dim=1)
        tensor([[  1,   2,   6],
                [  4,  20, 120]])
        >>> x.cumprod(0)
        tensor([[ 1,  2,  3],
                [ 4, 10, 18]])
    """,
    "Tensor.cumprod_": """In-place version of :func:`ember.cumprod`: accumulates into the tensor.

    Examples:
        >>> import ember
        >>> x = ember.tensor([1.0, 2.0, 3.0])
        >>> x.cumprod_(0)
        tensor([1., 2., 6.])
        >>> x
        tensor([1., 2., 6.])
    """,
    "cumsum": """Cumulative sum of the elements along ``dim``.

    ``out[i] = input[0] + ... + input[i]`` along ``dim``. Integer and ``bool`` inputs accumulate
    in ``int64`` unless ``dtype`` says otherwise.

    Args:
        input (Tensor): the input tensor.
        dim (int): the dimension to accumulate along.
        dtype (ember.dtype, optional): cast ``input`` to this dtype first. Default: None.

    Returns:
        Tensor: a tensor of ``input``'s shape.

    Examples:
        >>> import ember
        >>> x = ember.tensor([[1, 2, 3], [4, 5, 6]])
        >>> ember.cumsum(x, dim=1)
        tensor([[ 1,  3,  6],
                [ 4,  9, 15]])
        >>> x.cumsum(0)
        tensor([[1, 2, 3],
                [5, 7, 9]])
    """,
    "Tensor.cumsum_": """In-place version of :func:`ember.cumsum`: accumulates into the tensor.

    Examples:
        >>> import ember
        >>> x = ember.tensor([1.0, 2.0, 3.0])
        >>> x.cumsum_(0)
        tensor([1., 3., 6.])
        >>> x
        tensor([1., 3., 6.])
    """,
    "cumulative_trapezoid": """Cumulative integral of ``y`` by the trapezoidal rule along ``dim``.

    Args:
        y (Tensor): the values to integrate.
        x (Tensor, optional): the sample points. Default: None (use ``dx``).
        dx (float, optional): the spacing when ``x`` is not given. Default: 1.
        dim (int, optional): the dimension. Default: -1.

    Returns:
        Tensor: one element fewer than ``y`` along ``dim``.

    Examples:
        >>> import ember
        >>> y = ember.tensor([1.0, 2.0, 3.0])
        >>> ember.cumulative_trapezoid(y)
        tensor([1.5000, 4.0000])
        >>> ember.cumulative_trapezoid(y, dx=0.5)
        tensor([0.7500, 2.0000])
    """,
    "Tensor.data": """The tensor's values without autograd history (a tensor sharing its memory).

    Changes made through ``.data`` are not seen by autograd, which can silently give wrong
    gradients; prefer :meth:`Tensor.detach` and ``with ember.no_grad():``. Assigning ``x.data =
    y`` swaps in ``y``'s memory.

    Examples:
        >>> import ember
        >>> x = ember.tensor([1.0, 2.0], requires_grad=True)
        >>> x.data
        tensor([1., 2.])
        >>> x.data.requires_grad
        False
    """,
    "Tensor.data_ptr": """The address of the tensor's first element, as an integer.

    Two tensors that share memory from the same offset have equal ``data_ptr()``.

    Returns:
        int: the memory address.

    Examples:
        >>> import ember
        >>> x = ember.zeros(4)
        >>> x.data_ptr() == x[:2].data_ptr()
        True
        >>> x[1:].data_ptr() - x.data_ptr()
        4
    """,
    "deg2rad": """Convert each element from degrees to radians.

    Multiplies by ``pi / 180``.

    Args:
        input (Tensor): the input tensor.

    Returns:
        Tensor: a new tensor of the same shape; integer inputs give the default float dtype.

    Examples:
        >>> import ember
        >>> x = ember.tensor([0.0, 90.0, 180.0])
        >>> ember.deg2rad(x)
        tensor([0.0000, 1.5708, 3.1416])
        >>> x.deg2rad()
        tensor([0.0000, 1.5708, 3.1416])
    """,
    "deg2rad_": """In-place version of :func:`ember.deg2rad`.

    Overwrites the tensor with the result and returns it. The result must fit the tensor's shape
    and dtype (``self`` is not broadcast, and a float result cannot go into an integer tensor).

    Examples:
        >>> import ember
        >>> x = ember.tensor([0.0, 90.0, 180.0])
        >>> x.deg2rad_()
        tensor([0.0000, 1.5708, 3.1416])
        >>> x
        tensor([0.0000, 1.5708, 3.1416])
        >>> x = ember.tensor([0.0, 90.0, 180.0])
        >>> _ = ember.deg2rad_(x)
        >>> x
        tensor([0.0000, 1.5708, 3.1416])
    """,
    "det": """Determinant of a square matrix or batch of matrices.

    Args:
        input (Tensor): shape ``(*, n, n)``.

    Returns:
        Tensor: the determinants, shape ``(*)``.

    Raises:
        RuntimeError: the last two dimensions are not square.

    Examples:
        >>> import ember
        >>> a = ember.tensor([[2.0, 1.0], [1.0, 1.0]])
        >>> ember.det(a)
        tensor(1.)
        >>> a.det()
        tensor(1.)
    """,
    "detach": """A tensor sharing ``input``'s memory but cut from the autograd graph.

    The result never requires grad, and operations on it are not recorded. Because the memory is
    shared, in-place changes to either are seen by both (and an in-place change needed by
    backward is reported as an error there).

    Args:
        input (Tensor): the input tensor.

    Returns:
        Tensor: a view of ``input`` that does not require grad.

    Examples:
        >>> import ember
        >>> x = ember.tensor([1.0, 2.0], requires_grad=True)
        >>> y = (x * 2).detach()
        >>> y
        tensor([2., 4.])
        >>> y.requires_grad
        False
        >>> ember.detach(x).data_ptr() == x.data_ptr()
        True
    """,
    "Tensor.detach_": """Detach the tensor from the autograd graph, in place.

    The tensor becomes a leaf that does not require grad. Views cannot be detached in place (use
    :meth:`Tensor.detach`).

    Returns:
        Tensor: this tensor.

    Examples:
        >>> import ember
        >>> x = ember.ones(2, requires_grad=True) * 2
        >>> x.detach_()
        tensor([2., 2.])
        >>> x.requires_grad
        False
    """,
    "detach_copy": """A copy of ``input`` detached from autograd.

    Like :meth:`Tensor.detach` but the result owns new memory.

    Args:
        input (Tensor): the input tensor.

    Returns:
        Tensor: a new tensor that does not require grad.

    Examples:
        >>> import ember
        >>> x = ember.ones(2, requires_grad=True)
        >>> ember.detach_copy(x)
        tensor([1., 1.])
    """,
    "Tensor.device": """The device that holds the tensor's memory.

    Read-only: use :meth:`Tensor.to` to move a tensor.

    Examples:
        >>> import ember
        >>> x = ember.zeros(2)
        >>> x.device
        device(type='cpu')
        >>> x.device.type
        'cpu'
    """,
    "diag": """Build a diagonal matrix from a vector, or take a diagonal of a matrix.

    A 1-D ``input`` gives a 2-D tensor with ``input`` on diagonal ``diagonal``; a 2-D ``input``
    gives that diagonal as a new 1-D tensor (a copy, unlike :func:`ember.diagonal`).

    Args:
        input (Tensor): a 1-D or 2-D tensor.
        diagonal (int, optional): which diagonal (0 is the main one). Default: 0.

    Returns:
        Tensor: a 2-D or 1-D tensor.

    Raises:
        RuntimeError: ``input`` is not 1-D or 2-D.

    Examples:
        >>> import ember
        >>> ember.diag(ember.tensor([1, 2]))
        tensor([[1, 0],
                [0, 2]])
        >>> ember.diag(ember.tensor([1, 2]), 1)
        tensor([[0, 1, 0],
                [0, 0, 2],
                [0, 0, 0]])
        >>> ember.tensor([[1, 2], [3, 4]]).diag()
        tensor([1, 4])
    """,
    "diag_embed": """Put the last dimension of ``input`` onto the diagonals of new matrices.

    Batched :func:`ember.diag`: a ``(*, n)`` input gives ``(*, n, n)`` (larger with an ``offset``).

    Args:
        input (Tensor): the input tensor.
        offset (int, optional): which diagonal. Default: 0.
        dim1 (int, optional): the first new dimension. Default: -2.
        dim2 (int, optional): the second new dimension. Default: -1.

    Returns:
        Tensor: a tensor with one more dimension.

    Examples:
        >>> import ember
        >>> x = ember.tensor([[1, 2], [3, 4]])
        >>> ember.diag_embed(x)[1]
        tensor([[3, 0],
                [0, 4]])
        >>> x.diag_embed().shape
        ember.Size([2, 2, 2])
    """,
    "diagflat": """A 2-D tensor with the flattened ``input`` on a diagonal.

    Args:
        input (Tensor): the input tensor.
        offset (int, optional): which diagonal. Default: 0.

    Returns:
        Tensor: a square matrix.

    Examples:
        >>> import ember
        >>> x = ember.tensor([[1, 2], [3, 4]])
        >>> ember.diagflat(x).shape
        ember.Size([4, 4])
        >>> ember.tensor([1, 2]).diagflat(-1)
        tensor([[0, 0, 0],
                [1, 0, 0],
                [0, 2, 0]])
    """,
    "diagonal": """View of the diagonal of a tensor with respect to ``dim1`` and ``dim2``.

    ``offset > 0`` selects a diagonal above the main one, ``offset < 0`` below. The two
    dimensions are removed and the diagonal becomes the last dimension. The result shares
    ``input``'s memory.

    Args:
        input (Tensor): the input tensor.
        offset (int, optional): which diagonal. Default: 0.
        dim1 (int, optional): the first dimension. Default: 0.
        dim2 (int, optional): the second dimension. Default: 1.

    Returns:
        Tensor: a view of ``input``.

    Examples:
        >>> import ember
        >>> x = ember.tensor([[1, 2, 3], [4, 5, 6]])
        >>> ember.diagonal(x)
        tensor([1, 5])
        >>> x.diagonal(offset=1)
        tensor([2, 6])
    """,
    "diagonal_copy": """A copy of :func:`ember.diagonal`'s view.

    Args:
        input (Tensor): the input tensor.
        offset (int, optional): which diagonal. Default: 0.
        dim1 (int, optional): the first dimension. Default: 0.
        dim2 (int, optional): the second dimension. Default: 1.

    Returns:
        Tensor: a new tensor.

    Examples:
        >>> import ember
        >>> ember.diagonal_copy(ember.tensor([[1, 2], [3, 4]]))
        tensor([1, 4])
    """,
    "diagonal_scatter": """A copy of ``input`` with ``src`` written onto a diagonal.

    The out-of-place form of ``input.diagonal(offset, dim1, dim2).copy_(src)``.

    Args:
        input (Tensor): the input tensor.
        src (Tensor): the diagonal values.
        offset (int, optional): which diagonal. Default: 0.
        dim1 (int, optional): the first dimension. Default: 0.
        dim2 (int, optional): the second dimension. Default: 1.

    Returns:
        Tensor: a new tensor.

    Examples:
        >>> import ember
        >>> x = ember.zeros(2, 3)
        >>> ember.diagonal_scatter(x, ember.ones(2))
        tensor([[1., 0., 0.],
                [0., 1., 0.]])
        >>> x.diagonal_scatter(ember.tensor([5.0, 6.0]), 1)
        tensor([[0., 5., 0.],
                [0., 0., 6.]])
    """,
    "diff": """The ``n``-th forward difference along ``dim``.

    ``out[i] = input[i + 1] - input[i]``, applied ``n`` times. ``prepend`` and ``append`` are
    joined to ``input`` first.

    Args:
        input (Tensor): the input tensor.
        n (int, optional): how many times to difference. Default: 1.
        dim (int, optional): the dimension. Default: -1.
        prepend (Tensor, optional): values put before ``input``. Default: None.
        append (Tensor, optional): values put after ``input``. Default: None.

    Returns:
        Tensor: ``input``'s shape less ``n`` along ``dim`` (plus what was joined).

    Examples:
        >>> import ember
        >>> x = ember.tensor([1, 4, 9, 16])
        >>> ember.diff(x)
        tensor([3, 5, 7])
        >>> x.diff(n=2)
        tensor([2, 2])
        >>> x.diff(prepend=ember.tensor([0]))
        tensor([1, 3, 5, 7])
    """,
    "digamma": """Logarithmic derivative of the gamma function, elementwise.

    Computes ``d/dx log(gamma(x))``; it is ``-inf`` at zero.

    Args:
        input (Tensor): the input tensor.

    Returns:
        Tensor: a new tensor of the same shape; integer inputs give the default float dtype.

    Examples:
        >>> import ember
        >>> x = ember.tensor([1.0, 2.0, 0.5])
        >>> ember.digamma(x)
        tensor([-0.5772,  0.4228, -1.9635])
        >>> x.digamma()
        tensor([-0.5772,  0.4228, -1.9635])
    """,
    "digamma_": """In-place version of :func:`ember.digamma`.

    Overwrites the tensor with the result and returns it. The result must fit the tensor's shape
    and dtype (``self`` is not broadcast, and a float result cannot go into an integer tensor).

    Examples:
        >>> import ember
        >>> x = ember.tensor([1.0, 2.0, 0.5])
        >>> x.digamma_()
        tensor([-0.5772,  0.4228, -1.9635])
        >>> x
        tensor([-0.5772,  0.4228, -1.9635])
    """,
    "Tensor.dim": """The number of dimensions of the tensor.

    ``ndim`` and ``ndimension()`` give the same.

    Returns:
        int: ``len(self.shape)``.

    Examples:
        >>> import ember
        >>> ember.zeros(2, 3).dim()
        2
        >>> ember.tensor(1.0).dim()
        0
    """,
    "div": """Divide ``input`` by ``other``, elementwise.

    True division by default: integer inputs give a float result. ``rounding_mode`` ``'trunc'``
    rounds the quotient toward zero and ``'floor'`` rounds it down; both keep integer dtypes.
    The operands broadcast. ``divide`` is an alias.

    Args:
        input (Tensor): the dividend.
        other (Tensor or Number): the divisor, broadcast against ``input``.
        rounding_mode (str, optional): None, ``'trunc'`` or ``'floor'``. Default: None.

    Returns:
        Tensor: the quotient.

    Raises:
        RuntimeError: the shapes cannot be broadcast together.
        ValueError: ``rounding_mode`` is not one of the three (PyTorch raises RuntimeError).

    Examples:
        >>> import ember
        >>> x = ember.tensor([-7, 7])
        >>> ember.div(x, 2)
        tensor([-3.5000,  3.5000])
        >>> x.div(2, rounding_mode='floor')
        tensor([-4,  3])
        >>> x.div(2, rounding_mode='trunc')
        tensor([-3,  3])
    """,
    "Tensor.div_": """In-place version of :func:`ember.div`: divides the tensor and returns it.

    ``divide_`` and ``true_divide_`` are aliases. An integer tensor cannot hold a true quotient:
    pass ``rounding_mode`` for it.

    Examples:
        >>> import ember
        >>> x = ember.tensor([2.0, 5.0])
        >>> x.div_(2)
        tensor([1.0000, 2.5000])
        >>> x
        tensor([1.0000, 2.5000])
        >>> y = ember.tensor([7, -7])
        >>> y.div_(2, rounding_mode='floor')
        tensor([ 3, -4])
    """,
    "divide": """Alias of :func:`ember.div` (divide ``input`` by ``other``).

    Examples:
        >>> import ember
        >>> x = ember.tensor([1.0, 3.0])
        >>> ember.divide(x, 2)
        tensor([0.5000, 1.5000])
        >>> x.divide(2)
        tensor([0.5000, 1.5000])
    """,
    "dot": """Dot product of two 1-D tensors.

    Unlike NumPy's ``dot`` it does not accept matrices (see :func:`ember.matmul`), and both
    vectors must have the same dtype.

    Args:
        input (Tensor): a vector.
        other (Tensor): a vector of the same length.

    Returns:
        Tensor: a 0-dim tensor.

    Raises:
        RuntimeError: an operand is not 1-D, the lengths differ or the dtypes differ.

    Examples:
        >>> import ember
        >>> x = ember.tensor([1.0, 2.0, 3.0])
        >>> ember.dot(x, x)
        tensor(14.)
        >>> x.dot(ember.ones(3))
        tensor(6.)
    """,
    "Tensor.double": """The tensor converted to ``ember.float64``; ``self`` if it already is.

    The same as ``self.to(ember.float64)``. Conversion to an integer dtype truncates toward
    zero; to ``bool``, nonzero gives True.

    Args:
        memory_format (ember.memory_format, optional): the layout of a copy. Default:
            ``ember.preserve_format``.

    Returns:
        Tensor: a ``float64`` tensor.

    Examples:
        >>> import ember
        >>> x = ember.tensor([1, 2])
        >>> x.double()
        tensor([1., 2.], dtype=ember.float64)
    """,
    "dsplit": """Split a tensor depthwise (along the third dimension) into views.

    ``input`` must have at least 3 dims. An int gives that many equal pieces; a list gives the
    indices to split before.

    Args:
        input (Tensor): the input tensor.
        indices_or_sections (int or list of ints): pieces or split points.

    Returns:
        tuple[Tensor, ...]: views of ``input``.

    Examples:
        >>> import ember
        >>> x = ember.arange(8).reshape(1, 2, 4)
        >>> [p.shape for p in ember.dsplit(x, 2)]
        [ember.Size([1, 2, 2]), ember.Size([1, 2, 2])]
        >>> x.dsplit([3])[1]
        tensor([[[3],
                 [7]]])
    """,
    "dstack": """Join tensors depthwise (along the third dimension).

    Each tensor is first made at least 3-D (as :func:`ember.atleast_3d` does).

    Args:
        tensors (sequence of Tensor): the tensors to join.

    Returns:
        Tensor: a tensor of at least 3 dims.

    Examples:
        >>> import ember
        >>> a = ember.tensor([1, 2])
        >>> ember.dstack([a, a])
        tensor([[[1, 1],
                 [2, 2]]])
        >>> ember.dstack([a, a]).shape
        ember.Size([1, 2, 2])
    """,
    "Tensor.dtype": """The element type of the tensor, such as ``ember.float32``.

    Read-only: use :meth:`Tensor.to` to convert.

    Examples:
        >>> import ember
        >>> ember.tensor([1.0]).dtype
        ember.float32
        >>> ember.tensor([1]).dtype
        ember.int64
        >>> ember.tensor([True]).dtype
        ember.bool
    """,
    "dtype.is_complex": """Whether the dtype is a complex type; False for every ember dtype.

    ember has no complex dtypes yet.

    Examples:
        >>> import ember
        >>> ember.float32.is_complex
        False
    """,
    "dtype.is_floating_point": """Whether the dtype is a floating-point type.

    True for ``float16``, ``bfloat16``, ``float32`` and ``float64``.

    Examples:
        >>> import ember
        >>> ember.float32.is_floating_point
        True
        >>> ember.int64.is_floating_point
        False
    """,
    "Tensor.element_size": """The size of one element in bytes.

    Returns:
        int: the size in bytes of the tensor's dtype.

    Examples:
        >>> import ember
        >>> ember.zeros(2).element_size()
        4
        >>> ember.zeros(2, dtype=ember.int64).element_size()
        8
    """,
    "embedding": """Look up rows of an embedding matrix by index.

    The same computation as ``ember.nn.functional.embedding``, with the arguments in the
    operator's order: ``weight`` first.

    Args:
        weight (Tensor): the table, ``(num_embeddings, dim)``.
        indices (Tensor): ``int64`` row indices, any shape.
        padding_idx (int, optional): a row that gets no gradient. Default: -1 (none).
        scale_grad_by_freq (bool, optional): scale gradients by inverse frequency. Default: False.
        sparse (bool, optional): accepted for compatibility. Default: False.

    Returns:
        Tensor: ``indices.shape + (dim,)``.

    Examples:
        >>> import ember
        >>> w = ember.tensor([[0.0, 0.0], [1.0, 1.0], [2.0, 2.0]])
        >>> ember.embedding(w, ember.tensor([2, 0]))
        tensor([[2., 2.],
                [0., 0.]])
    """,
    "empty": """A new tensor whose memory is left uninitialised.

    The fastest factory: use it when every element will be written before it is read. The size
    may be given as separate integers or one sequence.

    Args:
        *size (int or sequence of ints): the shape.
        dtype (ember.dtype, optional): the element type. Default: the default float dtype (see
            :func:`ember.set_default_dtype`).
        device (ember.device or str, optional): where to allocate. Default: the default device.
        requires_grad (bool, optional): record operations on the result for autograd. Default:
            False.

    Returns:
        Tensor: a tensor of the given shape with arbitrary contents.

    Raises:
        RuntimeError: a size is negative.

    Examples:
        >>> import ember
        >>> x = ember.empty(2, 3)
        >>> x.shape
        ember.Size([2, 3])
        >>> ember.empty((2, 3), dtype=ember.int64).dtype
        ember.int64
    """,
    "empty_like": """An uninitialised tensor with the shape of ``input``.

    The dtype and device follow ``input`` unless given.

    Args:
        input (Tensor): the input tensor.
        dtype (ember.dtype, optional): the element type. Default: ``input``'s.
        device (ember.device or str, optional): the device. Default: ``input``'s.
        requires_grad (bool, optional): record operations on the result for autograd. Default:
            False.

    Returns:
        Tensor: a tensor of ``input``'s shape with arbitrary contents.

    Examples:
        >>> import ember
        >>> x = ember.ones(2, 3, dtype=ember.int32)
        >>> y = ember.empty_like(x)
        >>> y.shape, y.dtype
        (ember.Size([2, 3]), ember.int32)
    """,
    "empty_strided": """An uninitialised tensor with an explicit shape and stride.

    Use it to reproduce another tensor's memory layout.

    Args:
        size (sequence of ints): the shape.
        stride (sequence of ints): the step, in elements, of each dimension.
        dtype (ember.dtype, optional): the element type. Default: the default float dtype (see
            :func:`ember.set_default_dtype`).
        device (ember.device or str, optional): where to allocate. Default: the default device.
        requires_grad (bool, optional): record operations on the result for autograd. Default:
            False.

    Returns:
        Tensor: a tensor with the given shape and stride.

    Examples:
        >>> import ember
        >>> x = ember.empty_strided((2, 3), (1, 2))
        >>> x.shape, x.stride()
        (ember.Size([2, 3]), (1, 2))
        >>> x.is_contiguous()
        False
    """,
    "eq": """Test elementwise whether ``input`` is equal to ``other``.

    The same as ``input == other``: the operands broadcast and promote, and the result is a
    ``bool`` tensor.

    Args:
        input (Tensor): the tensor to compare.
        other (Tensor or Number): the second operand, broadcast against ``input``.

    Returns:
        Tensor: a ``bool`` tensor of the broadcast shape.

    Raises:
        RuntimeError: the shapes cannot be broadcast together.

    Examples:
        >>> import ember
        >>> x = ember.tensor([1.0, 2.0, 3.0])
        >>> ember.eq(x, ember.tensor([1.0, 5.0, 3.0]))
        tensor([ True, False,  True])
        >>> x.eq(2)
        tensor([False,  True, False])
        >>> x == 2
        tensor([False,  True, False])
    """,
    "eq_": """In-place version of :func:`ember.eq`.

    Overwrites the tensor with the result and returns it. The result must fit the tensor's shape
    and dtype (``self`` is not broadcast, and a float result cannot go into an integer tensor).

    Examples:
        >>> import ember
        >>> x = ember.tensor([1.0, 2.0, 3.0])
        >>> x.eq_(2)
        tensor([0., 1., 0.])
        >>> x
        tensor([0., 1., 0.])
    """,
    "equal": """Test whether two tensors have the same shape and elements.

    Returns a Python bool (unlike :func:`ember.eq`, which compares elementwise).

    Args:
        input (Tensor): the first tensor.
        other (Tensor): the second tensor.

    Returns:
        bool: True when the shapes and all elements are equal.

    Examples:
        >>> import ember
        >>> x = ember.tensor([1.0, 2.0])
        >>> ember.equal(x, ember.tensor([1.0, 2.0]))
        True
        >>> x.equal(ember.tensor([1.0, 2.0, 3.0]))
        False
    """,
    "erf": """Gauss error function of each element.

    ``erf(x) = 2/sqrt(pi) * integral from 0 to x of exp(-t**2) dt``.

    Args:
        input (Tensor): the input tensor.

    Returns:
        Tensor: a new tensor of the same shape; integer inputs give the default float dtype.

    Examples:
        >>> import ember
        >>> x = ember.tensor([-1.0, 0.0, 0.5])
        >>> ember.erf(x)
        tensor([-0.8427,  0.0000,  0.5205])
        >>> x.erf()
        tensor([-0.8427,  0.0000,  0.5205])
    """,
    "erf_": """In-place version of :func:`ember.erf`.

    Overwrites the tensor with the result and returns it. The result must fit the tensor's shape
    and dtype (``self`` is not broadcast, and a float result cannot go into an integer tensor).

    Examples:
        >>> import ember
        >>> x = ember.tensor([-1.0, 0.0, 0.5])
        >>> x.erf_()
        tensor([-0.8427,  0.0000,  0.5205])
        >>> x
        tensor([-0.8427,  0.0000,  0.5205])
        >>> x = ember.tensor([-1.0, 0.0, 0.5])
        >>> _ = ember.erf_(x)
        >>> x
        tensor([-0.8427,  0.0000,  0.5205])
    """,
    "erfc": """Complementary error function of each element.

    ``erfc(x) = 1 - erf(x)``, computed without the cancellation of the subtraction.

    Args:
        input (Tensor): the input tensor.

    Returns:
        Tensor: a new tensor of the same shape; integer inputs give the default float dtype.

    Examples:
        >>> import ember
        >>> x = ember.tensor([-1.0, 0.0, 0.5])
        >>> ember.erfc(x)
        tensor([1.8427, 1.0000, 0.4795])
        >>> x.erfc()
        tensor([1.8427, 1.0000, 0.4795])
    """,
    "erfc_": """In-place version of :func:`ember.erfc`.

    Overwrites the tensor with the result and returns it. The result must fit the tensor's shape
    and dtype (``self`` is not broadcast, and a float result cannot go into an integer tensor).

    Examples:
        >>> import ember
        >>> x = ember.tensor([-1.0, 0.0, 0.5])
        >>> x.erfc_()
        tensor([1.8427, 1.0000, 0.4795])
        >>> x
        tensor([1.8427, 1.0000, 0.4795])
        >>> x = ember.tensor([-1.0, 0.0, 0.5])
        >>> _ = ember.erfc_(x)
        >>> x
        tensor([1.8427, 1.0000, 0.4795])
    """,
    "erfinv": """Inverse error function of each element.

    Defined on ``[-1, 1]``: ``erfinv(erf(x)) == x``; ``+-1`` give ``+-inf``.

    Args:
        input (Tensor): the input tensor.

    Returns:
        Tensor: a new tensor of the same shape; integer inputs give the default float dtype.

    Examples:
        >>> import ember
        >>> x = ember.tensor([-0.5, 0.0, 0.5])
        >>> ember.erfinv(x)
        tensor([-0.4769,  0.0000,  0.4769])
        >>> x.erfinv()
        tensor([-0.4769,  0.0000,  0.4769])
    """,
    "erfinv_": """In-place version of :func:`ember.erfinv`.

    Overwrites the tensor with the result and returns it. The result must fit the tensor's shape
    and dtype (``self`` is not broadcast, and a float result cannot go into an integer tensor).

    Examples:
        >>> import ember
        >>> x = ember.tensor([-0.5, 0.0, 0.5])
        >>> x.erfinv_()
        tensor([-0.4769,  0.0000,  0.4769])
        >>> x
        tensor([-0.4769,  0.0000,  0.4769])
    """,
    "exp": """Exponential of each element.

    Computes ``e ** x``.

    Args:
        input (Tensor): the input tensor.

    Returns:
        Tensor: a new tensor of the same shape; integer inputs give the default float dtype.

    Examples:
        >>> import ember
        >>> x = ember.tensor([0.0, 1.0, 2.0])
        >>> ember.exp(x)
        tensor([1.0000, 2.7183, 7.3891])
        >>> x.exp()
        tensor([1.0000, 2.7183, 7.3891])
    """,
    "exp2": """Base-two exponential of each element.

    Computes ``2 ** x``.

    Args:
        input (Tensor): the input tensor.

    Returns:
        Tensor: a new tensor of the same shape; integer inputs give the default float dtype.

    Examples:
        >>> import ember
        >>> x = ember.tensor([0.0, 1.0, 3.0])
        >>> ember.exp2(x)
        tensor([1., 2., 8.])
        >>> x.exp2()
        tensor([1., 2., 8.])
    """,
    "exp2_": """In-place version of :func:`ember.exp2`.

    Overwrites the tensor with the result and returns it. The result must fit the tensor's shape
    and dtype (``self`` is not broadcast, and a float result cannot go into an integer tensor).

    Examples:
        >>> import ember
        >>> x = ember.tensor([0.0, 1.0, 3.0])
        >>> x.exp2_()
        tensor([1., 2., 8.])
        >>> x
        tensor([1., 2., 8.])
        >>> x = ember.tensor([0.0, 1.0, 3.0])
        >>> _ = ember.exp2_(x)
        >>> x
        tensor([1., 2., 8.])
    """,
    "exp_": """In-place version of :func:`ember.exp`.

    Overwrites the tensor with the result and returns it. The result must fit the tensor's shape
    and dtype (``self`` is not broadcast, and a float result cannot go into an integer tensor).

    Examples:
        >>> import ember
        >>> x = ember.tensor([0.0, 1.0, 2.0])
        >>> x.exp_()
        tensor([1.0000, 2.7183, 7.3891])
        >>> x
        tensor([1.0000, 2.7183, 7.3891])
        >>> x = ember.tensor([0.0, 1.0, 2.0])
        >>> _ = ember.exp_(x)
        >>> x
        tensor([1.0000, 2.7183, 7.3891])
    """,
    "Tensor.expand": """View the tensor with singleton dimensions repeated to a larger size.

    Only dimensions of size 1 can grow, and new dimensions can be added at the front; ``-1``
    keeps a size. No memory is copied: expanded dimensions have stride 0, so do not write to the
    result (clone it first). Use :meth:`Tensor.repeat` for a copy.

    Args:
        *sizes (int or sequence of ints): the target shape.

    Returns:
        Tensor: a view of this tensor.

    Raises:
        RuntimeError: a non-singleton dimension would change size.

    Examples:
        >>> import ember
        >>> x = ember.tensor([[1], [2]])
        >>> x.expand(2, 3)
        tensor([[1, 1, 1],
                [2, 2, 2]])
        >>> x.expand(3, -1, 2).shape
        ember.Size([3, 2, 2])
        >>> x.expand(2, 3).stride()
        (1, 0)
    """,
    "Tensor.expand_as": """Expand the tensor to the shape of ``other``.

    The same as ``self.expand(other.size())``.

    Args:
        other (Tensor): the tensor whose shape to take.

    Returns:
        Tensor: a view of this tensor.

    Examples:
        >>> import ember
        >>> x = ember.tensor([[1], [2]])
        >>> x.expand_as(ember.zeros(2, 3))
        tensor([[1, 1, 1],
                [2, 2, 2]])
    """,
    "expand_copy": """A copy of :meth:`Tensor.expand`'s view.

    Args:
        input (Tensor): the input tensor.
        size (sequence of ints): the target shape (``-1`` keeps a size).

    Returns:
        Tensor: a new contiguous tensor of the expanded shape.

    Examples:
        >>> import ember
        >>> ember.expand_copy(ember.tensor([[1], [2]]), (2, 3))
        tensor([[1, 1, 1],
                [2, 2, 2]])
    """,
    "expm1": """Exponential of each element, minus one.

    Computes ``exp(x) - 1``, accurately for ``x`` near zero.

    Args:
        input (Tensor): the input tensor.

    Returns:
        Tensor: a new tensor of the same shape; integer inputs give the default float dtype.

    Examples:
        >>> import ember
        >>> x = ember.tensor([0.0, 1e-05, 1.0])
        >>> ember.expm1(x)
        tensor([0.0000e+00, 1.0000e-05, 1.7183e+00])
        >>> x.expm1()
        tensor([0.0000e+00, 1.0000e-05, 1.7183e+00])
    """,
    "expm1_": """In-place version of :func:`ember.expm1`.

    Overwrites the tensor with the result and returns it. The result must fit the tensor's shape
    and dtype (``self`` is not broadcast, and a float result cannot go into an integer tensor).

    Examples:
        >>> import ember
        >>> x = ember.tensor([0.0, 1e-05, 1.0])
        >>> x.expm1_()
        tensor([0.0000e+00, 1.0000e-05, 1.7183e+00])
        >>> x
        tensor([0.0000e+00, 1.0000e-05, 1.7183e+00])
        >>> x = ember.tensor([0.0, 1e-05, 1.0])
        >>> _ = ember.expm1_(x)
        >>> x
        tensor([0.0000e+00, 1.0000e-05, 1.7183e+00])
    """,
    "Tensor.exponential_": """Fill the tensor with draws from an exponential distribution.

    Draws come from the default generator unless ``generator`` is given, so
    :func:`ember.manual_seed` makes them repeatable. The tensor keeps its dtype.

    Args:
        lambd (float, optional): the rate (the mean is ``1 / lambd``). Default: 1.
        generator (ember.Generator, optional): the random source. Default: None.

    Returns:
        Tensor: this tensor.

    Note:
        ember's random streams differ from PyTorch's: the same seed gives other values.

    Examples:
        >>> import ember
        >>> _ = ember.manual_seed(0)
        >>> x = ember.empty(6)
        >>> x.exponential_(lambd=2.0)
        tensor([0.0071, 0.1490, 0.3189, 0.0479, 1.9348, 0.1479])
        >>> _ = ember.manual_seed(0)
        >>> ember.equal(ember.empty(6).exponential_(lambd=2.0), x)
        True
    """,
    "eye": """A 2-D tensor with ones on the diagonal and zeros elsewhere.

    Args:
        n (int): the number of rows.
        m (int, optional): the number of columns. Default: ``n``.
        dtype (ember.dtype, optional): the element type. Default: the default float dtype (see
            :func:`ember.set_default_dtype`).
        device (ember.device or str, optional): where to allocate. Default: the default device.
        requires_grad (bool, optional): record operations on the result for autograd. Default:
            False.

    Returns:
        Tensor: an ``(n, m)`` identity matrix.

    Raises:
        RuntimeError: ``n`` or ``m`` is negative.

    Examples:
        >>> import ember
        >>> ember.eye(2)
        tensor([[1., 0.],
                [0., 1.]])
        >>> ember.eye(2, 3, dtype=ember.int64)
        tensor([[1, 0, 0],
                [0, 1, 0]])
    """,
    "fill": """A new tensor like ``input`` with every element set to ``value``.

    The out-of-place form of :meth:`Tensor.fill_`.

    Args:
        input (Tensor): the input tensor.
        value (Number or Tensor): the value (a 0-dim tensor is allowed).

    Returns:
        Tensor: a tensor of ``input``'s shape and dtype.

    Examples:
        >>> import ember
        >>> x = ember.zeros(3)
        >>> ember.fill(x, 2.5)
        tensor([2.5000, 2.5000, 2.5000])
        >>> x
        tensor([0., 0., 0.])
    """,
    "Tensor.fill_": """Set every element of the tensor to ``value``, in place.

    Args:
        value (Number or Tensor): the value (a 0-dim tensor is allowed).

    Returns:
        Tensor: this tensor.

    Examples:
        >>> import ember
        >>> x = ember.zeros(2, 2)
        >>> x.fill_(3)
        tensor([[3., 3.],
                [3., 3.]])
        >>> x[0].fill_(-1)
        tensor([-1., -1.])
        >>> x
        tensor([[-1., -1.],
                [ 3.,  3.]])
    """,
    "Tensor.fill_diagonal_": """Set the main diagonal of the tensor to ``fill_value``, in place.

    For a tall matrix ``wrap=True`` starts the diagonal again below every ``n + 1`` rows.
    Tensors of more than 2 dims must have all sizes equal.

    Args:
        fill_value (Number): the value.
        wrap (bool, optional): wrap the diagonal of a tall matrix. Default: False.

    Returns:
        Tensor: this tensor.

    Examples:
        >>> import ember
        >>> x = ember.zeros(3, 3)
        >>> x.fill_diagonal_(5)
        tensor([[5., 0., 0.],
                [0., 5., 0.],
                [0., 0., 5.]])
    """,
    "fix": """Round each element toward zero (an alias of ``trunc``).

    Drops the fractional part: ``fix(-1.5) == -1``.

    Args:
        input (Tensor): the input tensor.

    Returns:
        Tensor: a new tensor of the same shape and dtype.

    Examples:
        >>> import ember
        >>> x = ember.tensor([-1.5, 0.5, 2.7])
        >>> ember.fix(x)
        tensor([-1.,  0.,  2.])
        >>> x.fix()
        tensor([-1.,  0.,  2.])
    """,
    "fix_": """In-place version of :func:`ember.fix`.

    Overwrites the tensor with the result and returns it. The result must fit the tensor's shape
    and dtype (``self`` is not broadcast, and a float result cannot go into an integer tensor).

    Examples:
        >>> import ember
        >>> x = ember.tensor([-1.5, 0.5, 2.7])
        >>> x.fix_()
        tensor([-1.,  0.,  2.])
        >>> x
        tensor([-1.,  0.,  2.])
        >>> x = ember.tensor([-1.5, 0.5, 2.7])
        >>> _ = ember.fix_(x)
        >>> x
        tensor([-1.,  0.,  2.])
    """,
    "flatten": """Flatten a range of dimensions of a tensor into one.

    Dimensions ``start_dim`` to ``end_dim`` (both included) are merged. The result is a view
    when the memory layout allows it, else a copy. A 0-dim tensor gives a 1-D one.

    Args:
        input (Tensor): the input tensor.
        start_dim (int, optional): the first dimension to merge. Default: 0.
        end_dim (int, optional): the last dimension to merge. Default: -1.

    Returns:
        Tensor: the flattened tensor.

    Examples:
        >>> import ember
        >>> x = ember.zeros(2, 3, 4)
        >>> ember.flatten(x).shape
        ember.Size([24])
        >>> x.flatten(1).shape
        ember.Size([2, 12])
        >>> x.flatten(0, 1).shape
        ember.Size([6, 4])
    """,
    "flip": """Reverse the order of elements along the given dimensions.

    The result is a copy (PyTorch copies too; NumPy returns a view).

    Args:
        input (Tensor): the input tensor.
        dims (int or sequence of ints): the dimensions to reverse.

    Returns:
        Tensor: a new tensor.

    Examples:
        >>> import ember
        >>> x = ember.tensor([[1, 2], [3, 4]])
        >>> ember.flip(x, [0])
        tensor([[3, 4],
                [1, 2]])
        >>> x.flip(0, 1)
        tensor([[4, 3],
                [2, 1]])
    """,
    "fliplr": """Reverse the order of columns (dimension 1) of a tensor.

    Args:
        input (Tensor): a tensor of at least 2 dims.

    Returns:
        Tensor: a new tensor.

    Examples:
        >>> import ember
        >>> x = ember.tensor([[1, 2], [3, 4]])
        >>> ember.fliplr(x)
        tensor([[2, 1],
                [4, 3]])
        >>> x.fliplr()
        tensor([[2, 1],
                [4, 3]])
    """,
    "flipud": """Reverse the order of rows (dimension 0) of a tensor.

    Args:
        input (Tensor): a tensor of at least 1 dim.

    Returns:
        Tensor: a new tensor.

    Examples:
        >>> import ember
        >>> x = ember.tensor([[1, 2], [3, 4]])
        >>> ember.flipud(x)
        tensor([[3, 4],
                [1, 2]])
        >>> x.flipud()
        tensor([[3, 4],
                [1, 2]])
    """,
    "Tensor.float": """The tensor converted to ``ember.float32``; ``self`` if it already is.

    The same as ``self.to(ember.float32)``. Conversion to an integer dtype truncates toward
    zero; to ``bool``, nonzero gives True.

    Args:
        memory_format (ember.memory_format, optional): the layout of a copy. Default:
            ``ember.preserve_format``.

    Returns:
        Tensor: a ``float32`` tensor.

    Examples:
        >>> import ember
        >>> x = ember.tensor([1, 2])
        >>> x.float()
        tensor([1., 2.])
    """,
    "Tensor.float_power": """Raise ``input`` to ``exponent`` in double precision, elementwise.

    Both operands are converted to ``float64`` first, so the result is always ``float64``
    (unlike :func:`ember.pow`).

    Args:
        input (Tensor or Number): the base.
        exponent (Tensor or Number): the exponent, broadcast against ``input``.

    Returns:
        Tensor: a ``float64`` tensor.

    Examples:
        >>> import ember
        >>> x = ember.tensor([1, 2, 3])
        >>> x.float_power(2)
        tensor([1., 4., 9.], dtype=ember.float64)
        >>> x.float_power(0.5)
        tensor([1.0000, 1.4142, 1.7321], dtype=ember.float64)
    """,
    "Tensor.float_power_": """In-place version of :meth:`Tensor.float_power`.

    The tensor must already be ``float64``: the result of ``float_power`` always is.

    Raises:
        RuntimeError: the tensor is not ``float64``.

    Examples:
        >>> import ember
        >>> x = ember.tensor([1.0, 2.0, 3.0], dtype=ember.float64)
        >>> x.float_power_(2)
        tensor([1., 4., 9.], dtype=ember.float64)
    """,
    "floor": """Round each element down to the nearest integer.

    The result keeps ``input``'s dtype; integer tensors are returned unchanged.

    Args:
        input (Tensor): the input tensor.

    Returns:
        Tensor: a new tensor of the same shape and dtype.

    Examples:
        >>> import ember
        >>> x = ember.tensor([-1.5, 0.2, 2.0])
        >>> ember.floor(x)
        tensor([-2.,  0.,  2.])
        >>> x.floor()
        tensor([-2.,  0.,  2.])
    """,
    "floor_": """In-place version of :func:`ember.floor`.

    Overwrites the tensor with the result and returns it. The result must fit the tensor's shape
    and dtype (``self`` is not broadcast, and a float result cannot go into an integer tensor).

    Examples:
        >>> import ember
        >>> x = ember.tensor([-1.5, 0.2, 2.0])
        >>> x.floor_()
        tensor([-2.,  0.,  2.])
        >>> x
        tensor([-2.,  0.,  2.])
        >>> x = ember.tensor([-1.5, 0.2, 2.0])
        >>> _ = ember.floor_(x)
        >>> x
        tensor([-2.,  0.,  2.])
    """,
    "floor_divide": """Divide elementwise and round the quotient down (floor division).

    Matches Python's ``//``: ``floor_divide(-7, 2) == -4``. ``other`` may be a number. Both
    operands broadcast to a common shape and promote to a common dtype.

    Args:
        input (Tensor): the first operand.
        other (Tensor): the second operand, broadcast against ``input``.

    Returns:
        Tensor: the elementwise result, of the broadcast shape.

    Raises:
        RuntimeError: the shapes cannot be broadcast together.

    Examples:
        >>> import ember
        >>> x = ember.tensor([7, -7, 9])
        >>> ember.floor_divide(x, 2)
        tensor([ 3, -4,  4])
        >>> x.floor_divide(2)
        tensor([ 3, -4,  4])
    """,
    "floor_divide_": """In-place version of :func:`ember.floor_divide`.

    Overwrites the tensor with the result and returns it. The result must fit the tensor's shape
    and dtype (``self`` is not broadcast, and a float result cannot go into an integer tensor).

    Examples:
        >>> import ember
        >>> x = ember.tensor([7, -7, 9])
        >>> x.floor_divide_(2)
        tensor([ 3, -4,  4])
        >>> x
        tensor([ 3, -4,  4])
    """,
    "fmax": """Elementwise maximum that ignores NaN.

    Where exactly one operand is ``nan`` the other is returned (``maximum`` would give ``nan``).
    Both operands broadcast to a common shape and promote to a common dtype.

    Args:
        input (Tensor): the first operand.
        other (Tensor): the second operand, broadcast against ``input``.

    Returns:
        Tensor: the elementwise result, of the broadcast shape.

    Raises:
        RuntimeError: the shapes cannot be broadcast together.

    Examples:
        >>> import ember
        >>> x = ember.tensor([1.0, float('nan'), 3.0])
        >>> ember.fmax(x, ember.tensor([2.0, 0.0, float('nan')]))
        tensor([2., 0., 3.])
        >>> x.fmax(ember.tensor([2.0, 0.0, float('nan')]))
        tensor([2., 0., 3.])
    """,
    "fmin": """Elementwise minimum that ignores NaN.

    Where exactly one operand is ``nan`` the other is returned (``minimum`` would give ``nan``).
    Both operands broadcast to a common shape and promote to a common dtype.

    Args:
        input (Tensor): the first operand.
        other (Tensor): the second operand, broadcast against ``input``.

    Returns:
        Tensor: the elementwise result, of the broadcast shape.

    Raises:
        RuntimeError: the shapes cannot be broadcast together.

    Examples:
        >>> import ember
        >>> x = ember.tensor([1.0, float('nan'), 3.0])
        >>> ember.fmin(x, ember.tensor([2.0, 0.0, float('nan')]))
        tensor([1., 0., 3.])
        >>> x.fmin(ember.tensor([2.0, 0.0, float('nan')]))
        tensor([1., 0., 3.])
    """,
    "fmod": """Remainder of division with the sign of the dividend (C's ``fmod``).

    ``fmod(-3, 2) == -1``; :func:`ember.remainder` takes the sign of the divisor instead.
    ``other`` may be a number. Both operands broadcast to a common shape and promote to a common
    dtype.

    Args:
        input (Tensor): the first operand.
        other (Tensor): the second operand, broadcast against ``input``.

    Returns:
        Tensor: the elementwise result, of the broadcast shape.

    Raises:
        RuntimeError: the shapes cannot be broadcast together.

    Examples:
        >>> import ember
        >>> x = ember.tensor([-3.0, 3.0, 5.5])
        >>> ember.fmod(x, 2)
        tensor([-1.0000,  1.0000,  1.5000])
        >>> x.fmod(2)
        tensor([-1.0000,  1.0000,  1.5000])
    """,
    "fmod_": """In-place version of :func:`ember.fmod`.

    Overwrites the tensor with the result and returns it. The result must fit the tensor's shape
    and dtype (``self`` is not broadcast, and a float result cannot go into an integer tensor).

    Examples:
        >>> import ember
        >>> x = ember.tensor([-3.0, 3.0, 5.5])
        >>> x.fmod_(2)
        tensor([-1.0000,  1.0000,  1.5000])
        >>> x
        tensor([-1.0000,  1.0000,  1.5000])
    """,
    "frac": """Fractional part of each element.

    Computes ``x - trunc(x)``, so the result has the sign of ``x``.

    Args:
        input (Tensor): the input tensor.

    Returns:
        Tensor: a new tensor of the same shape and dtype.

    Examples:
        >>> import ember
        >>> x = ember.tensor([-1.5, 0.25, 2.0])
        >>> ember.frac(x)
        tensor([-0.5000,  0.2500,  0.0000])
        >>> x.frac()
        tensor([-0.5000,  0.2500,  0.0000])
    """,
    "frac_": """In-place version of :func:`ember.frac`.

    Overwrites the tensor with the result and returns it. The result must fit the tensor's shape
    and dtype (``self`` is not broadcast, and a float result cannot go into an integer tensor).

    Examples:
        >>> import ember
        >>> x = ember.tensor([-1.5, 0.25, 2.0])
        >>> x.frac_()
        tensor([-0.5000,  0.2500,  0.0000])
        >>> x
        tensor([-0.5000,  0.2500,  0.0000])
        >>> x = ember.tensor([-1.5, 0.25, 2.0])
        >>> _ = ember.frac_(x)
        >>> x
        tensor([-0.5000,  0.2500,  0.0000])
    """,
    "full": """A new tensor of the given shape filled with ``fill_value``.

    Without ``dtype`` the dtype follows ``fill_value``: a bool gives ``bool``, an int gives
    ``int64`` and a float gives the default float dtype.

    Args:
        size (sequence of ints): the shape.
        fill_value (Number): the value of every element.
        dtype (ember.dtype, optional): the element type. Default: inferred from ``fill_value``.
        device (ember.device or str, optional): where to allocate. Default: the default device.
        requires_grad (bool, optional): record operations on the result for autograd. Default:
            False.

    Returns:
        Tensor: the filled tensor.

    Examples:
        >>> import ember
        >>> ember.full((2, 3), 7.0)
        tensor([[7., 7., 7.],
                [7., 7., 7.]])
        >>> ember.full((2,), 3)
        tensor([3, 3])
        >>> ember.full((2,), 1, dtype=ember.float32)
        tensor([1., 1.])
    """,
    "full_like": """A tensor with the shape of ``input`` filled with ``fill_value``.

    The dtype and device follow ``input`` unless given (so an integer tensor gives an integer
    result even for a float ``fill_value``).

    Args:
        input (Tensor): the input tensor.
        fill_value (Number): the value of every element.
        dtype (ember.dtype, optional): the element type. Default: ``input``'s.
        device (ember.device or str, optional): the device. Default: ``input``'s.
        requires_grad (bool, optional): record operations on the result for autograd. Default:
            False.

    Returns:
        Tensor: the filled tensor.

    Examples:
        >>> import ember
        >>> x = ember.zeros(2, 2)
        >>> ember.full_like(x, 5)
        tensor([[5., 5.],
                [5., 5.]])
        >>> ember.full_like(ember.tensor([1, 2]), 2.7)
        tensor([2, 2])
    """,
    "gather": """Collect values along ``dim`` at the positions given by ``index``.

    For a 2-D tensor and ``dim=1``: ``out[i][j] = input[i][index[i][j]]``. ``index`` has the
    same number of dims as ``input``, and the result has ``index``'s shape. The inverse of
    :meth:`Tensor.scatter_`.

    Args:
        input (Tensor): the input tensor.
        dim (int): the dimension to index along.
        index (Tensor): ``int64`` indices; its size may not exceed ``input``'s in the other
            dimensions.
        sparse_grad (bool, optional): accepted for compatibility. Default: False.

    Returns:
        Tensor: a tensor of ``index``'s shape and ``input``'s dtype.

    Raises:
        RuntimeError: an index is out of range or ``index`` has another number of dims.

    Examples:
        >>> import ember
        >>> x = ember.tensor([[1, 2], [3, 4]])
        >>> ember.gather(x, 1, ember.tensor([[1, 1], [0, 1]]))
        tensor([[2, 2],
                [3, 4]])
        >>> x.gather(0, ember.tensor([[1, 0]]))
        tensor([[3, 2]])
    """,
    "gcd": """Greatest common divisor of two integer tensors, elementwise.

    ``gcd(0, 0)`` is 0; the result is non-negative. Both operands broadcast to a common shape
    and promote to a common dtype.

    Args:
        input (Tensor): the first operand.
        other (Tensor): the second operand, broadcast against ``input``.

    Returns:
        Tensor: the elementwise result, of the broadcast shape.

    Raises:
        RuntimeError: the shapes cannot be broadcast together.

    Examples:
        >>> import ember
        >>> x = ember.tensor([12, 9, 0])
        >>> ember.gcd(x, ember.tensor([8, 6, 5]))
        tensor([4, 3, 5])
        >>> x.gcd(ember.tensor([8, 6, 5]))
        tensor([4, 3, 5])
    """,
    "gcd_": """In-place version of :func:`ember.gcd`.

    Overwrites the tensor with the result and returns it. The result must fit the tensor's shape
    and dtype (``self`` is not broadcast, and a float result cannot go into an integer tensor).

    Examples:
        >>> import ember
        >>> x = ember.tensor([12, 9, 0])
        >>> x.gcd_(ember.tensor([8, 6, 5]))
        tensor([4, 3, 5])
        >>> x
        tensor([4, 3, 5])
        >>> x = ember.tensor([12, 9, 0])
        >>> _ = ember.gcd_(x, ember.tensor([8, 6, 5]))
        >>> x
        tensor([4, 3, 5])
    """,
    "ge": """Test elementwise whether ``input`` is greater than or equal to ``other``.

    The same as ``input >= other``: the operands broadcast and promote, and the result is a
    ``bool`` tensor. ``greater_equal`` is an alias.

    Args:
        input (Tensor): the tensor to compare.
        other (Tensor or Number): the second operand, broadcast against ``input``.

    Returns:
        Tensor: a ``bool`` tensor of the broadcast shape.

    Raises:
        RuntimeError: the shapes cannot be broadcast together.

    Examples:
        >>> import ember
        >>> x = ember.tensor([1.0, 2.0, 3.0])
        >>> ember.ge(x, ember.tensor([1.0, 5.0, 3.0]))
        tensor([ True, False,  True])
        >>> x.ge(2)
        tensor([False,  True,  True])
        >>> x >= 2
        tensor([False,  True,  True])
    """,
    "ge_": """In-place version of :func:`ember.ge`.

    Overwrites the tensor with the result and returns it. The result must fit the tensor's shape
    and dtype (``self`` is not broadcast, and a float result cannot go into an integer tensor).

    Examples:
        >>> import ember
        >>> x = ember.tensor([1.0, 2.0, 3.0])
        >>> x.ge_(2)
        tensor([0., 1., 1.])
        >>> x
        tensor([0., 1., 1.])
    """,
    "gelu": """Gaussian Error Linear Unit: ``x * Phi(x)``, elementwise.

    The same computation as ``ember.nn.functional.gelu``; prefer that name in new code.
    ``approximate='tanh'`` uses the tanh approximation.

    Args:
        input (Tensor): the input tensor.
        approximate (str, optional): ``'none'`` or ``'tanh'``. Default: ``'none'``.

    Returns:
        Tensor: a tensor of ``input``'s shape.

    Note:
        PyTorch has no ``torch.gelu``: write ``nn.functional.gelu`` in code that must run on both.

    Examples:
        >>> import ember
        >>> x = ember.tensor([-1.0, 0.0, 1.0])
        >>> ember.gelu(x)
        tensor([-0.1587,  0.0000,  0.8413])
        >>> ember.gelu(x, approximate='tanh')
        tensor([-0.1588,  0.0000,  0.8412])
    """,
    "Generator.initial_seed": """The seed this generator was last seeded with.

    Returns:
        int: the seed given to :meth:`Generator.manual_seed` (or drawn by :meth:`Generator.seed`).

    Examples:
        >>> import ember
        >>> g = ember.Generator()
        >>> _ = g.manual_seed(7)
        >>> g.initial_seed()
        7
    """,
    "Tensor.geometric_": """Fill the tensor with draws from a geometric distribution.

    Draws come from the default generator unless ``generator`` is given, so
    :func:`ember.manual_seed` makes them repeatable. The tensor keeps its dtype.

    Args:
        p (float): the success probability; a draw is the number of trials up to the first
            success (at least 1).
        generator (ember.Generator, optional): the random source. Default: None.

    Returns:
        Tensor: this tensor.

    Note:
        ember's random streams differ from PyTorch's: the same seed gives other values.

    Examples:
        >>> import ember
        >>> _ = ember.manual_seed(0)
        >>> x = ember.empty(6)
        >>> x.geometric_(0.5)
        tensor([1., 1., 1., 1., 6., 1.])
        >>> _ = ember.manual_seed(0)
        >>> ember.equal(ember.empty(6).geometric_(0.5), x)
        True
    """,
    "ger": """Outer product of two vectors (the older name of ``outer``).

    Args:
        input (Tensor): a vector of length ``n``.
        vec2 (Tensor): a vector of length ``m``.

    Returns:
        Tensor: a matrix of shape ``(n, m)`` with ``out[i, j] = input[i] * vec2[j]``.

    Examples:
        >>> import ember
        >>> x = ember.tensor([1.0, 2.0])
        >>> ember.ger(x, ember.tensor([1.0, 10.0, 100.0]))
        tensor([[  1.,  10., 100.],
                [  2.,  20., 200.]])
        >>> x.ger(x)
        tensor([[1., 2.],
                [2., 4.]])
    """,
    "Tensor.get_device": """The index of the tensor's device, or -1 for the CPU.

    Returns:
        int: the device index, or -1 for a CPU tensor.

    Examples:
        >>> import ember
        >>> ember.zeros(2).get_device()
        -1
    """,
    "Tensor.grad": """The gradient accumulated into this tensor by :meth:`Tensor.backward`.

    ``None`` until a backward pass reaches the tensor; each later pass adds to it (call
    ``optimizer.zero_grad()`` or set it to ``None`` between steps). Only leaves (and tensors
    that called :meth:`Tensor.retain_grad`) get one. It can be assigned a tensor of the same
    shape, or ``None``.

    Examples:
        >>> import ember
        >>> x = ember.tensor([1.0, 2.0], requires_grad=True)
        >>> x.grad is None
        True
        >>> (x * x).sum().backward()
        >>> x.grad
        tensor([2., 4.])
        >>> (x * x).sum().backward()
        >>> x.grad
        tensor([4., 8.])
        >>> x.grad = None
    """,
    "greater": """Alias of :func:`ember.gt` (the same result, under NumPy's name).

    Examples:
        >>> import ember
        >>> x = ember.tensor([1.0, 2.0, 3.0])
        >>> ember.greater(x, 2)
        tensor([False, False,  True])
        >>> x.greater(2)
        tensor([False, False,  True])
    """,
    "greater_": """In-place version of :func:`ember.greater`.

    Overwrites the tensor with the result and returns it. The result must fit the tensor's shape
    and dtype (``self`` is not broadcast, and a float result cannot go into an integer tensor).

    Examples:
        >>> import ember
        >>> x = ember.tensor([1.0, 2.0, 3.0])
        >>> x.greater_(2)
        tensor([0., 0., 1.])
        >>> x
        tensor([0., 0., 1.])
    """,
    "greater_equal": """Alias of :func:`ember.ge` (the same result, under NumPy's name).

    Examples:
        >>> import ember
        >>> x = ember.tensor([1.0, 2.0, 3.0])
        >>> ember.greater_equal(x, 2)
        tensor([False,  True,  True])
        >>> x.greater_equal(2)
        tensor([False,  True,  True])
    """,
    "greater_equal_": """In-place version of :func:`ember.greater_equal`.

    Overwrites the tensor with the result and returns it. The result must fit the tensor's shape
    and dtype (``self`` is not broadcast, and a float result cannot go into an integer tensor).

    Examples:
        >>> import ember
        >>> x = ember.tensor([1.0, 2.0, 3.0])
        >>> x.greater_equal_(2)
        tensor([0., 1., 1.])
        >>> x
        tensor([0., 1., 1.])
    """,
    "gt": """Test elementwise whether ``input`` is greater than ``other``.

    The same as ``input > other``: the operands broadcast and promote, and the result is a
    ``bool`` tensor. ``greater`` is an alias.

    Args:
        input (Tensor): the tensor to compare.
        other (Tensor or Number): the second operand, broadcast against ``input``.

    Returns:
        Tensor: a ``bool`` tensor of the broadcast shape.

    Raises:
        RuntimeError: the shapes cannot be broadcast together.

    Examples:
        >>> import ember
        >>> x = ember.tensor([1.0, 2.0, 3.0])
        >>> ember.gt(x, ember.tensor([1.0, 5.0, 3.0]))
        tensor([False, False, False])
        >>> x.gt(2)
        tensor([False, False,  True])
        >>> x > 2
        tensor([False, False,  True])
    """,
    "gt_": """In-place version of :func:`ember.gt`.

    Overwrites the tensor with the result and returns it. The result must fit the tensor's shape
    and dtype (``self`` is not broadcast, and a float result cannot go into an integer tensor).

    Examples:
        >>> import ember
        >>> x = ember.tensor([1.0, 2.0, 3.0])
        >>> x.gt_(2)
        tensor([0., 0., 1.])
        >>> x
        tensor([0., 0., 1.])
    """,
    "Tensor.H": """The conjugate transpose of a matrix (a view).

    For ember's real dtypes this is ``self.T`` of a 2-D tensor: the dimensions swapped, the
    memory shared.

    Note:
        PyTorch accepts only 2-D tensors here; ember does not check yet and reverses all the
        dimensions of a larger tensor, as :attr:`Tensor.T` does.

    Examples:
        >>> import ember
        >>> x = ember.tensor([[1, 2, 3], [4, 5, 6]])
        >>> x.H
        tensor([[1, 4],
                [2, 5],
                [3, 6]])
    """,
    "Tensor.half": """The tensor converted to ``ember.float16``; ``self`` if it already is.

    The same as ``self.to(ember.float16)``. Conversion to an integer dtype truncates toward
    zero; to ``bool``, nonzero gives True.

    Args:
        memory_format (ember.memory_format, optional): the layout of a copy. Default:
            ``ember.preserve_format``.

    Returns:
        Tensor: a ``float16`` tensor.

    Examples:
        >>> import ember
        >>> x = ember.tensor([1.5, 2.0])
        >>> x.half()
        tensor([1.5000, 2.0000], dtype=ember.float16)
    """,
    "heaviside": """Heaviside step function of each element.

    Gives 0 where ``input < 0``, 1 where ``input > 0``, and ``values`` where ``input == 0``.
    Both operands broadcast to a common shape and promote to a common dtype.

    Args:
        input (Tensor): the first operand.
        values (Tensor): the second operand, broadcast against ``input``.

    Returns:
        Tensor: the elementwise result, of the broadcast shape.

    Raises:
        RuntimeError: the shapes cannot be broadcast together.

    Examples:
        >>> import ember
        >>> x = ember.tensor([-1.5, 0.0, 2.0])
        >>> ember.heaviside(x, ember.tensor([0.5]))
        tensor([0.0000, 0.5000, 1.0000])
        >>> x.heaviside(ember.tensor([0.5]))
        tensor([0.0000, 0.5000, 1.0000])
    """,
    "heaviside_": """In-place version of :func:`ember.heaviside`.

    Overwrites the tensor with the result and returns it. The result must fit the tensor's shape
    and dtype (``self`` is not broadcast, and a float result cannot go into an integer tensor).

    Examples:
        >>> import ember
        >>> x = ember.tensor([-1.5, 0.0, 2.0])
        >>> x.heaviside_(ember.tensor([0.5]))
        tensor([0.0000, 0.5000, 1.0000])
        >>> x
        tensor([0.0000, 0.5000, 1.0000])
    """,
    "histc": """Histogram of the elements with equal-width bins.

    Elements outside ``[min, max]`` are ignored. With ``min == max == 0`` (the default) the
    range is the data's minimum and maximum.

    Args:
        input (Tensor): the input tensor.
        bins (int, optional): the number of bins. Default: 100.
        min (Number, optional): the lower end of the range. Default: 0.
        max (Number, optional): the upper end of the range. Default: 0.

    Returns:
        Tensor: the counts, a float tensor of length ``bins``.

    Examples:
        >>> import ember
        >>> x = ember.tensor([1.0, 2.0, 1.0, 2.5])
        >>> ember.histc(x, bins=3, min=0, max=3)
        tensor([0., 2., 2.])
        >>> x.histc(bins=2)
        tensor([2., 2.])
    """,
    "hsplit": """Split a tensor horizontally (along columns) into views.

    Splits along dimension 1, or 0 for a 1-D tensor. An int gives that many equal pieces; a list
    gives the indices to split before.

    Args:
        input (Tensor): the input tensor.
        indices_or_sections (int or list of ints): pieces or split points.

    Returns:
        tuple[Tensor, ...]: views of ``input``.

    Raises:
        RuntimeError: an int that does not divide the size.

    Examples:
        >>> import ember
        >>> x = ember.arange(8).reshape(2, 4)
        >>> ember.hsplit(x, 2)[1]
        tensor([[2, 3],
                [6, 7]])
        >>> x.hsplit([1])[0]
        tensor([[0],
                [4]])
    """,
    "hstack": """Join tensors horizontally (along columns).

    1-D tensors are joined along dimension 0, others along dimension 1.

    Args:
        tensors (sequence of Tensor): the tensors to join.

    Returns:
        Tensor: the joined tensor.

    Examples:
        >>> import ember
        >>> ember.hstack([ember.tensor([1, 2]), ember.tensor([3])])
        tensor([1, 2, 3])
        >>> ember.hstack([ember.ones(2, 1), ember.zeros(2, 2)])
        tensor([[1., 0., 0.],
                [1., 0., 0.]])
    """,
    "hypot": """Length of the hypotenuse for legs ``input`` and ``other``, elementwise.

    Computes ``sqrt(input**2 + other**2)`` without intermediate overflow. Both operands
    broadcast to a common shape and promote to a common dtype.

    Args:
        input (Tensor): the first operand.
        other (Tensor): the second operand, broadcast against ``input``.

    Returns:
        Tensor: the elementwise result, of the broadcast shape.

    Raises:
        RuntimeError: the shapes cannot be broadcast together.

    Examples:
        >>> import ember
        >>> x = ember.tensor([3.0, 5.0, 8.0])
        >>> ember.hypot(x, ember.tensor([4.0, 12.0, 15.0]))
        tensor([ 5., 13., 17.])
        >>> x.hypot(ember.tensor([4.0, 12.0, 15.0]))
        tensor([ 5., 13., 17.])
    """,
    "hypot_": """In-place version of :func:`ember.hypot`.

    Overwrites the tensor with the result and returns it. The result must fit the tensor's shape
    and dtype (``self`` is not broadcast, and a float result cannot go into an integer tensor).

    Examples:
        >>> import ember
        >>> x = ember.tensor([3.0, 5.0, 8.0])
        >>> x.hypot_(ember.tensor([4.0, 12.0, 15.0]))
        tensor([ 5., 13., 17.])
        >>> x
        tensor([ 5., 13., 17.])
    """,
    "Tensor.imag": """The imaginary part of a complex tensor; an error for ember's real dtypes.

    ember has no complex dtypes, so reading the property always raises, as PyTorch does for a
    real tensor.

    Raises:
        RuntimeError: the tensor is not complex.

    Examples:
        >>> import ember
        >>> ember.tensor([1.0]).imag
        Traceback (most recent call last):
            ...
        RuntimeError: imag is not implemented for tensors with non-complex dtypes.
    """,
    "imag": """The imaginary part of a complex tensor; an error for ember's real dtypes.

    ember has no complex dtypes, so this always raises, as PyTorch does for a real tensor.

    Args:
        input (Tensor): the input tensor.

    Returns:
        Tensor: never returns for a real tensor.

    Raises:
        RuntimeError: ``input`` is not complex.

    Examples:
        >>> import ember
        >>> ember.imag(ember.tensor([1.0]))
        Traceback (most recent call last):
            ...
        RuntimeError: imag is not implemented for tensors with non-complex dtypes.
    """,
    "index_add": """Add slices of ``source`` into a copy of ``input`` at the given indices.

    ``out.select(dim, index[i]) += alpha * source.select(dim, i)``; repeated indices accumulate.

    Args:
        input (Tensor): the input tensor.
        dim (int): the dimension to index.
        index (Tensor): 1-D indices.
        source (Tensor): the values, with ``len(index)`` slices along ``dim``.
        alpha (Number, optional): the multiplier of ``source``. Default: 1.

    Returns:
        Tensor: a new tensor.

    Examples:
        >>> import ember
        >>> x = ember.zeros(3, 2)
        >>> ember.index_add(x, 0, ember.tensor([0, 0, 2]), ember.ones(3, 2))
        tensor([[2., 2.],
                [0., 0.],
                [1., 1.]])
        >>> x.index_add(0, ember.tensor([1]), ember.ones(1, 2), alpha=5)
        tensor([[0., 0.],
                [5., 5.],
                [0., 0.]])
    """,
    "index_add_": """In-place version of :func:`ember.index_add`.

    Overwrites the tensor with the result and returns it. The result must fit the tensor's shape
    and dtype (``self`` is not broadcast, and a float result cannot go into an integer tensor).

    Examples:
        >>> import ember
        >>> x = ember.zeros(3, 2)
        >>> x.index_add_(0, ember.tensor([0, 0]), ember.ones(2, 2))
        tensor([[2., 2.],
                [0., 0.],
                [0., 0.]])
        >>> x
        tensor([[2., 2.],
                [0., 0.],
                [0., 0.]])
    """,
    "index_copy": """Write slices of ``source`` into a copy of ``input`` at the given indices.

    With a repeated index one of the writes wins (which is unspecified).

    Args:
        input (Tensor): the input tensor.
        dim (int): the dimension to index.
        index (Tensor): 1-D indices.
        source (Tensor): the values, with ``len(index)`` slices along ``dim``.

    Returns:
        Tensor: a new tensor.

    Examples:
        >>> import ember
        >>> x = ember.zeros(3, 2)
        >>> ember.index_copy(x, 0, ember.tensor([2, 0]), ember.tensor([[1.0, 2.0], [3.0, 4.0]]))
        tensor([[3., 4.],
                [0., 0.],
                [1., 2.]])
    """,
    "index_copy_": """In-place version of :func:`ember.index_copy`.

    Overwrites the tensor with the result and returns it. The result must fit the tensor's shape
    and dtype (``self`` is not broadcast, and a float result cannot go into an integer tensor).

    Examples:
        >>> import ember
        >>> x = ember.zeros(3, 2)
        >>> x.index_copy_(0, ember.tensor([1]), ember.ones(1, 2))
        tensor([[0., 0.],
                [1., 1.],
                [0., 0.]])
        >>> x
        tensor([[0., 0.],
                [1., 1.],
                [0., 0.]])
    """,
    "index_fill": """Fill the slices of a copy of ``input`` at the given indices with ``value``.

    Args:
        input (Tensor): the input tensor.
        dim (int): the dimension to index.
        index (Tensor): 1-D indices.
        value (Number or Tensor): the fill value (a 0-dim tensor is allowed).

    Returns:
        Tensor: a new tensor.

    Examples:
        >>> import ember
        >>> x = ember.zeros(2, 3)
        >>> ember.index_fill(x, 1, ember.tensor([0, 2]), -1.0)
        tensor([[-1.,  0., -1.],
                [-1.,  0., -1.]])
    """,
    "index_fill_": """In-place version of :func:`ember.index_fill`.

    Overwrites the tensor with the result and returns it. The result must fit the tensor's shape
    and dtype (``self`` is not broadcast, and a float result cannot go into an integer tensor).

    Examples:
        >>> import ember
        >>> x = ember.zeros(3, 2)
        >>> x.index_fill_(1, ember.tensor([0]), 7.0)
        tensor([[7., 0.],
                [7., 0.],
                [7., 0.]])
        >>> x
        tensor([[7., 0.],
                [7., 0.],
                [7., 0.]])
    """,
    "index_put": """Write ``values`` into a copy of ``input`` at the given index positions.

    The functional form of ``input[indices] = values``: ``indices`` is a tuple with one index
    tensor per leading dimension. With ``accumulate=True`` the values are added, and repeated
    positions add up.

    Args:
        input (Tensor): the input tensor.
        indices (tuple of Tensor): the index tensors.
        values (Tensor): the values, broadcast to the indexed shape.
        accumulate (bool, optional): add instead of writing. Default: False.

    Returns:
        Tensor: a new tensor.

    Examples:
        >>> import ember
        >>> x = ember.zeros(3)
        >>> i = (ember.tensor([0, 0, 2]),)
        >>> ember.index_put(x, i, ember.tensor([1.0, 2.0, 3.0]), accumulate=True)
        tensor([3., 0., 3.])
        >>> x.index_put(i, ember.tensor(9.0))
        tensor([9., 0., 9.])
    """,
    "index_put_": """In-place version of :func:`ember.index_put`.

    Overwrites the tensor with the result and returns it. The result must fit the tensor's shape
    and dtype (``self`` is not broadcast, and a float result cannot go into an integer tensor).

    Examples:
        >>> import ember
        >>> x = ember.zeros(3)
        >>> x.index_put_((ember.tensor([0, 2]),), ember.tensor([1.0, 2.0]))
        tensor([1., 0., 2.])
        >>> x
        tensor([1., 0., 2.])
    """,
    "index_reduce": """Reduce slices of ``source`` into a copy of ``input`` at the given indices.

    ``reduce`` is ``'prod'``, ``'mean'``, ``'amax'`` or ``'amin'``. With ``include_self=False``
    the original values at the indexed slices are left out of the reduction.

    Args:
        input (Tensor): the input tensor.
        dim (int): the dimension to index.
        index (Tensor): 1-D indices.
        source (Tensor): the values, with ``len(index)`` slices along ``dim``.
        reduce (str): the reduction.
        include_self (bool, optional): include ``input``'s values. Default: True.

    Returns:
        Tensor: a new tensor.

    Examples:
        >>> import ember
        >>> x = ember.ones(3)
        >>> src = ember.tensor([2.0, 3.0, 4.0])
        >>> ember.index_reduce(x, 0, ember.tensor([0, 0, 2]), src, 'prod')
        tensor([6., 1., 4.])
        >>> x.index_reduce(0, ember.tensor([0, 0, 2]), src, 'amax', include_self=False)
        tensor([3., 1., 4.])
    """,
    "index_reduce_": """In-place version of :func:`ember.index_reduce`.

    Overwrites the tensor with the result and returns it. The result must fit the tensor's shape
    and dtype (``self`` is not broadcast, and a float result cannot go into an integer tensor).

    Examples:
        >>> import ember
        >>> x = ember.ones(3)
        >>> x.index_reduce_(0, ember.tensor([1, 1]), ember.tensor([2.0, 5.0]), 'amax')
        tensor([1., 5., 1.])
        >>> x
        tensor([1., 5., 1.])
    """,
    "index_select": """Select the slices of ``input`` along ``dim`` at the given indices.

    The result is a new tensor (not a view) with ``len(index)`` slices along ``dim``. Indices
    may repeat.

    Args:
        input (Tensor): the input tensor.
        dim (int): the dimension to index.
        index (Tensor): a 1-D ``int64`` (or ``int32``) tensor of indices.

    Returns:
        Tensor: the selected slices.

    Raises:
        IndexError: an index is out of range.

    Examples:
        >>> import ember
        >>> x = ember.tensor([[1, 2], [3, 4], [5, 6]])
        >>> ember.index_select(x, 0, ember.tensor([2, 0]))
        tensor([[5, 6],
                [1, 2]])
        >>> x.index_select(1, ember.tensor([1, 1]))
        tensor([[2, 2],
                [4, 4],
                [6, 6]])
    """,
    "initial_seed": """The seed of the default random generator.

    The value set by the last :func:`ember.manual_seed` (or :func:`ember.seed`).

    Returns:
        int: the seed.

    Examples:
        >>> import ember
        >>> _ = ember.manual_seed(42)
        >>> ember.initial_seed()
        42
    """,
    "inner": """Inner product over the last dimension of two tensors.

    For vectors this is the dot product; in general the result has shape ``input.shape[:-1] +
    other.shape[:-1]``. A 0-dim operand multiplies elementwise.

    Args:
        input (Tensor): the first operand.
        other (Tensor): the second operand; its last size must equal ``input``'s.

    Returns:
        Tensor: the products summed over the last dimension.

    Examples:
        >>> import ember
        >>> x = ember.tensor([[1.0, 2.0], [3.0, 4.0]])
        >>> ember.inner(x, ember.tensor([1.0, 1.0]))
        tensor([3., 7.])
        >>> x.inner(x)
        tensor([[ 5., 11.],
                [11., 25.]])
    """,
    "Tensor.int": """The tensor converted to ``ember.int32``; ``self`` if it already is.

    The same as ``self.to(ember.int32)``. Conversion to an integer dtype truncates toward zero;
    to ``bool``, nonzero gives True.

    Args:
        memory_format (ember.memory_format, optional): the layout of a copy. Default:
            ``ember.preserve_format``.

    Returns:
        Tensor: a ``int32`` tensor.

    Examples:
        >>> import ember
        >>> x = ember.tensor([1.9, -1.9])
        >>> x.int()
        tensor([ 1, -1], dtype=ember.int32)
    """,
    "inverse": """Inverse of a square matrix or batch of matrices.

    The same as ``ember.linalg.inv``.

    Args:
        input (Tensor): shape ``(*, n, n)``.

    Returns:
        Tensor: the inverses, of the same shape.

    Raises:
        RuntimeError: a matrix is singular or not square.

    Examples:
        >>> import ember
        >>> a = ember.tensor([[2.0, 0.0], [0.0, 4.0]])
        >>> ember.inverse(a)
        tensor([[0.5000, 0.0000],
                [0.0000, 0.2500]])
        >>> a.inverse() @ a
        tensor([[1., 0.],
                [0., 1.]])
    """,
    "is_complex": """Test whether a tensor has a complex dtype; always False in ember.

    ember has no complex dtypes yet.

    Args:
        input (Tensor): the input tensor.

    Returns:
        bool: False.

    Examples:
        >>> import ember
        >>> x = ember.tensor([1.0])
        >>> ember.is_complex(x)
        False
        >>> x.is_complex()
        False
    """,
    "is_conj": """Test whether a tensor is a lazily conjugated view; always False in ember.

    ember has no complex dtypes, so there are no conjugate (or negative) views: ``is_conj`` and
    ``is_neg`` are one function that returns False.

    Args:
        input (Tensor): the input tensor.

    Returns:
        bool: False.

    Examples:
        >>> import ember
        >>> x = ember.tensor([1.0])
        >>> ember.is_conj(x)
        False
        >>> x.is_conj()
        False
    """,
    "Tensor.is_cpu": """Whether the tensor lives on the CPU.

    Read-only; compare ``x.device.type`` for devices without a property.

    Examples:
        >>> import ember
        >>> x = ember.zeros(2)
        >>> x.is_cpu
        True
    """,
    "Tensor.is_cuda": """Whether the tensor lives on a CUDA GPU.

    Read-only; compare ``x.device.type`` for devices without a property.

    Examples:
        >>> import ember
        >>> x = ember.zeros(2)
        >>> x.is_cuda
        False
    """,
    "is_floating_point": """Test whether a tensor has a floating-point dtype.

    True for ``float16``, ``bfloat16``, ``float32`` and ``float64``.

    Args:
        input (Tensor): the input tensor.

    Returns:
        bool: True for a float dtype.

    Examples:
        >>> import ember
        >>> ember.is_floating_point(ember.tensor([1.0]))
        True
        >>> ember.tensor([1]).is_floating_point()
        False
    """,
    "Tensor.is_inference": """Whether the tensor was created in inference mode.

    Inference tensors (made under ``with ember.inference_mode():``) carry no version counter and
    cannot be saved for backward.

    Returns:
        bool: True for an inference tensor.

    Note:
        ember does not yet mark the tensors made under ``inference_mode``, so this is False for
        them too (PyTorch gives True).

    Examples:
        >>> import ember
        >>> ember.zeros(1).is_inference()
        False
    """,
    "Tensor.is_leaf": """Whether the tensor is a leaf of the autograd graph.

    Tensors that do not require grad are leaves, and so are those a user created with
    ``requires_grad=True``; a result of an operation on a tensor that requires grad is not. Only
    leaves get ``.grad`` filled by :meth:`Tensor.backward` (see :meth:`Tensor.retain_grad`).

    Examples:
        >>> import ember
        >>> x = ember.ones(2, requires_grad=True)
        >>> x.is_leaf
        True
        >>> (x * 2).is_leaf
        False
        >>> ember.ones(2).is_leaf
        True
    """,
    "Tensor.is_meta": """Whether the tensor lives on the meta device (shape only, no data).

    Read-only; compare ``x.device.type`` for devices without a property.

    Examples:
        >>> import ember
        >>> x = ember.zeros(2)
        >>> x.is_meta
        False
    """,
    "Tensor.is_mps": """Whether the tensor lives on an Apple MPS GPU.

    Read-only; compare ``x.device.type`` for devices without a property.

    Examples:
        >>> import ember
        >>> x = ember.zeros(2)
        >>> x.is_mps
        False
    """,
    "is_nonzero": """The truth value of a one-element tensor.

    The same as ``bool(input)``, but an error for more or fewer than one element.

    Args:
        input (Tensor): a tensor with exactly one element.

    Returns:
        bool: True when the element is nonzero.

    Raises:
        RuntimeError: ``input`` has no element or more than one.

    Examples:
        >>> import ember
        >>> ember.is_nonzero(ember.tensor([1.5]))
        True
        >>> ember.tensor(0).is_nonzero()
        False
    """,
    "Tensor.is_pinned": """Whether the tensor lives in page-locked (pinned) host memory.

    Returns:
        bool: True for pinned memory.

    Examples:
        >>> import ember
        >>> ember.zeros(2).is_pinned()
        False
    """,
    "is_same_size": """Test whether two tensors have the same shape.

    Args:
        input (Tensor): the first tensor.
        other (Tensor): the second tensor.

    Returns:
        bool: True when the shapes are equal.

    Examples:
        >>> import ember
        >>> x = ember.zeros(2, 3)
        >>> ember.is_same_size(x, ember.ones(2, 3))
        True
        >>> x.is_same_size(ember.ones(3, 2))
        False
    """,
    "Tensor.is_signed": """Whether the tensor's dtype is signed.

    False for ``uint8`` and ``bool``, True for the other integer and all float dtypes.

    Returns:
        bool: True for a signed dtype.

    Examples:
        >>> import ember
        >>> ember.tensor([1]).is_signed()
        True
        >>> ember.tensor([1], dtype=ember.uint8).is_signed()
        False
    """,
    "is_storage": """Test whether ``obj`` is a storage object.

    Args:
        obj (object): anything.

    Returns:
        bool: True for an untyped or typed storage.

    Examples:
        >>> import ember
        >>> x = ember.zeros(2)
        >>> ember.is_storage(x)
        False
        >>> ember.is_storage(x.untyped_storage())
        True
    """,
    "is_tensor": """Test whether ``obj`` is an ember tensor.

    The same as ``isinstance(obj, ember.Tensor)`` (subclasses and parameters count).

    Args:
        obj (object): anything.

    Returns:
        bool: True for a tensor.

    Examples:
        >>> import ember
        >>> ember.is_tensor(ember.zeros(1))
        True
        >>> ember.is_tensor([1.0])
        False
    """,
    "Tensor.is_xpu": """Whether the tensor lives on an Intel XPU.

    Read-only; compare ``x.device.type`` for devices without a property.

    Examples:
        >>> import ember
        >>> x = ember.zeros(2)
        >>> x.is_xpu
        False
    """,
    "isclose": """Test elementwise whether two tensors are equal within a tolerance.

    An element is close when ``|input - other| <= atol + rtol * |other|``. NaNs are unequal
    unless ``equal_nan``.

    Args:
        input (Tensor): the first tensor.
        other (Tensor or Number): the second operand.
        rtol (float, optional): the relative tolerance. Default: 1e-05.
        atol (float, optional): the absolute tolerance. Default: 1e-08.
        equal_nan (bool, optional): count two NaNs as equal. Default: False.

    Returns:
        Tensor: a ``bool`` tensor of the broadcast shape.

    Examples:
        >>> import ember
        >>> x = ember.tensor([1.0, 2.0, float('nan')])
        >>> ember.isclose(x, ember.tensor([1.0, 2.1, float('nan')]))
        tensor([ True, False, False])
        >>> x.isclose(x, equal_nan=True)
        tensor([True, True, True])
    """,
    "isfinite": """Test elementwise whether ``input`` is finite (neither infinite nor NaN).

    Integer and ``bool`` tensors are never infinite or NaN.

    Args:
        input (Tensor): the input tensor.

    Returns:
        Tensor: a ``bool`` tensor of the same shape.

    Examples:
        >>> import ember
        >>> x = ember.tensor([1.0, float('inf'), float('nan')])
        >>> ember.isfinite(x)
        tensor([ True, False, False])
        >>> x.isfinite()
        tensor([ True, False, False])
    """,
    "isinf": """Test elementwise whether ``input`` is positive or negative infinity.

    Integer and ``bool`` tensors are never infinite or NaN.

    Args:
        input (Tensor): the input tensor.

    Returns:
        Tensor: a ``bool`` tensor of the same shape.

    Examples:
        >>> import ember
        >>> x = ember.tensor([1.0, float('inf'), -float('inf')])
        >>> ember.isinf(x)
        tensor([False,  True,  True])
        >>> x.isinf()
        tensor([False,  True,  True])
    """,
    "isnan": """Test elementwise whether ``input`` is NaN (not a number).

    Integer and ``bool`` tensors are never infinite or NaN.

    Args:
        input (Tensor): the input tensor.

    Returns:
        Tensor: a ``bool`` tensor of the same shape.

    Examples:
        >>> import ember
        >>> x = ember.tensor([1.0, float('nan'), 2.0])
        >>> ember.isnan(x)
        tensor([False,  True, False])
        >>> x.isnan()
        tensor([False,  True, False])
    """,
    "isneginf": """Test elementwise whether ``input`` is negative infinity.

    Integer and ``bool`` tensors are never infinite or NaN.

    Args:
        input (Tensor): the input tensor.

    Returns:
        Tensor: a ``bool`` tensor of the same shape.

    Examples:
        >>> import ember
        >>> x = ember.tensor([1.0, float('inf'), -float('inf')])
        >>> ember.isneginf(x)
        tensor([False, False,  True])
        >>> x.isneginf()
        tensor([False, False,  True])
    """,
    "isposinf": """Test elementwise whether ``input`` is positive infinity.

    Integer and ``bool`` tensors are never infinite or NaN.

    Args:
        input (Tensor): the input tensor.

    Returns:
        Tensor: a ``bool`` tensor of the same shape.

    Examples:
        >>> import ember
        >>> x = ember.tensor([1.0, float('inf'), -float('inf')])
        >>> ember.isposinf(x)
        tensor([False,  True, False])
        >>> x.isposinf()
        tensor([False,  True, False])
    """,
    "isreal": """Test elementwise whether ``input`` is real (always true for ember's real dtypes).

    ember has no complex dtypes, so every element is real.

    Args:
        input (Tensor): the input tensor.

    Returns:
        Tensor: a ``bool`` tensor of the same shape.

    Examples:
        >>> import ember
        >>> x = ember.tensor([1.0, float('nan'), 2.0])
        >>> ember.isreal(x)
        tensor([True, True, True])
        >>> x.isreal()
        tensor([True, True, True])
    """,
    "Tensor.item": """The value of a one-element tensor as a Python number.

    Gives a ``float``, ``int`` or ``bool`` by dtype. On an accelerator this waits for the device
    and copies the value to the host.

    Returns:
        float, int or bool: the element.

    Raises:
        RuntimeError: the tensor does not have exactly one element.

    Examples:
        >>> import ember
        >>> ember.tensor([3.5]).item()
        3.5
        >>> ember.tensor(7).item()
        7
        >>> ember.zeros(2, 2).sum().item()
        0.0
    """,
    "Tensor.itemsize": """The size of one element in bytes.

    The same as :meth:`Tensor.element_size`.

    Examples:
        >>> import ember
        >>> ember.zeros(2).itemsize
        4
        >>> ember.zeros(2, dtype=ember.float16).itemsize
        2
    """,
    "kron": """Kronecker product of two tensors.

    Each element of ``input`` scales a full copy of ``other``; for matrices of shapes ``(a, b)``
    and ``(c, d)`` the result is ``(a*c, b*d)``.

    Args:
        input (Tensor): the first operand.
        other (Tensor): the second operand.

    Returns:
        Tensor: the Kronecker product.

    Examples:
        >>> import ember
        >>> x = ember.tensor([[1.0, 2.0]])
        >>> ember.kron(x, ember.eye(2))
        tensor([[1., 0., 2., 0.],
                [0., 1., 0., 2.]])
        >>> x.kron(x)
        tensor([[1., 2., 2., 4.]])
    """,
    "kthvalue": """The ``k``-th smallest element along ``dim``, and its index.

    ``k`` counts from 1.

    Args:
        input (Tensor): the input tensor.
        k (int): which smallest element, from 1.
        dim (int, optional): the dimension to search. Default: -1.
        keepdim (bool, optional): keep the reduced dimensions with size 1. Default: False.

    Returns:
        tuple[Tensor, Tensor]: a named tuple ``(values, indices)``.

    Raises:
        RuntimeError: ``k`` is outside ``[1, input.size(dim)]``.

    Examples:
        >>> import ember
        >>> x = ember.tensor([3.0, 1.0, 2.0])
        >>> ember.kthvalue(x, 2).values
        tensor(2.)
        >>> x.kthvalue(1)[1]
        tensor(1)
    """,
    "layer_norm": """Normalise the last dimensions of a tensor to zero mean and unit variance.

    The same computation as ``ember.nn.functional.layer_norm``; prefer that name in new code.
    The statistics are over ``normalized_shape`` (the biased variance); ``weight`` and ``bias``
    then scale and shift.

    Args:
        input (Tensor): the input tensor.
        normalized_shape (sequence of ints): the trailing shape to normalise over.
        weight (Tensor, optional): the scale. Default: None.
        bias (Tensor, optional): the shift. Default: None.
        eps (float, optional): added to the variance. Default: 1e-05.
        cudnn_enable (bool, optional): ignored. Default: True.

    Returns:
        Tensor: a tensor of ``input``'s shape.

    Examples:
        >>> import ember
        >>> x = ember.tensor([[1.0, 2.0, 3.0]])
        >>> ember.layer_norm(x, (3,))
        tensor([[-1.2247,  0.0000,  1.2247]])
    """,
    "Tensor.layout": """The memory layout of the tensor; always ``ember.strided`` (dense).

    ember has no sparse layouts yet.

    Examples:
        >>> import ember
        >>> ember.zeros(2).layout
        ember.strided
    """,
    "lcm": """Least common multiple of two integer tensors, elementwise.

    The result is non-negative; ``lcm`` with zero is zero. Both operands broadcast to a common
    shape and promote to a common dtype.

    Args:
        input (Tensor): the first operand.
        other (Tensor): the second operand, broadcast against ``input``.

    Returns:
        Tensor: the elementwise result, of the broadcast shape.

    Raises:
        RuntimeError: the shapes cannot be broadcast together.

    Examples:
        >>> import ember
        >>> x = ember.tensor([4, 6, 0])
        >>> ember.lcm(x, ember.tensor([6, 9, 5]))
        tensor([12, 18,  0])
        >>> x.lcm(ember.tensor([6, 9, 5]))
        tensor([12, 18,  0])
    """,
    "lcm_": """In-place version of :func:`ember.lcm`.

    Overwrites the tensor with the result and returns it. The result must fit the tensor's shape
    and dtype (``self`` is not broadcast, and a float result cannot go into an integer tensor).

    Examples:
        >>> import ember
        >>> x = ember.tensor([4, 6, 0])
        >>> x.lcm_(ember.tensor([6, 9, 5]))
        tensor([12, 18,  0])
        >>> x
        tensor([12, 18,  0])
        >>> x = ember.tensor([4, 6, 0])
        >>> _ = ember.lcm_(x, ember.tensor([6, 9, 5]))
        >>> x
        tensor([12, 18,  0])
    """,
    "ldexp": """Multiply each element by two raised to ``other``.

    Computes ``input * 2**other``; the result is a float tensor. Both operands broadcast to a
    common shape and promote to a common dtype.

    Args:
        input (Tensor): the first operand.
        other (Tensor): the second operand, broadcast against ``input``.

    Returns:
        Tensor: the elementwise result, of the broadcast shape.

    Raises:
        RuntimeError: the shapes cannot be broadcast together.

    Examples:
        >>> import ember
        >>> x = ember.tensor([1.0, 3.0, 0.5])
        >>> ember.ldexp(x, ember.tensor([3, 1, 2]))
        tensor([8., 6., 2.])
        >>> x.ldexp(ember.tensor([3, 1, 2]))
        tensor([8., 6., 2.])
    """,
    "ldexp_": """In-place version of :func:`ember.ldexp`.

    Overwrites the tensor with the result and returns it. The result must fit the tensor's shape
    and dtype (``self`` is not broadcast, and a float result cannot go into an integer tensor).

    Examples:
        >>> import ember
        >>> x = ember.tensor([1.0, 3.0, 0.5])
        >>> x.ldexp_(ember.tensor([3, 1, 2]))
        tensor([8., 6., 2.])
        >>> x
        tensor([8., 6., 2.])
        >>> x = ember.tensor([1.0, 3.0, 0.5])
        >>> _ = ember.ldexp_(x, ember.tensor([3, 1, 2]))
        >>> x
        tensor([8., 6., 2.])
    """,
    "le": """Test elementwise whether ``input`` is less than or equal to ``other``.

    The same as ``input <= other``: the operands broadcast and promote, and the result is a
    ``bool`` tensor. ``less_equal`` is an alias.

    Args:
        input (Tensor): the tensor to compare.
        other (Tensor or Number): the second operand, broadcast against ``input``.

    Returns:
        Tensor: a ``bool`` tensor of the broadcast shape.

    Raises:
        RuntimeError: the shapes cannot be broadcast together.

    Examples:
        >>> import ember
        >>> x = ember.tensor([1.0, 2.0, 3.0])
        >>> ember.le(x, ember.tensor([1.0, 5.0, 3.0]))
        tensor([True, True, True])
        >>> x.le(2)
        tensor([ True,  True, False])
        >>> x <= 2
        tensor([ True,  True, False])
    """,
    "le_": """In-place version of :func:`ember.le`.

    Overwrites the tensor with the result and returns it. The result must fit the tensor's shape
    and dtype (``self`` is not broadcast, and a float result cannot go into an integer tensor).

    Examples:
        >>> import ember
        >>> x = ember.tensor([1.0, 2.0, 3.0])
        >>> x.le_(2)
        tensor([1., 1., 0.])
        >>> x
        tensor([1., 1., 0.])
    """,
    "Tensor.lerp_": """In-place linear interpolation of the tensor toward ``end``.

    Computes ``self += weight * (end - self)``.

    Args:
        end (Tensor): the target values, broadcast to this tensor's shape.
        weight (float or Tensor): the interpolation weight.

    Returns:
        Tensor: this tensor.

    Examples:
        >>> import ember
        >>> x = ember.zeros(2)
        >>> x.lerp_(ember.tensor([1.0, 2.0]), 0.25)
        tensor([0.2500, 0.5000])
        >>> x
        tensor([0.2500, 0.5000])
    """,
    "less": """Alias of :func:`ember.lt` (the same result, under NumPy's name).

    Examples:
        >>> import ember
        >>> x = ember.tensor([1.0, 2.0, 3.0])
        >>> ember.less(x, 2)
        tensor([ True, False, False])
        >>> x.less(2)
        tensor([ True, False, False])
    """,
    "less_": """In-place version of :func:`ember.less`.

    Overwrites the tensor with the result and returns it. The result must fit the tensor's shape
    and dtype (``self`` is not broadcast, and a float result cannot go into an integer tensor).

    Examples:
        >>> import ember
        >>> x = ember.tensor([1.0, 2.0, 3.0])
        >>> x.less_(2)
        tensor([1., 0., 0.])
        >>> x
        tensor([1., 0., 0.])
    """,
    "less_equal": """Alias of :func:`ember.le` (the same result, under NumPy's name).

    Examples:
        >>> import ember
        >>> x = ember.tensor([1.0, 2.0, 3.0])
        >>> ember.less_equal(x, 2)
        tensor([ True,  True, False])
        >>> x.less_equal(2)
        tensor([ True,  True, False])
    """,
    "less_equal_": """In-place version of :func:`ember.less_equal`.

    Overwrites the tensor with the result and returns it. The result must fit the tensor's shape
    and dtype (``self`` is not broadcast, and a float result cannot go into an integer tensor).

    Examples:
        >>> import ember
        >>> x = ember.tensor([1.0, 2.0, 3.0])
        >>> x.less_equal_(2)
        tensor([1., 1., 0.])
        >>> x
        tensor([1., 1., 0.])
    """,
    "lgamma": """Natural log of the absolute value of the gamma function, elementwise.

    Args:
        input (Tensor): the input tensor.

    Returns:
        Tensor: a new tensor of the same shape; integer inputs give the default float dtype.

    Examples:
        >>> import ember
        >>> x = ember.tensor([0.5, 1.0, 3.0])
        >>> ember.lgamma(x)
        tensor([0.5724, 0.0000, 0.6931])
        >>> x.lgamma()
        tensor([0.5724, 0.0000, 0.6931])
    """,
    "lgamma_": """In-place version of :func:`ember.lgamma`.

    Overwrites the tensor with the result and returns it. The result must fit the tensor's shape
    and dtype (``self`` is not broadcast, and a float result cannot go into an integer tensor).

    Examples:
        >>> import ember
        >>> x = ember.tensor([0.5, 1.0, 3.0])
        >>> x.lgamma_()
        tensor([0.5724, 0.0000, 0.6931])
        >>> x
        tensor([0.5724, 0.0000, 0.6931])
    """,
    "linspace": """``steps`` evenly spaced values from ``start`` to ``end``, both included.

    Args:
        start (Number): the first value.
        end (Number): the last value.
        steps (int): how many values.
        dtype (ember.dtype, optional): the element type. Default: the default float dtype (see
            :func:`ember.set_default_dtype`).
        device (ember.device or str, optional): where to allocate. Default: the default device.
        requires_grad (bool, optional): record operations on the result for autograd. Default:
            False.

    Returns:
        Tensor: a 1-D tensor of length ``steps``.

    Raises:
        RuntimeError: ``steps`` is negative.

    Examples:
        >>> import ember
        >>> ember.linspace(0, 1, steps=5)
        tensor([0.0000, 0.2500, 0.5000, 0.7500, 1.0000])
        >>> ember.linspace(-1, 1, 3)
        tensor([-1.,  0.,  1.])
        >>> ember.linspace(0, 10, 3, dtype=ember.int64)
        tensor([ 0,  5, 10])
    """,
    "log": """Natural logarithm of each element.

    Zero gives ``-inf`` and negative elements give ``nan``.

    Args:
        input (Tensor): the input tensor.

    Returns:
        Tensor: a new tensor of the same shape; integer inputs give the default float dtype.

    Examples:
        >>> import ember
        >>> x = ember.tensor([1.0, 2.7183, 10.0])
        >>> ember.log(x)
        tensor([0.0000, 1.0000, 2.3026])
        >>> x.log()
        tensor([0.0000, 1.0000, 2.3026])
    """,
    "log10": """Base-ten logarithm of each element.

    Args:
        input (Tensor): the input tensor.

    Returns:
        Tensor: a new tensor of the same shape; integer inputs give the default float dtype.

    Examples:
        >>> import ember
        >>> x = ember.tensor([1.0, 10.0, 1000.0])
        >>> ember.log10(x)
        tensor([0., 1., 3.])
        >>> x.log10()
        tensor([0., 1., 3.])
    """,
    "log10_": """In-place version of :func:`ember.log10`.

    Overwrites the tensor with the result and returns it. The result must fit the tensor's shape
    and dtype (``self`` is not broadcast, and a float result cannot go into an integer tensor).

    Examples:
        >>> import ember
        >>> x = ember.tensor([1.0, 10.0, 1000.0])
        >>> x.log10_()
        tensor([0., 1., 3.])
        >>> x
        tensor([0., 1., 3.])
        >>> x = ember.tensor([1.0, 10.0, 1000.0])
        >>> _ = ember.log10_(x)
        >>> x
        tensor([0., 1., 3.])
    """,
    "log1p": """Natural logarithm of one plus each element.

    Computes ``log(1 + x)``, accurately for ``x`` near zero.

    Args:
        input (Tensor): the input tensor.

    Returns:
        Tensor: a new tensor of the same shape; integer inputs give the default float dtype.

    Examples:
        >>> import ember
        >>> x = ember.tensor([0.0, 1e-05, 1.0])
        >>> ember.log1p(x)
        tensor([0.0000e+00, 9.9999e-06, 6.9315e-01])
        >>> x.log1p()
        tensor([0.0000e+00, 9.9999e-06, 6.9315e-01])
    """,
    "log1p_": """In-place version of :func:`ember.log1p`.

    Overwrites the tensor with the result and returns it. The result must fit the tensor's shape
    and dtype (``self`` is not broadcast, and a float result cannot go into an integer tensor).

    Examples:
        >>> import ember
        >>> x = ember.tensor([0.0, 1e-05, 1.0])
        >>> x.log1p_()
        tensor([0.0000e+00, 9.9999e-06, 6.9315e-01])
        >>> x
        tensor([0.0000e+00, 9.9999e-06, 6.9315e-01])
        >>> x = ember.tensor([0.0, 1e-05, 1.0])
        >>> _ = ember.log1p_(x)
        >>> x
        tensor([0.0000e+00, 9.9999e-06, 6.9315e-01])
    """,
    "log2": """Base-two logarithm of each element.

    Args:
        input (Tensor): the input tensor.

    Returns:
        Tensor: a new tensor of the same shape; integer inputs give the default float dtype.

    Examples:
        >>> import ember
        >>> x = ember.tensor([1.0, 2.0, 8.0])
        >>> ember.log2(x)
        tensor([0., 1., 3.])
        >>> x.log2()
        tensor([0., 1., 3.])
    """,
    "log2_": """In-place version of :func:`ember.log2`.

    Overwrites the tensor with the result and returns it. The result must fit the tensor's shape
    and dtype (``self`` is not broadcast, and a float result cannot go into an integer tensor).

    Examples:
        >>> import ember
        >>> x = ember.tensor([1.0, 2.0, 8.0])
        >>> x.log2_()
        tensor([0., 1., 3.])
        >>> x
        tensor([0., 1., 3.])
        >>> x = ember.tensor([1.0, 2.0, 8.0])
        >>> _ = ember.log2_(x)
        >>> x
        tensor([0., 1., 3.])
    """,
    "log_": """In-place version of :func:`ember.log`.

    Overwrites the tensor with the result and returns it. The result must fit the tensor's shape
    and dtype (``self`` is not broadcast, and a float result cannot go into an integer tensor).

    Examples:
        >>> import ember
        >>> x = ember.tensor([1.0, 2.7183, 10.0])
        >>> x.log_()
        tensor([0.0000, 1.0000, 2.3026])
        >>> x
        tensor([0.0000, 1.0000, 2.3026])
        >>> x = ember.tensor([1.0, 2.7183, 10.0])
        >>> _ = ember.log_(x)
        >>> x
        tensor([0.0000, 1.0000, 2.3026])
    """,
    "Tensor.log_normal_": """Fill the tensor with draws from a log-normal distribution.

    Draws come from the default generator unless ``generator`` is given, so
    :func:`ember.manual_seed` makes them repeatable. The tensor keeps its dtype.

    Args:
        mean (float, optional): the mean of the underlying normal. Default: 1.
        std (float, optional): the standard deviation of the underlying normal. Default: 2.
        generator (ember.Generator, optional): the random source. Default: None.

    Returns:
        Tensor: this tensor.

    Note:
        ember's random streams differ from PyTorch's: the same seed gives other values.

    Examples:
        >>> import ember
        >>> _ = ember.manual_seed(0)
        >>> x = ember.empty(6)
        >>> x.log_normal_(mean=0.0, std=0.25)
        tensor([0.9498, 0.9683, 0.9301, 0.7276, 0.7036, 1.0109])
        >>> _ = ember.manual_seed(0)
        >>> ember.equal(ember.empty(6).log_normal_(mean=0.0, std=0.25), x)
        True
    """,
    "log_softmax": """Logarithm of softmax along ``dim``, computed stably.

    ``log_softmax(x) = x - logsumexp(x, dim)``, which avoids the overflow and the ``log(0)`` of
    ``log(softmax(x))``.

    Args:
        input (Tensor): the input tensor.
        dim (int): the dimension to normalise over.
        dtype (ember.dtype, optional): cast ``input`` to this dtype first. Default: None.

    Returns:
        Tensor: a tensor of ``input``'s shape.

    Examples:
        >>> import ember
        >>> x = ember.tensor([[1.0, 2.0], [0.0, 1000.0]])
        >>> ember.log_softmax(x, dim=1)
        tensor([[-1.3133e+00, -3.1326e-01],
                [-1.0000e+03,  0.0000e+00]])
        >>> x.log_softmax(0)
        tensor([[-3.1326e-01, -9.9800e+02],
                [-1.3133e+00,  0.0000e+00]])
    """,
    "logaddexp": """Log of the sum of exponentials of two tensors, elementwise.

    Computes ``log(exp(input) + exp(other))`` without overflow for large inputs. Both operands
    broadcast to a common shape and promote to a common dtype.

    Args:
        input (Tensor): the first operand.
        other (Tensor): the second operand, broadcast against ``input``.

    Returns:
        Tensor: the elementwise result, of the broadcast shape.

    Raises:
        RuntimeError: the shapes cannot be broadcast together.

    Examples:
        >>> import ember
        >>> x = ember.tensor([0.0, 1.0, 1000.0])
        >>> ember.logaddexp(x, ember.tensor([0.0, 2.0, 1000.0]))
        tensor([6.9315e-01, 2.3133e+00, 1.0007e+03])
        >>> x.logaddexp(ember.tensor([0.0, 2.0, 1000.0]))
        tensor([6.9315e-01, 2.3133e+00, 1.0007e+03])
    """,
    "logaddexp2": """Base-two log of the sum of powers of two, elementwise.

    Computes ``log2(2**input + 2**other)`` without overflow for large inputs. Both operands
    broadcast to a common shape and promote to a common dtype.

    Args:
        input (Tensor): the first operand.
        other (Tensor): the second operand, broadcast against ``input``.

    Returns:
        Tensor: the elementwise result, of the broadcast shape.

    Raises:
        RuntimeError: the shapes cannot be broadcast together.

    Examples:
        >>> import ember
        >>> x = ember.tensor([0.0, 1.0, 3.0])
        >>> ember.logaddexp2(x, ember.tensor([0.0, 1.0, 1.0]))
        tensor([1.0000, 2.0000, 3.3219])
        >>> x.logaddexp2(ember.tensor([0.0, 1.0, 1.0]))
        tensor([1.0000, 2.0000, 3.3219])
    """,
    "logcumsumexp": """Log of the cumulative sum of exponentials along ``dim``.

    ``out[i] = log(sum(exp(input[:i+1])))``, computed stably.

    Args:
        input (Tensor): the input tensor.
        dim (int): the dimension to accumulate along.

    Returns:
        Tensor: a tensor of ``input``'s shape.

    Examples:
        >>> import ember
        >>> x = ember.tensor([0.0, 0.0, 0.0])
        >>> ember.logcumsumexp(x, dim=0)
        tensor([0.0000, 0.6931, 1.0986])
        >>> x.logcumsumexp(0)
        tensor([0.0000, 0.6931, 1.0986])
    """,
    "logdet": """Natural log of the determinant of a square matrix.

    A negative determinant gives ``nan`` and a zero one ``-inf`` (see ``ember.linalg.slogdet``
    for the sign and log of the absolute value).

    Args:
        input (Tensor): shape ``(*, n, n)``.

    Returns:
        Tensor: the log-determinants, shape ``(*)``.

    Examples:
        >>> import ember
        >>> a = ember.tensor([[2.0, 0.0], [0.0, 3.0]])
        >>> ember.logdet(a)
        tensor(1.7918)
        >>> a.logdet()
        tensor(1.7918)
    """,
    "logical_and": """Elementwise logical AND, treating nonzero elements as true.

    The result is a ``bool`` tensor whatever the input dtypes. Both operands broadcast to a
    common shape and promote to a common dtype.

    Args:
        input (Tensor): the first operand.
        other (Tensor): the second operand, broadcast against ``input``.

    Returns:
        Tensor: the elementwise result, of the broadcast shape.

    Raises:
        RuntimeError: the shapes cannot be broadcast together.

    Examples:
        >>> import ember
        >>> x = ember.tensor([True, True, False])
        >>> ember.logical_and(x, ember.tensor([True, False, False]))
        tensor([ True, False, False])
        >>> x.logical_and(ember.tensor([True, False, False]))
        tensor([ True, False, False])
    """,
    "logical_and_": """In-place version of :func:`ember.logical_and`.

    Overwrites the tensor with the result and returns it. The result must fit the tensor's shape
    and dtype (``self`` is not broadcast, and a float result cannot go into an integer tensor).

    Examples:
        >>> import ember
        >>> x = ember.tensor([True, True, False])
        >>> x.logical_and_(ember.tensor([True, False, False]))
        tensor([ True, False, False])
        >>> x
        tensor([ True, False, False])
    """,
    "logical_not": """Elementwise logical NOT, treating nonzero elements as true.

    The result is a ``bool`` tensor whatever the input dtype.

    Args:
        input (Tensor): the input tensor.

    Returns:
        Tensor: a ``bool`` tensor of the same shape.

    Examples:
        >>> import ember
        >>> x = ember.tensor([0.0, 1.0, 2.0])
        >>> ember.logical_not(x)
        tensor([ True, False, False])
        >>> x.logical_not()
        tensor([ True, False, False])
    """,
    "logical_not_": """In-place version of :func:`ember.logical_not`.

    Overwrites the tensor with the result and returns it. The result must fit the tensor's shape
    and dtype (``self`` is not broadcast, and a float result cannot go into an integer tensor).

    Examples:
        >>> import ember
        >>> x = ember.tensor([0.0, 1.0, 2.0])
        >>> x.logical_not_()
        tensor([1., 0., 0.])
        >>> x
        tensor([1., 0., 0.])
    """,
    "logical_or": """Elementwise logical OR, treating nonzero elements as true.

    The result is a ``bool`` tensor whatever the input dtypes. Both operands broadcast to a
    common shape and promote to a common dtype.

    Args:
        input (Tensor): the first operand.
        other (Tensor): the second operand, broadcast against ``input``.

    Returns:
        Tensor: the elementwise result, of the broadcast shape.

    Raises:
        RuntimeError: the shapes cannot be broadcast together.

    Examples:
        >>> import ember
        >>> x = ember.tensor([True, True, False])
        >>> ember.logical_or(x, ember.tensor([True, False, False]))
        tensor([ True,  True, False])
        >>> x.logical_or(ember.tensor([True, False, False]))
        tensor([ True,  True, False])
    """,
    "logical_or_": """In-place version of :func:`ember.logical_or`.

    Overwrites the tensor with the result and returns it. The result must fit the tensor's shape
    and dtype (``self`` is not broadcast, and a float result cannot go into an integer tensor).

    Examples:
        >>> import ember
        >>> x = ember.tensor([True, True, False])
        >>> x.logical_or_(ember.tensor([True, False, False]))
        tensor([ True,  True, False])
        >>> x
        tensor([ True,  True, False])
    """,
    "logical_xor": """Elementwise logical exclusive OR, treating nonzero elements as true.

    The result is a ``bool`` tensor whatever the input dtypes. Both operands broadcast to a
    common shape and promote to a common dtype.

    Args:
        input (Tensor): the first operand.
        other (Tensor): the second operand, broadcast against ``input``.

    Returns:
        Tensor: the elementwise result, of the broadcast shape.

    Raises:
        RuntimeError: the shapes cannot be broadcast together.

    Examples:
        >>> import ember
        >>> x = ember.tensor([1.0, 2.0, 0.0])
        >>> ember.logical_xor(x, ember.tensor([0.0, 3.0, 0.0]))
        tensor([ True, False, False])
        >>> x.logical_xor(ember.tensor([0.0, 3.0, 0.0]))
        tensor([ True, False, False])
    """,
    "logical_xor_": """In-place version of :func:`ember.logical_xor`.

    Overwrites the tensor with the result and returns it. The result must fit the tensor's shape
    and dtype (``self`` is not broadcast, and a float result cannot go into an integer tensor).

    Examples:
        >>> import ember
        >>> x = ember.tensor([1.0, 2.0, 0.0])
        >>> x.logical_xor_(ember.tensor([0.0, 3.0, 0.0]))
        tensor([1., 0., 0.])
        >>> x
        tensor([1., 0., 0.])
    """,
    "logit": """Log-odds of each element: ``log(p / (1 - p))``.

    The inverse of ``sigmoid``. With ``eps`` given, ``input`` is first clamped to ``[eps, 1 -
    eps]`` so 0 and 1 give finite results; without it they give ``-inf`` and ``inf``.

    Args:
        input (Tensor): the input tensor.
        eps (float, optional): the clamping bound. Default: None (no clamping).

    Returns:
        Tensor: a new float tensor of the same shape.

    Examples:
        >>> import ember
        >>> x = ember.tensor([0.25, 0.5, 0.75])
        >>> ember.logit(x)
        tensor([-1.0986,  0.0000,  1.0986])
        >>> x.logit()
        tensor([-1.0986,  0.0000,  1.0986])
        >>> ember.tensor([0.0, 1.0]).logit(eps=0.1)
        tensor([-2.1972,  2.1972])
    """,
    "logit_": """In-place version of :func:`ember.logit`.

    Overwrites the tensor with the result and returns it. The result must fit the tensor's shape
    and dtype (``self`` is not broadcast, and a float result cannot go into an integer tensor).

    Examples:
        >>> import ember
        >>> x = ember.tensor([0.25, 0.5, 0.75])
        >>> x.logit_()
        tensor([-1.0986,  0.0000,  1.0986])
        >>> x
        tensor([-1.0986,  0.0000,  1.0986])
        >>> x = ember.tensor([0.25, 0.5, 0.75])
        >>> _ = ember.logit_(x)
        >>> x
        tensor([-1.0986,  0.0000,  1.0986])
    """,
    "logsumexp": """Log of the sum of exponentials over ``dim``.

    Computes ``log(sum(exp(input), dim))`` without overflow: the maximum is subtracted first.
    Integer inputs give the default float dtype.

    Args:
        input (Tensor): the input tensor.
        dim (int or tuple of ints): the dimensions to reduce.
        keepdim (bool, optional): keep the reduced dimensions with size 1. Default: False.

    Returns:
        Tensor: the reduced values.

    Examples:
        >>> import ember
        >>> x = ember.tensor([[0.0, 0.0], [1000.0, 1000.0]])
        >>> ember.logsumexp(x, dim=1)
        tensor([6.9315e-01, 1.0007e+03])
        >>> x.logsumexp(1, keepdim=True)
        tensor([[6.9315e-01],
                [1.0007e+03]])
    """,
    "Tensor.long": """The tensor converted to ``ember.int64``; ``self`` if it already is.

    The same as ``self.to(ember.int64)``. Conversion to an integer dtype truncates toward zero;
    to ``bool``, nonzero gives True.

    Args:
        memory_format (ember.memory_format, optional): the layout of a copy. Default:
            ``ember.preserve_format``.

    Returns:
        Tensor: a ``int64`` tensor.

    Examples:
        >>> import ember
        >>> x = ember.tensor([1.9, -1.9])
        >>> x.long()
        tensor([ 1, -1])
    """,
    "lt": """Test elementwise whether ``input`` is less than ``other``.

    The same as ``input < other``: the operands broadcast and promote, and the result is a
    ``bool`` tensor. ``less`` is an alias.

    Args:
        input (Tensor): the tensor to compare.
        other (Tensor or Number): the second operand, broadcast against ``input``.

    Returns:
        Tensor: a ``bool`` tensor of the broadcast shape.

    Raises:
        RuntimeError: the shapes cannot be broadcast together.

    Examples:
        >>> import ember
        >>> x = ember.tensor([1.0, 2.0, 3.0])
        >>> ember.lt(x, ember.tensor([1.0, 5.0, 3.0]))
        tensor([False,  True, False])
        >>> x.lt(2)
        tensor([ True, False, False])
        >>> x < 2
        tensor([ True, False, False])
    """,
    "lt_": """In-place version of :func:`ember.lt`.

    Overwrites the tensor with the result and returns it. The result must fit the tensor's shape
    and dtype (``self`` is not broadcast, and a float result cannot go into an integer tensor).

    Examples:
        >>> import ember
        >>> x = ember.tensor([1.0, 2.0, 3.0])
        >>> x.lt_(2)
        tensor([1., 0., 0.])
        >>> x
        tensor([1., 0., 0.])
    """,
    "lu_solve": """Solve ``A @ X = B`` from the LU factorization of ``A``.

    ``LU_data`` and ``LU_pivots`` are what ``ember.linalg.lu_factor`` returns.

    Args:
        input (Tensor): the right-hand side ``B``, shape ``(*, n, k)``.
        LU_data (Tensor): the packed LU factors of ``A``.
        LU_pivots (Tensor): the pivots (1-based, ``int32``).

    Returns:
        Tensor: the solution ``X``.

    Examples:
        >>> import ember
        >>> a = ember.tensor([[2.0, 1.0], [1.0, 3.0]])
        >>> LU, piv = ember.linalg.lu_factor(a)
        >>> ember.lu_solve(ember.tensor([[3.0], [4.0]]), LU, piv)
        tensor([[1.],
                [1.]])
    """,
    "lu_unpack": """Unpack an LU factorization into its permutation, lower and upper matrices.

    Args:
        LU_data (Tensor): the packed LU factors, shape ``(*, m, n)``.
        LU_pivots (Tensor): the pivots (1-based).
        unpack_data (bool, optional): compute ``L`` and ``U``. Default: True.
        unpack_pivots (bool, optional): compute ``P``. Default: True.

    Returns:
        tuple[Tensor, Tensor, Tensor]: ``(P, L, U)`` with ``A == P @ L @ U``.

    Examples:
        >>> import ember
        >>> a = ember.tensor([[1.0, 2.0], [3.0, 4.0]])
        >>> P, L, U = ember.lu_unpack(*ember.linalg.lu_factor(a))
        >>> P
        tensor([[0., 1.],
                [1., 0.]])
        >>> ember.allclose(P @ L @ U, a)
        True
    """,
}
