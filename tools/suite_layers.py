#!/usr/bin/env python3
"""The layers of tools/suite.txt for a run beside the peers (docs/performance.md, "The whole suite").

Writes into OUT_DIR:
  layers.txt  each layer once, without its data type, layout and indices (pooljit-bench --dtype/--layout pick them)
  idx.txt     the same layers with idx=s64 (the f32 ncx table with indices)
  ort.json    the maxpool layers as ../shared/peers/ort/ort_time.js --spec layers, named L<line>-<dtype>[-idx]
              (<line> counts from 0 in layers.txt): float32 and uint8 values, float32 with Indices

Usage: tools/suite_layers.py OUT_DIR [SUITE]
"""
import json
import os
import re
import sys


def layers_of(suite_path):
    layers, seen = [], set()
    for line in open(suite_path):
        line = line.strip()
        if not line or line.startswith('#'):
            continue
        key = re.sub(r' (dt|layout|idx|axis)=\S+', '', line)
        if key not in seen:
            seen.add(key)
            layers.append(key)
    return layers


def ort_attributes(fields, rank):
    def axes(name, default):
        return [int(x) for x in fields.get(name, 'x'.join([str(default)] * rank)).split('x')]
    attrs = {'kernel_shape': axes('k', 1), 'strides': axes('s', 1)}
    if fields.get('pad') == 'same_upper':
        attrs['auto_pad'] = 'SAME_UPPER'
    elif fields.get('pad') == 'same_lower':
        attrs['auto_pad'] = 'SAME_LOWER'
    else:
        attrs['pads'] = axes('pb', 0) + axes('pe', 0)
    if any(d != 1 for d in axes('d', 1)):
        attrs['dilations'] = axes('d', 1)
    if fields.get('round', 'floor').startswith('ceil'):
        attrs['ceil_mode'] = 1
    return attrs


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    out = sys.argv[1]
    suite = sys.argv[2] if len(sys.argv) > 2 else os.path.join(os.path.dirname(__file__), 'suite.txt')
    os.makedirs(out, exist_ok=True)
    layers = layers_of(suite)
    with open(os.path.join(out, 'layers.txt'), 'w') as f:
        f.write('\n'.join(layers) + '\n')
    with open(os.path.join(out, 'idx.txt'), 'w') as f:
        f.write('\n'.join(layer + ' idx=s64' for layer in layers) + '\n')
    specs = []
    for i, layer in enumerate(layers):
        op, *tokens = layer.split()
        if op != 'maxpool':  # ONNX has no adaptive max pool
            continue
        fields = dict(t.split('=', 1) for t in tokens)
        dims = [int(x) for x in fields['src'].split('x')]
        attrs = ort_attributes(fields, len(dims) - 2)
        for dtype in ('float32', 'uint8'):
            specs.append({'name': f'L{i}-{dtype}', 'dtype': dtype, 'dims': dims, 'attrs': attrs})
        specs.append({'name': f'L{i}-float32-idx', 'dtype': 'float32', 'dims': dims, 'attrs': attrs, 'indices': True})
    with open(os.path.join(out, 'ort.json'), 'w') as f:
        json.dump(specs, f)
    print(f'{len(layers)} layers, {len(specs)} ORT layers in {out}')


if __name__ == '__main__':
    main()
