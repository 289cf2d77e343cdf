#!/usr/bin/env python3
"""torch.ops.pooljit.* against PyTorch's own CPU operators, bit for bit.

Usage: test_torch_ops.py PATH/TO/libpooljit_torch.so

Every case runs on tensors as PyTorch hands them over: contiguous, channels_last, a channel slice, an as_strided
view with a row pitch, a transposed (neither channels nor width contiguous) view. The pooljit operator reads each
through its strides (no copy), so its result must equal PyTorch's on the same tensor, in values (compared as bits)
and indices, and have the memory format PyTorch gives.

One known difference, which DESIGN.md's semantics table decides: PyTorch's CPU loop takes every NaN it meets
(`val > max || isnan(val)`), so its index is a window's last NaN; pooljit's is the window's first NaN. The values
are NaN either way. NaN cases check exactly that: the values agree, and where the indices differ both point at a
NaN of the window, pooljit's first in scan order.
"""
import itertools
import sys
import unittest

import torch
import torch.nn.functional as F

torch.set_num_threads(1)


def bits(t):
    """A tensor's values as integers of its width, so that -0, +0 and NaN payloads compare as bits."""
    as_int = {torch.float32: torch.int32, torch.float64: torch.int64, torch.bfloat16: torch.int16,
              torch.float16: torch.int16}
    return t.contiguous().view(as_int[t.dtype]) if t.dtype in as_int else t


def tie_data(shape, dtype, seed):
    """Small integers with many ties, +0 and -0 side by side, and runs of the lowest value."""
    g = torch.Generator().manual_seed(seed)
    x = torch.randint(-3, 4, shape, generator=g).to(dtype)
    zero = torch.zeros(shape, dtype=dtype)
    x = torch.where(torch.rand(shape, generator=g) < 0.1, -zero, x)
    lowest = torch.finfo(dtype).min if dtype.is_floating_point else torch.iinfo(dtype).min
    return torch.where(torch.rand(shape, generator=g) < 0.05, torch.full(shape, lowest, dtype=dtype), x)


def views(x):
    """The same logical tensor as the ways a caller holds it: (name, tensor) pairs."""
    yield "contiguous", x
    if x.dim() == 4:
        yield "channels_last", x.contiguous(memory_format=torch.channels_last)
    if x.dim() == 5:
        yield "channels_last_3d", x.contiguous(memory_format=torch.channels_last_3d)
    # A channel slice of a wider tensor (a concat buffer), channels last where PyTorch has that format.
    wide = torch.cat([torch.zeros_like(x), x, torch.zeros_like(x)], dim=1)
    if x.dim() == 4:
        wide = wide.contiguous(memory_format=torch.channels_last)
    c = x.shape[1]
    yield "channel_slice", wide[:, c:2 * c]
    # Rows padded by 3 elements, through as_strided on a larger buffer.
    padded_shape = list(x.shape)
    padded_shape[-1] += 3
    buffer = torch.zeros(padded_shape, dtype=x.dtype)
    buffer[..., : x.shape[-1]] = x
    yield "row_pitch", buffer.as_strided(x.shape, buffer.stride())
    # Neither channels nor width consecutive: the transpose of a transposed copy.
    yield "transposed", x.transpose(-1, 1).contiguous().transpose(-1, 1)


