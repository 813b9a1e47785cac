#!/usr/bin/env python3
"""torch_names.py - writes assets/pytorch-1.13.names from the PyTorch it runs
with: every public attribute of torch.Tensor ("Tensor.NAME") and of the torch
module ("torch.NAME"), one a line, sorted.  The playground reads the file to
tell a name PyTorch has but the playground does not yet ("`chunk` is not in
the playground yet") from a name PyTorch does not have ("'Tensor' object has
no attribute 'nope'").  e2e_play.sh checks the file against torch when
/usr/bin/python3 has it.

Usage: /usr/bin/python3 tests/torch_names.py > assets/pytorch-1.13.names
"""
import torch

print("# The public names of torch.Tensor and torch in PyTorch %s (tests/torch_names.py)."
      % torch.__version__.split("a")[0].split("+")[0])
for prefix, obj in (("Tensor", torch.Tensor), ("torch", torch)):
    for name in sorted(n for n in dir(obj) if not n.startswith("_")):
        print("%s.%s" % (prefix, name))
