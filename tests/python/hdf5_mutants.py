"""Writes a corpus of damaged HDF5 files: a PyTables-like file (groups
with CLASS and TITLE attributes, a chunked, deflated table of records
with a fixed string and an array field, variable-length text, NaN and Inf
attributes, a plain dataset) and MUTANTS copies of it, each with one to
eight bits flipped at places drawn from a seeded generator, so that the
corpus is the same on every run.

Usage: hdf5_mutants.py DIR MUTANTS  -- writes DIR/base.h5 and DIR/mNNNN.h5
"""

import os
import random
import sys

import h5py
import numpy as np

out, mutants = sys.argv[1], int(sys.argv[2])
base = os.path.join(out, 'base.h5')
with h5py.File(base, 'w') as f:
    f.attrs['CLASS'] = np.bytes_('GROUP')
    f.attrs['TITLE'] = 'root'
    g = f.create_group('detector')
    g.attrs['CLASS'] = np.bytes_('GROUP')
    g.attrs['note'] = 'vlen text'
    g.attrs['scale'] = np.array([1.0, np.nan, np.inf])
    dt = np.dtype([('id', '<u4'), ('energy', '<f8'), ('name', 'S8'), ('pos', '<f4', (3,))])
    d = g.create_dataset('events', data=np.zeros(20, dt), chunks=(5,), compression='gzip')
    d.attrs['CLASS'] = np.bytes_('TABLE')
    d.attrs['NROWS'] = 20
    f.create_dataset('plain', data=np.arange(50.0))
data = open(base, 'rb').read()
for i in range(mutants):
    r = random.Random(i)
    b = bytearray(data)
    for _ in range(r.randint(1, 8)):
        p = r.randrange(len(b))
        b[p] ^= 1 << r.randrange(8)
    with open(os.path.join(out, f'm{i:04}.h5'), 'wb') as m:
        m.write(b)
