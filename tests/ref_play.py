#!/usr/bin/env python3
"""ref_play.py - an independent reference for `mhaviz play --json`.

A pure-Python model of PyTorch's tensor geometry (sizes, strides, storage
offset, storage identity, element size), written from PyTorch's own rules:
infer_size and computeStride (aten/src/ATen/InferSize.h, TensorUtils.cpp),
view/reshape/flatten/unflatten/expand/permute/transpose/t/T/mT/squeeze/
unsqueeze/narrow/select/slice (TensorShape.cpp, TensorIndexing.h),
clone's preserve_format (is_non_overlapping_and_dense, suggest_memory_format),
repeat and repeat_interleave, and the writes t[idx] = src (TensorIndexing.h's
copy_to, copy_'s overlap and broadcast checks: MemoryOverlap.cpp,
TensorIterator.cpp), with the error messages PyTorch raises.

It generates random chains of these operations on random shapes (and on the
pipeline's tensors, read from `mhaviz export`), runs them all through one
`mhaviz play --json`, and compares every answer: ok or error (and the error's
text), shape, strides, offset, contiguity, copied bytes, view or not, and
which statements share a storage (the storage ids must map one to one onto
the reference's storages), and which result is its input itself (PyTorch
returns self from a.contiguous() of a contiguous a, flatten(d, d) and a
0-dim .mT: JSON "same_as").  Some chains call a method PyTorch 1.13 has but
the playground does not ("`chunk` is not in the playground yet (supported:
...)", listing every operation modelled here) or one PyTorch lacks (its
AttributeError).

Usage: ref_play.py BIN [--seed N] [--chains N] [--length N] [-v] [--torch]
                     [--dump FILE] [-- CONFIG FLAGS]
--torch checks the reference itself against PyTorch instead (the
interpreter must have torch, e.g. Debian's /usr/bin/python3 with
python3-torch); error texts that differ only in wording are counted apart.
Exit 0 when everything agrees, 1 with the differences listed.
"""
import json
import random
import subprocess
import sys

MAXDIM = 6          # the engine's TENSOR_MAXDIM
MAX_STORAGE = 1000000


class PyErr(Exception):
    pass


class Storage:
    count = 0

    def __init__(self, n, itemsize):
        Storage.count += 1
        self.key = Storage.count
        self.n = n
        self.itemsize = itemsize


class T:
    def __init__(self, sizes, strides, offset, storage):
        self.sizes = list(sizes)
        self.strides = list(strides)
        self.offset = offset
        self.storage = storage

    @property
    def dim(self):
        return len(self.sizes)

    def numel(self):
        p = 1
        for s in self.sizes:
            p *= s
        return p

    def like(self, sizes, strides, offset=None):
        return T(sizes, strides, self.offset if offset is None else offset, self.storage)


class Ctx:
    """What one statement did: bytes copied."""

    def __init__(self):
        self.copied = 0


def fmt(v):
    return "[" + ", ".join(str(x) for x in v) + "]"


def check_result(sizes):
    if len(sizes) > MAXDIM:
        raise PyErr("mhaviz play keeps at most %d dimensions (this result has %d)" % (MAXDIM, len(sizes)))
    for s in sizes:
        if s < 0:
            raise PyErr("Trying to create tensor with negative dimension %d: %s" % (s, fmt(sizes)))


def wrap(dim, ndim):
    n = max(ndim, 1)
    if dim < -n or dim >= n:
        raise PyErr("Dimension out of range (expected to be in range of [%d, %d], but got %d)" % (-n, n - 1, dim))
    return dim + n if dim < 0 else dim


def contiguous_strides(sizes):
    st = [0] * len(sizes)
    acc = 1
    for i in range(len(sizes) - 1, -1, -1):
        st[i] = acc
        acc *= max(sizes[i], 1)
    return st


def is_contiguous(t):
    if t.numel() == 0:
        return True
    want = 1
    for size, stride in reversed(list(zip(t.sizes, t.strides))):
        if size == 1:
            continue
        if stride != want:
            return False
        want *= size
    return True


def is_dense(sizes, strides):
    if len(sizes) == 1:
        return sizes[0] < 2 or strides[0] == 1
    big = sorted([d for d in range(len(sizes)) if sizes[d] >= 2], key=lambda d: strides[d])
    need = 1
    for d in big:
        if strides[d] != need:
            return False
        need *= sizes[d]
    return True


def dense_strides_like(sizes, strides):
    """empty_like's infer_dense_strides: order the dims by stride the way
    TensorIterator does (stable insertion; 0 strides never move; equal
    strides put the smaller size first), then pack them densely."""
    n = len(sizes)
    if n <= 1:
        return [1] * n
    perm = list(range(n - 1, -1, -1))

    def should_swap(a, b):
        if strides[a] == 0 or strides[b] == 0:
            return 0
        if strides[a] != strides[b]:
            return -1 if strides[a] < strides[b] else 1
        return 1 if sizes[a] > sizes[b] else 0
    for i in range(1, n):
        d1 = i
        for j in range(1, i + 1):
            d0 = i - j
            c = should_swap(perm[d0], perm[d1])
            if c > 0:
                perm[d0], perm[d1] = perm[d1], perm[d0]
                d1 = d0
            elif c < 0:
                break
    out, cur = [0] * n, 1
    for d in perm:
        out[d] = cur
        if sizes[d] > 1:
            cur *= sizes[d]
    return out


def new_storage(t_sizes, strides, ctx, itemsize, copy):
    n = 1 if t_sizes else 1
    numel = 1
    for s in t_sizes:
        numel *= s
    if numel == 0:
        n = 0
    else:
        n = 1 + sum((s - 1) * st for s, st in zip(t_sizes, strides))
    if max(n, numel) > MAX_STORAGE:
        raise PyErr("mhaviz play: a new storage of %d elements is over the limit of %d" % (max(n, numel), MAX_STORAGE))
    if copy:
        ctx.copied += numel * itemsize
    return T(t_sizes, strides, 0, Storage(n, itemsize))


def copy_as(t, strides, ctx):
    check_result(t.sizes)
    return new_storage(t.sizes, strides, ctx, t.storage.itemsize, True)


def clone(t, ctx):
    if is_contiguous(t) or is_dense(t.sizes, t.strides):
        return copy_as(t, list(t.strides), ctx)
    return copy_as(t, dense_strides_like(t.sizes, t.strides), ctx)