class PooljitOps(unittest.TestCase):
    def check_pair(self, what, ours, theirs):
        self.assertEqual(ours.shape, theirs.shape, what)
        self.assertEqual(ours.dtype, theirs.dtype, what)
        self.assertTrue(torch.equal(bits(ours), bits(theirs)), f"{what}: values differ")

    def check_format(self, what, x, ours, theirs):
        # The output has the memory format PyTorch gives the same input.
        for fmt in (torch.channels_last, torch.channels_last_3d, torch.contiguous_format):
            try:
                if theirs.is_contiguous(memory_format=fmt):
                    self.assertTrue(ours.is_contiguous(memory_format=fmt), f"{what}: output not in {fmt}")
                    return
            except RuntimeError:
                continue
        # Neither (a 1-D op on a transposed input keeps the input's order): the same strides as PyTorch's.
        self.assertEqual(ours.stride(), theirs.stride(), f"{what}: output strides")

    def test_max_pool_matches_pytorch(self):
        shapes = {1: (2, 5, 23), 2: (2, 6, 11, 13), 3: (1, 4, 6, 7, 9)}
        ours_ops = {1: torch.ops.pooljit.max_pool1d_with_indices, 2: torch.ops.pooljit.max_pool2d_with_indices,
                    3: torch.ops.pooljit.max_pool3d_with_indices}
        values_ops = {1: torch.ops.pooljit.max_pool1d, 2: torch.ops.pooljit.max_pool2d,
                      3: torch.ops.pooljit.max_pool3d}
        theirs_ops = {1: F.max_pool1d, 2: F.max_pool2d, 3: F.max_pool3d}
        configs = [
            dict(kernel_size=2, stride=2, padding=0, dilation=1, ceil_mode=False),
            dict(kernel_size=3, stride=2, padding=1, dilation=1, ceil_mode=False),
            dict(kernel_size=3, stride=2, padding=1, dilation=1, ceil_mode=True),
            dict(kernel_size=3, stride=1, padding=1, dilation=2, ceil_mode=False),
            dict(kernel_size=2, stride=3, padding=1, dilation=1, ceil_mode=True),
        ]
        not_in_pytorch = set()
        for rank, config, dtype in itertools.product((1, 2, 3), configs, (torch.float32, torch.float64,
                                                                           torch.bfloat16)):
            x = tie_data(shapes[rank], dtype, seed=rank * 100 + configs.index(config))
            for name, view in views(x):
                what = f"max_pool{rank}d {config} {dtype} {name}"
                try:
                    theirs, theirs_idx = theirs_ops[rank](view, return_indices=True, **config)
                except RuntimeError as e:  # a dtype PyTorch's CPU operator does not take
                    not_in_pytorch.add(f"max_pool{rank}d {dtype}: {str(e).splitlines()[0]}")
                    continue
                ours, ours_idx = ours_ops[rank](view, **config)
                self.check_pair(what, ours, theirs)
                self.assertTrue(torch.equal(ours_idx, theirs_idx), f"{what}: indices differ")
                self.check_format(what, view, ours, theirs)
                self.check_pair(what + " (values only)", values_ops[rank](view, **config), theirs)
        for reason in sorted(not_in_pytorch):
            print(f"not compared (PyTorch's CPU operator refuses it): {reason}", file=sys.stderr)
        self.assertLess(len(not_in_pytorch), 3, "most dtypes went uncompared")

    def test_integer_data_matches_a_float_pool(self):
        # PyTorch's CPU max pooling takes floating types; pooljit's integers are checked against the same
        # integers pooled in float64 (exact for these magnitudes).
        for dtype in (torch.uint8, torch.int8, torch.int32, torch.int64):
            x = torch.randint(0 if dtype == torch.uint8 else -100, 100, (2, 5, 12, 9), dtype=dtype)
            for name, view in views(x):
                ours, ours_idx = torch.ops.pooljit.max_pool2d_with_indices(view, [3, 3], [2, 2], [1, 1], [1, 1], True)
                theirs, theirs_idx = F.max_pool2d(view.to(torch.float64), 3, 2, 1, 1, True, return_indices=True)
                self.assertTrue(torch.equal(ours, theirs.to(dtype)), f"{dtype} {name}: values differ")
                self.assertTrue(torch.equal(ours_idx, theirs_idx), f"{dtype} {name}: indices differ")

    def test_adaptive_max_pool_matches_pytorch(self):
        cases = [(1, (2, 5, 23), [7]), (2, (2, 6, 13, 11), [5, 4]), (2, (1, 3, 7, 7), [9, 10]),
                 (3, (1, 4, 6, 7, 9), [3, 2, 4])]
        ops = {1: (torch.ops.pooljit.adaptive_max_pool1d, F.adaptive_max_pool1d),
               2: (torch.ops.pooljit.adaptive_max_pool2d, F.adaptive_max_pool2d),
               3: (torch.ops.pooljit.adaptive_max_pool3d, F.adaptive_max_pool3d)}
        for (rank, shape, out), dtype in itertools.product(cases, (torch.float32, torch.float64)):
            x = tie_data(shape, dtype, seed=rank)
            for name, view in views(x):
                what = f"adaptive_max_pool{rank}d {shape} -> {out} {dtype} {name}"
                ours, ours_idx = ops[rank][0](view, out)
                theirs, theirs_idx = ops[rank][1](view, out, return_indices=True)
                self.check_pair(what, ours, theirs)
                self.assertTrue(torch.equal(ours_idx, theirs_idx), f"{what}: indices differ")

    def test_unbatched_input(self):
        x = tie_data((6, 11, 13), torch.float32, seed=5)
        ours, ours_idx = torch.ops.pooljit.max_pool2d_with_indices(x, [3, 3], [2, 2], [1, 1], [1, 1], False)
        theirs, theirs_idx = F.max_pool2d(x, 3, 2, 1, return_indices=True)
        self.check_pair("unbatched max_pool2d", ours, theirs)
        self.assertTrue(torch.equal(ours_idx, theirs_idx))

    def test_nan_index_is_the_first_nan(self):
        # Every window holds NaN at several places: PyTorch's index is the last NaN it meets, pooljit's the first
        # (DESIGN.md: the first NaN's index); the values are NaN, bit for bit the same NaN.
        x = tie_data((2, 4, 12, 12), torch.float32, seed=9)
        x[:, :, ::2, ::3] = float("nan")
        x[:, :, 1::4, 1::2] = float("nan")
        for name, view in views(x):
            for kernel, stride, pad in ((3, 2, 1), (2, 2, 0), (4, 3, 2)):
                what = f"NaN k{kernel} s{stride} p{pad} {name}"
                ours, ours_idx = torch.ops.pooljit.max_pool2d_with_indices(view, [kernel] * 2, [stride] * 2,
                                                                           [pad] * 2, [1, 1], False)
                theirs, theirs_idx = F.max_pool2d(view, kernel, stride, pad, return_indices=True)
                self.check_pair(what, ours, theirs)
                differ = ours_idx != theirs_idx
                self.assertTrue(bool(differ.any()), f"{what}: no window with two NaN, the case tests nothing")
                planes = x.reshape(x.shape[0], x.shape[1], -1)
                at_ours = torch.gather(planes, 2, ours_idx.reshape(*ours_idx.shape[:2], -1))
                at_theirs = torch.gather(planes, 2, theirs_idx.reshape(*theirs_idx.shape[:2], -1))
                flat_differ = differ.reshape(*differ.shape[:2], -1)
                self.assertTrue(bool(at_ours[flat_differ].isnan().all()), f"{what}: pooljit's index is not a NaN")
                self.assertTrue(bool(at_theirs[flat_differ].isnan().all()), f"{what}: PyTorch's index is not a NaN")
                self.assertTrue(bool((ours_idx[differ] < theirs_idx[differ]).all()),
                                f"{what}: pooljit's NaN is not the earlier one")

    def test_a_channel_slice_is_read_where_it_lies(self):
        # Pooling a channel slice of a channels_last tensor changes nothing of the tensor and gives the slice's own
        # result (the operator passes the slice's strides to pooljit; a copy is not observable from here).
        wide = tie_data((1, 12, 10, 10), torch.float32, seed=3).contiguous(memory_format=torch.channels_last)
        before = wide.clone()
        ours = torch.ops.pooljit.max_pool2d(wide[:, 4:8], [2, 2], [2, 2], [0, 0], [1, 1], False)
        self.assertTrue(torch.equal(bits(wide), bits(before)))
        self.check_pair("slice", ours, F.max_pool2d(wide[:, 4:8].contiguous(), 2, 2))


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    torch.ops.load_library(sys.argv.pop(1))
    unittest.main(verbosity=1)
