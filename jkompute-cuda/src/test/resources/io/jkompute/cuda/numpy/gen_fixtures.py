# Generates the numpy fixtures the CPU tests of jkompute-cuda compare with (numpy 2, NEP 50 promotion).
# Run from this directory: python3 gen_fixtures.py   (the outputs are committed, so CI needs no numpy)
import numpy as np

names = ['bool', 'int8', 'uint8', 'int16', 'uint16', 'int32', 'uint32', 'int64', 'uint64', 'float16', 'float32', 'float64']
dt = {n: np.dtype(n) for n in names}

with open('promotion.txt', 'w') as f:
    f.write('# a b result_type(a, b)\n')
    for a in names:
        for b in names:
            f.write(f'{a} {b} {np.result_type(dt[a], dt[b]).name}\n')
with open('weak.txt', 'w') as f:
    f.write('# array_dtype scalar_kind (array op scalar).dtype for add\n')
    for a in names:
        x = np.zeros(2, dt[a])
        for kind, v in (('BOOL', True), ('INT', 1), ('FLOAT', 1.5)):
            f.write(f'{a} {kind} {(x + v).dtype.name}\n')
with open('loops.txt', 'w') as f:
    f.write('# dtype exp(dtype) true_divide(dtype,dtype) sum mean\n')
    for a in names:
        x = np.ones(2, dt[a])
        f.write(f'{a} {np.exp(x).dtype.name} {np.true_divide(x, x).dtype.name} {x.sum().dtype.name} {x.mean().dtype.name}\n')

def layout(v, base):
    # element strides and offset of view v into base (both of one itemsize)
    it = v.itemsize
    off = (v.__array_interface__['data'][0] - base.__array_interface__['data'][0]) // it
    return list(v.shape), [s // it for s in v.strides], off

with open('slices.txt', 'w') as f:
    f.write('# base_shape | start stop step (None as N) | shape | strides | offset   (1-D slice on axis 0 of a C array)\n')
    base = np.zeros((7, 3), np.float32)
    for s in [(None, None, -1), (None, None, -2), (5, 1, -1), (-1, None, -3), (1, 6, 2), (10, -10, -1), (0, 7, -1), (None, 2, -1), (6, None, -4), (-2, -8, -2)]:
        v = base[slice(*s)]
        sh, st, off = layout(v, base)
        f.write(' '.join(map(str, base.shape)) + ' | ' + ' '.join('N' if x is None else str(x) for x in s) + ' | '
                + ' '.join(map(str, sh)) + ' | ' + ' '.join(map(str, st)) + ' | ' + str(off) + '\n')

with open('reshape.txt', 'w') as f:
    f.write('# view_spec | order | new_shape | view(1)/copy(0) | strides_if_view\n')
    base = np.zeros((4, 6, 5), np.float32)
    views = {
        'T': base.T, 'T01': base.transpose(1, 0, 2), 's1': base[:, ::2], 's2': base[:, :, ::-1], 's3': base[1:3],
        'c': base, 'f': np.asfortranarray(base), 's4': base[:, 1:5, :], 's5': base[::2, :, :],
    }
    shapes = [(-1,), (4, 30), (24, 5), (2, 2, 6, 5), (120,), (6, 4, 5), (5, 24), (2, -1)]
    for name, v in views.items():
        for order in 'CF':
            for s in shapes:
                try:
                    r = v.reshape(s, order=order)
                except ValueError:
                    continue
                isview = np.shares_memory(r, v)
                st = [x // 4 for x in r.strides] if isview else []
                f.write(f'{name} | {order} | {" ".join(map(str, s))} | {int(isview)} | {" ".join(map(str, st))}\n')