def contiguous(t, ctx):
    if is_contiguous(t):
        return t  # PyTorch returns self: a.contiguous() is a
    return copy_as(t, contiguous_strides(t.sizes), ctx)


def infer_size(shape, numel):
    newsize, infer = 1, None
    for i, s in enumerate(shape):
        if s == -1:
            if infer is not None:
                raise PyErr("only one dimension can be inferred")
            infer = i
        elif s >= 0:
            newsize *= s
        else:
            raise PyErr("invalid shape dimension %d" % s)
    if numel == newsize or (infer is not None and newsize > 0 and numel % newsize == 0):
        out = list(shape)
        if infer is not None:
            if newsize == 0:
                raise PyErr("cannot reshape tensor of 0 elements into shape %s because the unspecified "
                            "dimension size -1 can be any value and is ambiguous" % fmt(shape))
            out[infer] = numel // newsize
        return out
    raise PyErr("shape '%s' is invalid for input of size %d" % (fmt(shape), numel))


def compute_stride(osz, ost, nsz):
    """TensorUtils.cpp computeStride; None when no view can do it."""
    if not osz:
        return [1] * len(nsz)
    numel = 1
    for s in osz:
        numel *= s
    if numel == 0:
        if list(osz) == list(nsz):
            return list(ost)
        out = [0] * len(nsz)
        for d in range(len(nsz) - 1, -1, -1):
            out[d] = 1 if d == len(nsz) - 1 else max(nsz[d + 1], 1) * out[d + 1]
        return out
    out = [0] * len(nsz)
    vd = len(nsz) - 1
    base = ost[-1]
    tn, vn = 1, 1
    for td in range(len(osz) - 1, -1, -1):
        tn *= osz[td]
        if td == 0 or (osz[td - 1] != 1 and ost[td - 1] != tn * base):
            while vd >= 0 and (vn < tn or nsz[vd] == 1):
                out[vd] = vn * base
                vn *= nsz[vd]
                vd -= 1
            if vn != tn:
                return None
            if td > 0:
                base = ost[td - 1]
                tn, vn = 1, 1
    return out if vd == -1 else None


def view(t, shape, ctx):
    sz = infer_size(shape, t.numel())
    st = compute_stride(t.sizes, t.strides, sz)
    if st is None:
        raise PyErr("view size is not compatible with input tensor's size and stride (at least one dimension "
                    "spans across two contiguous subspaces). Use .reshape(...) instead.")
    check_result(sz)
    return t.like(sz, st)


def reshape(t, shape, ctx):
    sz = infer_size(shape, t.numel())
    st = compute_stride(t.sizes, t.strides, sz)
    check_result(sz)
    if st is not None:
        return t.like(sz, st)
    c = copy_as(t, contiguous_strides(t.sizes), ctx)
    return c.like(sz, contiguous_strides(sz))


def flatten(t, s, e, ctx):
    s, e = wrap(s, t.dim), wrap(e, t.dim)
    if s > e:
        raise PyErr("flatten() has invalid args: start_dim cannot come after end_dim")
    if t.dim == 0:
        return reshape(t, [1], ctx)
    if s == e:
        return t  # ATen's flatten returns self
    mid = 1
    for x in t.sizes[s:e + 1]:
        mid *= x
    return reshape(t, t.sizes[:s] + [mid] + t.sizes[e + 1:], ctx)


def unflatten(t, dim, sizes, ctx):
    d = wrap(dim, t.dim)
    if not sizes:
        raise PyErr("unflatten: sizes must be non-empty")
    if t.dim == 0:
        raise PyErr("Dimension specified as %d but tensor has no dimensions" % d)
    try:
        inf = infer_size(sizes, t.sizes[d])
    except PyErr as e:
        if "is invalid for input of size" not in str(e):
            raise PyErr("unflatten got an unexpected error: %s" % e)
        raise PyErr("unflatten: Provided sizes %s don't multiply up to the size of dim %d (%d) in the input tensor"
                    % (fmt(sizes), d, t.sizes[d]))
    return view(t, t.sizes[:d] + inf + t.sizes[d + 1:], ctx)


def transpose(t, a, b):
    a, b = wrap(a, t.dim), wrap(b, t.dim)
    sz, st = list(t.sizes), list(t.strides)
    if t.dim:
        sz[a], sz[b] = sz[b], sz[a]
        st[a], st[b] = st[b], st[a]
    return t.like(sz, st)


def permute(t, dims):
    if len(dims) != t.dim:
        raise PyErr("permute(sparse_coo): number of dimensions in the tensor input does not match the length "
                    "of the desired ordering of dimensions i.e. input.dim() = %d is not equal to len(dims) = %d"
                    % (t.dim, len(dims)))
    seen, sz, st = set(), [], []
    for d in dims:
        w = wrap(d, t.dim)
        if w in seen:
            raise PyErr("permute(): duplicate dims are not allowed.")
        seen.add(w)
        sz.append(t.sizes[w])
        st.append(t.strides[w])
    return t.like(sz, st)


def tdot(t):
    if t.dim > 2:
        raise PyErr("t() expects a tensor with <= 2 dimensions, but self is %dD" % t.dim)
    return transpose(t, 0, 0 if t.dim < 2 else 1)


def numpy_T(t):
    return permute(t, list(range(t.dim - 1, -1, -1))) if t.dim else t.like(t.sizes, t.strides)


def mT(t):
    if t.dim == 1:
        raise PyErr("tensor.mT is only supported on matrices or batches of matrices. Got 1-D tensor.")
    return transpose(t, -2, -1) if t.dim else t  # 0-dim: PyTorch returns self


def expand(t, sizes):
    if len(sizes) < t.dim:
        tn = "torch.LongTensor" if t.storage.itemsize == 8 else "torch.FloatTensor"
        raise PyErr("expand(%s{%s}, size=%s): the number of sizes provided (%d) must be greater or equal to "
                    "the number of dimensions in the tensor (%d)" % (tn, fmt(t.sizes), fmt(sizes), len(sizes), t.dim))
    n = len(sizes)
    if t.dim == 0:
        check_result(sizes)
        return t.like(list(sizes), [0] * n)
    osz, ost = [0] * n, [0] * n
    for i in range(n - 1, -1, -1):
        d = t.dim - 1 - (n - 1 - i)
        size = t.sizes[d] if d >= 0 else 1
        stride = t.strides[d] if d >= 0 else osz[i + 1] * ost[i + 1]
        target = sizes[i]
        if target == -1:
            if d < 0:
                raise PyErr("The expanded size of the tensor (-1) isn't allowed in a leading, non-existing dimension %d" % i)
            target = size
        if size != target:
            if size != 1:
                raise PyErr("The expanded size of the tensor (%d) must match the existing size (%d) at non-singleton "
                            "dimension %d.  Target sizes: %s.  Tensor sizes: %s" % (target, size, i, fmt(sizes), fmt(t.sizes)))
            size, stride = target, 0
        osz[i], ost[i] = size, stride
    check_result(osz)
    return t.like(osz, ost)


def unsqueeze(t, dim):
    d = wrap(dim, t.dim + 1)
    stride = 1 if d >= t.dim else t.sizes[d] * t.strides[d]
    sz, st = list(t.sizes), list(t.strides)
    sz.insert(d, 1)
    st.insert(d, stride)
    check_result(sz)
    return t.like(sz, st)


def squeeze(t, dims):
    if dims is None:
        keep = [i for i in range(t.dim) if t.sizes[i] != 1]
    else:
        drop = set()
        for d in dims:
            w = wrap(d, t.dim)
            if t.dim and t.sizes[w] == 1:
                drop.add(w)
        keep = [i for i in range(t.dim) if i not in drop]
    return t.like([t.sizes[i] for i in keep], [t.strides[i] for i in keep])


def slice_(t, d, start, stop, step):
    size = t.sizes[d]
    if start < 0:
        start += size
    if stop < 0:
        stop += size
    start = 0 if start < 0 else min(start, size)
    stop = start if stop < start else min(stop, size)
    sz, st = list(t.sizes), list(t.strides)
    sz[d] = (stop - start + step - 1) // step
    st[d] *= step
    return t.like(sz, st, t.offset + start * t.strides[d])


def narrow(t, dim, start, length):
    if t.dim == 0:
        raise PyErr("narrow() cannot be applied to a 0-dim tensor.")
    if length < 0:
        raise PyErr("narrow(): length must be non-negative.")
    d = wrap(dim, t.dim)
    cur = t.sizes[d]
    if start < -cur or start > cur:
        raise PyErr("start out of range (expected to be in range of [%d, %d], but got %d)" % (-cur, cur, start))
    if start < 0:
        start += cur
    if start > cur - length:
        raise PyErr("start (%d) + length (%d) exceeds dimension size (%d)." % (start, length, cur))
    return slice_(t, d, start, start + length, 1)


def select(t, d, i, real):
    if t.dim == 0 and i == 0 and d == 0:
        raise PyErr("invalid index of a 0-dim tensor. Use `tensor.item()` in Python or `tensor.item<T>()` in C++ "
                    "to convert a 0-dim tensor to a number")
    size = t.sizes[d] if d < t.dim else 0
    if i < -size or i >= size:
        raise PyErr("index %d is out of bounds for dimension %d with size %d" % (i, real, size))
    if i < 0:
        i += size
    return t.like(t.sizes[:d] + t.sizes[d + 1:], t.strides[:d] + t.strides[d + 1:], t.offset + i * t.strides[d])


MAX_PIECES = 16  # the playground's tuple (PLAY_MAX_KIDS)


def pick(pieces, i):
    """tuple[i] of a tuple of tensors, as Python indexes it"""
    if len(pieces) > MAX_PIECES:
        raise PyErr("mhaviz play: a tuple holds at most %d tensors (this one would be %d)" % (MAX_PIECES, len(pieces)))
    if i < -len(pieces) or i >= len(pieces):
        raise PyErr("tuple index out of range")
    return pieces[i]


def cut(t, d, lengths):
    out, start = [], 0
    for n in lengths:
        n = min(n, t.sizes[d] - start)
        out.append(t.like(t.sizes[:d] + [n] + t.sizes[d + 1:], t.strides, t.offset + start * t.strides[d]))
        start += n
    return out


def split(t, size, dim):
    if t.dim == 0:
        raise PyErr("split expects at least a 1-dimensional tensor")
    if size < 0:
        raise PyErr("split expects split_size be non-negative, but got split_size=%d" % size)
    d = wrap(dim, t.dim)
    n = t.sizes[d]
    if size == 0 and n != 0:
        raise PyErr("split_size can only be 0 if dimension size is 0, but got dimension size of %d" % n)
    k = max((n + size - 1) // size, 1) if size else 1
    if k > MAX_PIECES:
        raise PyErr("mhaviz play: a tuple holds at most %d tensors (this one would be %d)" % (MAX_PIECES, k))
    return cut(t, d, [size] * (k - 1) + [size - (size * k - n)])


def split_sizes(t, sizes, dim):
    if t.dim == 0:
        raise PyErr("split expects at least a 1-dimensional tensor")
    d = wrap(dim, t.dim)
    if any(s < 0 for s in sizes):
        raise PyErr("split_with_sizes expects split_sizes have only non-negative entries, but got split_sizes=%s"
                    % fmt(sizes))
    if sum(sizes) != t.sizes[d]:
        raise PyErr("split_with_sizes expects split_sizes to sum exactly to %d (input tensor's size at dimension "
                    "%d), but got split_sizes=%s" % (t.sizes[d], dim, fmt(sizes)))
    return cut(t, d, sizes)


def chunk(t, chunks, dim):
    if t.dim == 0:
        raise PyErr("chunk expects at least a 1-dimensional tensor")
    if chunks <= 0:
        raise PyErr("chunk expects `chunks` to be greater than 0, got: %d" % chunks)
    d = wrap(dim, t.dim)
    n = t.sizes[d]
    size = (n + chunks - 1) // chunks
    if size == 0 and n == 0:
        if chunks > MAX_PIECES:
            raise PyErr("mhaviz play: a tuple holds at most %d tensors (this one would be %d)" % (MAX_PIECES, chunks))
        return cut(t, d, [0] * chunks)
    return split(t, size, d)


def unbind(t, dim):
    d = wrap(dim, t.dim)  # a scalar wraps as 1-D, then has no size
    if t.dim == 0:
        raise PyErr("Dimension specified as %d but tensor has no dimensions" % d)
    if t.sizes[d] > MAX_PIECES:
        raise PyErr("mhaviz play: a tuple holds at most %d tensors (this one would be %d)" % (MAX_PIECES, t.sizes[d]))
    return [select(t, d, i, d) for i in range(t.sizes[d])]


def select_method(t, dim, i):
    if t.dim == 0:
        raise PyErr("select() cannot be applied to a 0-dim tensor.")
    d = wrap(dim, t.dim)
    if i < -t.sizes[d] or i >= t.sizes[d]:
        raise PyErr("select(): index %d out of range for tensor of size %s at dimension %d" % (i, fmt(t.sizes), d))
    return select(t, d, i, d)


def movedim(t, src, dst):
    if len(src) != len(dst):
        raise PyErr("movedim: Invalid source or destination dims: source (%s dims) should contain the same number "
                    "of dims as destination (%s dims)" % (fmt(src), fmt(dst)))
    ws = [wrap(d, t.dim) for d in src]
    wd = [wrap(d, t.dim) for d in dst]
    if len(set(ws)) != len(ws):
        raise PyErr("movedim: repeated dim in `source` (%s)" % fmt(src))
    if len(set(wd)) != len(wd):
        raise PyErr("movedim: repeated dim in `destination` (%s)" % fmt(dst))
    if t.dim == 0:
        return t.like(t.sizes, t.strides)
    order = [None] * t.dim
    for a, b in zip(ws, wd):
        order[b] = a
    rest = iter(d for d in range(t.dim) if d not in ws)
    order = [o if o is not None else next(rest) for o in order]
    return permute(t, order)


def index_select(t, dim, index, ctx):
    """index_select(dim, torch.arange(a, b)): a contiguous copy"""
    d = wrap(dim, t.dim)
    size = t.sizes[d]
    for i in index:
        if size == 0 and d == 1:  # ATen's dim-1 kernel has words of its own
            raise PyErr("index_select(): self indexing axis dim should be positive")
        if (i < 0 or i >= size) and d == 1:
            raise PyErr("INDICES element is out of DATA bounds, id=%d axis_dim=%d" % (i, size))
        if i < 0 or i >= size:
            raise PyErr("index out of range in self")
    sizes = t.sizes[:d] + [len(index)] + t.sizes[d + 1:]
    check_result(sizes)
    return new_storage(sizes, contiguous_strides(sizes), ctx, t.storage.itemsize, True)


def flip(t, dims, ctx):
    seen = set()
    for d in dims:
        w = wrap(d, t.dim)
        if w in seen:
            raise PyErr("dim %d appears multiple times in the list of dims" % w)
        seen.add(w)
    return clone(t, ctx)  # empty_like(preserve_format): clone's strides


def index(t, items):
    """items: ('int', v) ('slice', a, b, c) ('none',) ('ell',)"""
    spec = sum(1 for it in items if it[0] in ("int", "slice"))
    if spec > t.dim and not (len(items) == 1 and t.dim == 0):
        raise PyErr("too many indices for tensor of dimension %d" % t.dim)
    r, d = t, 0
    for pos, it in enumerate(items):
        if it[0] == "ell":
            d += t.dim - spec
        elif it[0] == "none":
            r = unsqueeze(r, d)
            d += 1
        elif it[0] == "slice":
            a, b, c = it[1], it[2], it[3]
            c = 1 if c is None else c
            if c == 0:
                raise PyErr("slice step cannot be zero")
            if c < 0:
                raise PyErr("step must be greater than zero")
            if r.dim == 0:
                raise PyErr("slice() cannot be applied to a 0-dim tensor.")
            wrap(d, r.dim)
            r = slice_(r, d, 0 if a is None else a, (1 << 62) if b is None else b, c)
            d += 1
        else:
            r = select(r, d, it[1], pos)
    return r if r is not t else t.like(t.sizes, t.strides)  # t[...] is a new tensor


def repeat(t, reps, ctx):
    if len(reps) < t.dim:
        raise PyErr("Number of dimensions of repeat dims can not be smaller than number of dimensions of tensor")
    pad = [1] * (len(reps) - t.dim) + list(t.sizes)
    sz = [p * r for p, r in zip(pad, reps)]
    check_result(sz)
    return new_storage(sz, contiguous_strides(sz), ctx, t.storage.itemsize, True)


def repeat_interleave(t, reps, dim, ctx):
    src = flatten(t, 0, -1, ctx) if dim is None else t
    if src.dim == 0:
        raise PyErr("Dimension specified as %d but tensor has no dimensions" % dim)
    d = 0 if dim is None else wrap(dim, src.dim)
    if reps < 0:
        raise PyErr("repeats can not be negative")
    sz = list(src.sizes)
    sz[d] *= reps
    check_result(sz)
    return new_storage(sz, contiguous_strides(sz), ctx, t.storage.itemsize, True)


# --- writes: t[idx] = src (TensorIndexing.h's copy_to) and copy_ ------------------

def internal_overlap(t):
    """has_internal_overlap == Yes: a stride-0 dim of size > 1 (not dense)."""
    if is_dense(t.sizes, t.strides):
        return False
    return any(s > 1 and st == 0 for s, st in zip(t.sizes, t.strides))


def partial_overlap(a, b):
    if a.storage is not b.storage or not a.numel() or not b.numel():
        return False
    if not is_dense(a.sizes, a.strides) or not is_dense(b.sizes, b.strides):
        return False
    ab, ae, bb, be = a.offset, a.offset + a.numel(), b.offset, b.offset + b.numel()
    if (ab, ae) == (bb, be):
        return a.strides != b.strides
    return ab < be and bb < ae


def copy_(dst, src, ctx):
    """dst.copy_(src): ATen's order of checks; the elements written, as bytes."""
    if (dst.storage is src.storage and dst.offset == src.offset and dst.sizes == src.sizes
            and dst.strides == src.strides):
        return dst
    if internal_overlap(dst):
        raise PyErr("unsupported operation: more than one element of the written-to tensor refers to a single "
                    "memory location. Please clone() the tensor before performing the operation.")
    if partial_overlap(dst, src):
        raise PyErr("unsupported operation: some elements of the input tensor and the written-to tensor refer to "
                    "a single memory location. Please clone() the tensor before performing the operation.")
    shape = list(dst.sizes)
    if not shape:
        shape = list(src.sizes)
    else:
        m = max(len(shape), src.dim)
        a = [1] * (m - len(shape)) + shape
        b = [1] * (m - src.dim) + list(src.sizes)
        for i in range(m - 1, -1, -1):
            if a[i] != b[i] and a[i] != 1 and b[i] != 1:
                raise PyErr("The size of tensor a (%d) must match the size of tensor b (%d) at non-singleton "
                            "dimension %d" % (a[i], b[i], i))
        shape = [y if x == 1 else x for x, y in zip(a, b)]
    if shape != list(dst.sizes):
        raise PyErr("output with shape %s doesn't match the broadcast shape %s" % (fmt(dst.sizes), fmt(shape)))
    ctx.copied += dst.numel() * dst.storage.itemsize
    return dst


def setitem(dst, src, ctx):
    """t[idx] = src: copy_ when the shapes agree, a fill for a number or a
    0-dim src, else src without its leading 1s expanded to dst."""
    if src is not None and list(dst.sizes) == list(src.sizes):
        return copy_(dst, src, ctx)
    if src is None or src.dim == 0:
        ctx.copied += dst.numel() * dst.storage.itemsize
        return dst
    lead = 0
    while lead < src.dim and src.sizes[lead] == 1:
        lead += 1
    view = src.like(src.sizes[lead:], src.strides[lead:])
    return copy_(dst, expand(view, dst.sizes), ctx)


# --- the random chains ------------------------------------------------------------

def rand_shape_of(rng, numel):
    """A random factorisation of numel into 1-4 dims (with a -1 sometimes)."""
    if numel == 0:
        return rng.choice([[0], [2, 0], [0, 3], [0, -1], [3, 0, 2], [-1]])
    dims = []
    n = numel
    for _ in range(rng.randint(1, 4)):
        divs = [d for d in range(1, n + 1) if n % d == 0]
        d = rng.choice(divs)
        dims.append(d)
        n //= d
    dims.append(n)
    rng.shuffle(dims)
    dims = [d for d in dims if d != 1 or rng.random() < 0.3] or [numel]
    if numel and dims and rng.random() < 0.3:
        dims[rng.randrange(len(dims))] = -1
    if rng.random() < 0.05:  # a wrong count
        dims.append(rng.choice([2, 3, 5]))
    return dims[:MAXDIM]


def rdim(rng, t, extra=0):
    n = max(t.dim + extra, 1)
    d = rng.randint(-n, n - 1)
    if rng.random() < 0.04:
        d = rng.choice([n, -n - 1])  # out of range
    return d


# The operations this model generates: the playground must list each as supported.
MODELLED = {"view", "reshape", "transpose", "permute", "t", "T", "mT", "contiguous", "clone", "expand",
            "unsqueeze", "squeeze", "flatten", "unflatten", "narrow", "repeat", "repeat_interleave",
            "stride", "shape", "size", "storage_offset", "is_contiguous", "chunk", "split", "unbind", "select",
            "movedim", "flip", "index_select"}
NEEDS = {"permute": "dims", "repeat": "repeats", "expand": "size", "reshape": "shape", "flip": "dims"}
OLD_TORCH = False  # set by --torch: PyTorch 1.x has no squeeze(tuple)


def no_args(name):
    def f(x, c):
        if name in NEEDS:
            raise PyErr('%s() missing 1 required positional arguments: "%s"' % (name, NEEDS[name]))
        raise PyErr("%s() received an invalid combination of arguments - got (), but expected (tuple of ints "
                    "%s)" % (name, "shape" if name == "view" else "size"))
    return f


# Real PyTorch 1.13 methods the playground does not have (the playground
# says "`NAME` is not in the playground yet (supported: ...)"), and names
# PyTorch does not have (Python's AttributeError).
NOT_YET = [".roll(1)", ".diagonal()", ".sum()", ".tolist()", ".abs()", ".unfold(0, 1, 1)", ".roll(1)",
           ".roll", ".tolist()"]
NO_SUCH = [".nope()", ".viewas(0)", ".contiguos()"]


class NotYet(PyErr):
    pass


def gen_op(rng, t):
    """(code, fn) for a random operation on t (fn: t, ctx -> T or value)."""
    if rng.random() < 0.03:
        code = rng.choice(NOT_YET)
        name = code[1:].split("(")[0]

        def not_yet(x, c):
            raise NotYet("`%s` is not in the playground yet (supported: " % name)
        return code, not_yet
    if rng.random() < 0.01:
        code = rng.choice(NO_SUCH)
        name = code[1:].split("(")[0]

        def no_such(x, c):
            raise PyErr("'Tensor' object has no attribute '%s'" % name)
        return code, no_such
    ops = ["view", "reshape", "transpose", "permute", "t", "T", "mT", "contiguous", "clone", "expand",
           "unsqueeze", "squeeze", "flatten", "unflatten", "narrow", "repeat", "repeat_interleave", "index",
           "index", "index", "query", "pieces", "pieces", "select", "movedim", "flip", "index_select"]
    op = rng.choice(ops)
    if op in ("view", "reshape"):
        shape = rand_shape_of(rng, t.numel()) if t.numel() <= 5000 else [-1]
        f = view if op == "view" else reshape
        if not shape:
            return ".%s()" % op, no_args(op)
        return ".%s(%s)" % (op, ", ".join(map(str, shape))), lambda x, c: f(x, shape, c)
    if op == "transpose":
        a, b = rdim(rng, t), rdim(rng, t)
        return ".transpose(%d, %d)" % (a, b), lambda x, c: transpose(x, a, b)
    if op == "permute":
        dims = list(range(t.dim))
        rng.shuffle(dims)
        dims = [d - t.dim if rng.random() < 0.3 else d for d in dims]
        if rng.random() < 0.05 and dims:
            dims[0] = dims[-1]
        if not dims:
            return ".permute()", no_args("permute")
        return ".permute(%s)" % ", ".join(map(str, dims)), lambda x, c: permute(x, dims)
    if op == "t":
        return ".t()", lambda x, c: tdot(x)
    if op == "T":
        return ".T", lambda x, c: numpy_T(x)
    if op == "mT":
        return ".mT", lambda x, c: mT(x)
    if op == "contiguous":
        return ".contiguous()", lambda x, c: contiguous(x, c)
    if op == "clone":
        return ".clone()", lambda x, c: clone(x, c)
    if op == "expand":
        lead = [rng.randint(1, 3) for _ in range(rng.randint(0, 2))]
        sizes = lead + [(-1 if rng.random() < 0.3 else (rng.randint(1, 4) if s == 1 else s)) for s in t.sizes]
        if rng.random() < 0.1 and sizes:
            sizes[-1] = sizes[-1] + 1 if sizes[-1] > 0 else 2
        if not sizes:
            return ".expand()", no_args("expand")
        return ".expand(%s)" % ", ".join(map(str, sizes)), lambda x, c: expand(x, sizes)
    if op == "unsqueeze":
        d = rdim(rng, t, 1)
        return ".unsqueeze(%d)" % d, lambda x, c: unsqueeze(x, d)
    if op == "squeeze":
        r = rng.random()
        if r < 0.4:
            return ".squeeze()", lambda x, c: squeeze(x, None)
        if r < 0.8 or OLD_TORCH:
            d = rdim(rng, t)
            return ".squeeze(%d)" % d, lambda x, c: squeeze(x, [d])
        ds = [rdim(rng, t) for _ in range(2)]
        return ".squeeze((%d, %d))" % tuple(ds), lambda x, c: squeeze(x, ds)
    if op == "flatten":
        a, b = rdim(rng, t), rdim(rng, t)
        if rng.random() < 0.3:
            return ".flatten()", lambda x, c: flatten(x, 0, -1, c)
        if rng.random() < 0.3:
            return ".flatten(start_dim=%d)" % a, lambda x, c: flatten(x, a, -1, c)
        return ".flatten(%d, %d)" % (a, b), lambda x, c: flatten(x, a, b, c)
    if op == "unflatten":
        d = rdim(rng, t)
        size = t.sizes[wrap(d, t.dim)] if t.dim and -t.dim <= d < t.dim else 6
        sizes = rand_shape_of(rng, size)[:3] if size <= 5000 else [-1]
        return ".unflatten(%d, (%s,))" % (d, ", ".join(map(str, sizes))), lambda x, c: unflatten(x, d, sizes, c)
    if op == "narrow":
        d = rdim(rng, t)
        size = t.sizes[wrap(d, t.dim)] if t.dim and -t.dim <= d < t.dim else 3
        s = rng.randint(-size - 1, size + 1)
        ln = rng.randint(-1, size + 1) if rng.random() < 0.2 else rng.randint(0, max(size - max(s, 0), 0))
        return ".narrow(%d, %d, %d)" % (d, s, ln), lambda x, c: narrow(x, d, s, ln)
    if op == "repeat":
        reps = [rng.randint(1, 2) for _ in range(rng.randint(0, 1))] + [rng.randint(0, 2) for _ in t.sizes]
        if t.numel() > 2000:
            reps = [1] * t.dim
        if not reps:
            return ".repeat()", no_args("repeat")
        return ".repeat(%s)" % ", ".join(map(str, reps)), lambda x, c: repeat(x, reps, c)
    if op == "repeat_interleave":
        n = rng.randint(0, 3) if t.numel() < 2000 else 1
        if rng.random() < 0.4:
            return ".repeat_interleave(%d)" % n, lambda x, c: repeat_interleave(x, n, None, c)
        d = rdim(rng, t)
        return ".repeat_interleave(%d, dim=%d)" % (n, d), lambda x, c: repeat_interleave(x, n, d, c)
    if op == "pieces":
        d, i = rdim(rng, t), rng.randint(-3, 3)
        size = t.sizes[wrap(d, t.dim)] if t.dim and -t.dim <= d < t.dim else 3
        kind = rng.choice(["chunk", "split", "sizes", "unbind"])
        if kind == "chunk":
            k = rng.randint(0 if rng.random() < 0.05 else 1, 5)
            return ".chunk(%d, dim=%d)[%d]" % (k, d, i), lambda x, c: pick(chunk(x, k, d), i)
        if kind == "split":
            k = rng.randint(-1 if rng.random() < 0.05 else 0, 4)
            return ".split(%d, %d)[%d]" % (k, d, i), lambda x, c: pick(split(x, k, d), i)
        if kind == "sizes":
            parts = [rng.randint(0, max(size, 1)) for _ in range(rng.randint(1, 3))]
            if rng.random() < 0.7 and parts:
                parts[-1] = size - sum(parts[:-1])
            return ".split([%s], dim=%d)[%d]" % (", ".join(map(str, parts)), d, i), \
                lambda x, c: pick(split_sizes(x, parts, d), i)
        return ".unbind(%d)[%d]" % (d, i), lambda x, c: pick(unbind(x, d), i)
    if op == "select":
        d = rdim(rng, t)
        size = t.sizes[wrap(d, t.dim)] if t.dim and -t.dim <= d < t.dim else 3
        i = rng.randint(-size - 1, size)
        return ".select(%d, %d)" % (d, i), lambda x, c: select_method(x, d, i)
    if op == "movedim":
        if rng.random() < 0.5:
            a, b = rdim(rng, t), rdim(rng, t)
            return ".movedim(%d, %d)" % (a, b), lambda x, c: movedim(x, [a], [b])
        k = rng.randint(1, 3)
        a = [rdim(rng, t) for _ in range(k)]
        b = [rdim(rng, t) for _ in range(k if rng.random() < 0.9 else k - 1)]
        return ".movedim((%s,), (%s))" % (", ".join(map(str, a)), ", ".join(map(str, b)) + ("," if b else "")), \
            lambda x, c: movedim(x, a, b)
    if op == "index_select" and t.dim > 0:
        d = rdim(rng, t)
        size = t.sizes[wrap(d, t.dim)] if -t.dim <= d < t.dim else 3
        a = rng.randint(-1, size) if rng.random() < 0.1 else rng.randint(0, size)
        b = rng.randint(a, size + (1 if rng.random() < 0.1 else 0))
        return ".index_select(%d, torch.arange(%d, %d))" % (d, a, b), \
            lambda x, c: index_select(x, d, list(range(a, b)), c)
    if op == "flip":
        dims = [rdim(rng, t) for _ in range(rng.randint(0 if rng.random() < 0.1 else 1, 2))]
        if not dims:
            return ".flip()", no_args("flip")
        return ".flip(%s)" % ", ".join(map(str, dims)), lambda x, c: flip(x, dims, c)
    if op == "index":
        return gen_index(rng, t)
    q = rng.choice(["stride", "shape", "storage_offset", "is_contiguous", "size", "stride_d"])
    if q == "stride":
        return ".stride()", lambda x, c: ("value", list(x.strides))
    if q == "shape":
        return ".shape", lambda x, c: ("value", list(x.sizes))
    if q == "size":
        return ".size()", lambda x, c: ("value", list(x.sizes))
    if q == "storage_offset":
        return ".storage_offset()", lambda x, c: ("value", x.offset)
    if q == "is_contiguous":
        return ".is_contiguous()", lambda x, c: ("value", is_contiguous(x))
    d = rdim(rng, t)

    def stride_d(x, c):
        if x.dim == 0:
            raise PyErr("Dimension specified as %d but tensor has no dimensions" % d)
        return ("value", x.strides[wrap(d, x.dim)])
    return ".stride(%d)" % d, stride_d


def gen_index(rng, t):
    """(code, fn) for a random t[...]: ints, slices, None, one ..."""
    items, code = [], []
    ell = False
    for _ in range(rng.randint(1, min(t.dim + 1, 4))):
        r = rng.random()
        if r < 0.3:
            v = rng.randint(-4, 4)
            items.append(("int", v)); code.append(str(v))
        elif r < 0.75:
            a = rng.choice([None, None, rng.randint(-5, 5)])
            b = rng.choice([None, rng.randint(-5, 6)])
            c = rng.choice([None, None, 1, 2, 3] + ([0, -1] if rng.random() < 0.05 else []))
            items.append(("slice", a, b, c))
            code.append("%s:%s%s" % ("" if a is None else a, "" if b is None else b,
                                     "" if c is None else ":%d" % c))
        elif r < 0.9:
            items.append(("none",)); code.append("None")
        elif not ell or rng.random() < 0.1:
            ell = True
            items.append(("ell",)); code.append("...")
    if not items:
        items, code = [("ell",)], ["..."]
    return "[%s]" % ", ".join(code), lambda x, c: index(x, items)


def gen_source(rng, pipeline):
    r = rng.random()
    if r < 0.45:
        n = rng.choice([0, 1, 6, 12, 24, 24, 36, 48, 60, 64, 120])
        return "torch.arange(%d)" % n, T([n], [1], 0, Storage(n, 8))
    if r < 0.8:
        dims = [rng.randint(0 if rng.random() < 0.05 else 1, 5) for _ in range(rng.randint(0, 4))]
        n = 1
        for d in dims:
            n *= d
        return "torch.zeros(%s)" % (", ".join(map(str, dims)) or "()"), T(dims, contiguous_strides(dims), 0, Storage(n, 4))
    name = rng.choice(sorted(pipeline))
    return name, pipeline[name]


def pipeline_tensors(binary, flags):
    out = subprocess.run([binary, "export"] + flags, capture_output=True, text=True, check=True).stdout
    doc = json.loads(out)
    stores, env = {}, {}
    for name, t in doc["tensors"].items():
        sid = t["storage"]
        if sid not in stores:
            stores[sid] = Storage(0, 4)
        env[name] = T(t["shape"], t["strides"], t["offset"], stores[sid])
    return env


def torch_check(binary, lines, expect, verbose, flags):
    """The reference itself checked against the real PyTorch, when this
    interpreter has it (Debian's python3-torch): every statement run in
    torch, its geometry, sharing and error text compared with the model's.
    Returns the list of differences (messages that only differ across
    PyTorch versions are listed apart)."""
    import warnings
    import torch
    warnings.simplefilter("ignore")
    doc = json.loads(subprocess.run([binary, "export"] + flags, capture_output=True, text=True, check=True).stdout)
    env, bases = {"torch": torch}, {}
    for name, t in doc["tensors"].items():
        ext = 1 + sum((a - 1) * b for a, b in zip(t["shape"], t["strides"])) + t["offset"]
        base = bases.setdefault(t["storage"], torch.zeros(4096))
        env[name] = base.as_strided(t["shape"], t["strides"], t["offset"])
    diffs, wording = [], []
    for i, (line, want) in enumerate(zip(lines, expect)):
        target, expr = (line.split(" = ", 1) + [None])[:2] if " = " in line else (None, line)
        if expr is None:
            target, expr = None, line
        where = "line %d `%s`" % (i + 1, line)
        known = {x.storage()._cdata for x in env.values() if isinstance(x, torch.Tensor)}
        if want[0] == "notyet":  # PyTorch has the name: no AttributeError
            name = want[1].split("`")[1]
            if not hasattr(torch.Tensor, name):
                diffs.append("%s: the playground says `%s` is not there yet, but torch has no such name"
                             % (where, name))
            continue
        store = target is not None and "[" in target  # base[idx] = src: run it, then read the view
        try:
            if store:
                exec(line, env)
                v = eval(target, env)
            else:
                v = eval(expr, env)
        except Exception as e:  # noqa: BLE001 - any torch error is an answer
            msg = str(e).splitlines()[0]
            if want[0] != "error":
                diffs.append("%s: torch raised %r, the reference did not" % (where, msg))
            elif msg != want[1]:
                wording.append("%s: torch says %r, the reference %r" % (where, msg, want[1]))
            continue
        if want[0] == "error":
            if want[1].startswith("start out of range"):
                # PyTorch 2 checks start against [-size, size]; 1.x wrapped it like a dim
                wording.append("%s: the reference says %r (PyTorch 2), torch %s did not raise"
                               % (where, want[1], torch.__version__))
            elif "mhaviz play" not in want[1]:
                diffs.append("%s: the reference raised %r, torch did not" % (where, want[1]))
            continue
        if want[0] == "value":
            got = list(v) if isinstance(v, (tuple, torch.Size)) else v
            if got != want[1]:
                diffs.append("%s: torch %r, the reference %r" % (where, got, want[1]))
            continue
        t = want[1]
        got = (list(v.shape), list(v.stride()), v.storage_offset(), v.is_contiguous(),
               v.storage()._cdata in known)
        ref = (t.sizes, t.strides, t.offset, is_contiguous(t), want[3])
        if got != ref:
            diffs.append("%s: torch %r, the reference %r" % (where, got, ref))
        if store:
            continue
        base = expr.split(".")[0].split("[")[0].strip()
        same = want[4] is not None
        if (v is env.get(base)) != same:
            diffs.append("%s: torch says `is %s` is %s, the reference %s" % (where, base, not same, same))
        if target:
            env[target] = v
    if verbose:
        for w in wording:
            print("  wording: " + w)
    print("ref_play: checked against torch %s: %d statements, %d differences, %d error texts worded "
          "differently" % (torch.__version__, len(lines), len(diffs), len(wording)))
    return diffs


def main():
    args = sys.argv[1:]
    flags = []
    if "--" in args:  # configuration flags for export and play: -- --heads 4 --kv-heads 2
        flags = args[args.index("--") + 1:]
        args = args[:args.index("--")]
    if not args:
        print(__doc__)
        return 2
    binary = args[0]
    seed, chains, length, verbose = 1, 100, 6, "-v" in args
    if "--seed" in args:
        seed = int(args[args.index("--seed") + 1])
    if "--chains" in args:
        chains = int(args[args.index("--chains") + 1])
    if "--length" in args:
        length = int(args[args.index("--length") + 1])
    global OLD_TORCH
    OLD_TORCH = "--torch" in args
    rng = random.Random(seed)
    pipeline = pipeline_tensors(binary, flags)
    lines, expect = [], []   # expect[i]: ("tensor", T, copied) | ("value", v) | ("error", msg) | None
    for c in range(chains):
        code, t = gen_source(rng, pipeline)
        name = "c%d_0" % c
        lines.append("%s = %s" % (name, code))
        expect.append(("tensor", t, 0, code in pipeline, code if code in pipeline else None))
        env = [(name, t)]
        for k in range(1, length + 1):
            base_name, base = rng.choice(env[-2:]) if len(env) > 1 else env[0]
            ops = [gen_op(rng, base)]
            if rng.random() < 0.3:  # a second op in the same statement
                try:
                    mid = ops[0][1](base, Ctx())
                    if isinstance(mid, T):
                        ops.append(gen_op(rng, mid))
                except PyErr:
                    pass
            ctx = Ctx()
            r = base
            try:
                for _, fn in ops:
                    r = fn(r, ctx)
            except NotYet as e:
                r = ("notyet", str(e))
            except PyErr as e:
                r = ("error", str(e))
            op_code = "".join(code for code, _ in ops)
            if rng.random() < 0.12:  # a write: base[idx] = a tensor of the chain, or a number
                idx_code, idx_fn = gen_index(rng, base)
                src_name, src = rng.choice(env) if rng.random() < 0.7 else (str(rng.randint(-3, 3)), None)
                ctx = Ctx()
                try:
                    dst = idx_fn(base, ctx)
                    w = setitem(dst, src, ctx)
                    expect.append(("tensor", w, ctx.copied, True, None))
                except PyErr as e:
                    expect.append(("error", str(e)))
                lines.append("%s%s = %s" % (base_name, idx_code, src_name))
                continue
            if isinstance(r, T):
                nm = "c%d_%d" % (c, k)
                lines.append("%s = %s%s" % (nm, base_name, op_code))
                known = any(r.storage is x.storage for _, x in env) or any(
                    r.storage is x.storage for x in pipeline.values())
                expect.append(("tensor", r, ctx.copied, known, base_name if r is base else None))
                env.append((nm, r))
            else:
                lines.append("%s%s" % (base_name, op_code))
                expect.append(r)
    if "--dump" in args:
        with open(args[args.index("--dump") + 1], "w") as f:
            f.write("\n".join(lines) + "\n")
    if "--torch" in args:
        diffs = torch_check(binary, lines, expect, verbose, flags)
        for d in diffs[:40]:
            print(d)
        return 1 if diffs else 0
    proc = subprocess.run([binary, "play", "--json"] + flags, input="\n".join(lines) + "\n",
                          capture_output=True, text=True)
    if proc.returncode != 0:
        print("play --json exited %d: %s" % (proc.returncode, proc.stderr[:300]))
        return 1
    got = [json.loads(l) for l in proc.stdout.splitlines()]
    errors = []
    if len(got) != len(lines):
        errors.append("%d answers for %d statements" % (len(got), len(lines)))
    id_of, key_of = {}, {}  # reference storage key <-> mhaviz storage id
    counts = {"tensor": 0, "value": 0, "error": 0, "notyet": 0}
    for i, (line, want, have) in enumerate(zip(lines, expect, got)):
        where = "line %d `%s`" % (i + 1, line)
        if have.get("line") != i + 1:
            errors.append("%s: answer numbered %s" % (where, have.get("line")))
        kind = want[0]
        counts[kind] += 1
        if kind == "error":
            if have.get("ok") or have.get("error") != want[1]:
                errors.append("%s: want error %r, got %s" % (where, want[1], json.dumps(have)))
            continue
        if kind == "notyet":  # and the list names every operation this model generates
            err = have.get("error") or ""
            listed = set(err[len(want[1]):-1].split(", "))
            missing = MODELLED - listed
            if have.get("ok") or not err.startswith(want[1]) or not err.endswith(")") or missing:
                errors.append("%s: want %r... listing %s, got %s" % (where, want[1], sorted(missing),
                                                                     json.dumps(have)))
            continue
        if not have.get("ok"):
            errors.append("%s: want %s, got error %r" % (where, kind, have.get("error")))
            continue
        if kind == "value":
            if have.get("value") != want[1]:
                errors.append("%s: value %r, want %r" % (where, have.get("value"), want[1]))
            continue
        t, copied, known, same = want[1], want[2], want[3], want[4]
        if have.get("same_as") != same:
            errors.append("%s: same_as %r, want %r" % (where, have.get("same_as"), same))
        for field, w in (("shape", t.sizes), ("strides", t.strides), ("offset", t.offset),
                         ("contiguous", is_contiguous(t)), ("copied_bytes", copied), ("view", known)):
            if have.get(field) != w:
                errors.append("%s: %s %r, want %r" % (where, field, have.get(field), w))
        sid, key = have.get("storage"), t.storage.key
        if id_of.setdefault(key, sid) != sid or key_of.setdefault(sid, key) != key:
            errors.append("%s: storage %s does not match the reference's sharing" % (where, sid))
    for e in errors[:40]:
        print(e)
    print("ref_play: seed %d: %d statements (%d tensors, %d queries, %d errors, %d not yet), %d differences"
          % (seed, len(lines), counts["tensor"], counts["value"], counts["error"], counts["notyet"], len(errors)))
    if verbose and False:
        for l in lines[:60]:
            print("  " + l)
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
