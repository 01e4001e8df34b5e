// preload/tools/profile/report/rank.ts: places are the same for the same code in every rank
// (whatever its load address), and the reader's shared strings (Keeper.intern) are equal values.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { PlaceTable } from '../preload/tools/profile/report/rank.js';
import { parseModules, placeKey, placeOf } from '../src/report/addr2line.js';
import { PYTHON_KEY_BASE, type PythonSite } from '../src/report/python-sites.js';
import { Keeper } from '../src/profile-file/read.js';

describe('PlaceTable', () => {
  it('one id per object file and offset, as placeKey tells places apart', () => {
    const places = new PlaceTable();
    const none = new Map<number, PythonSite>();
    const a = parseModules(['400000 500000 400000 /bin/app', '7f0000 7f1000 7e0000 /lib/libx.so']);
    const b = parseModules(['600000 700000 600000 /bin/app']); // the same program loaded elsewhere
    const x = places.id(a, 0x401234, none);
    assert.equal(places.id(b, 0x601234, none), x);
    assert.notEqual(places.id(a, 0x401238, none), x);
    const lib = places.id(a, 0x7f0010, none);
    const outside = places.id(a, 0x123, none);
    assert.equal(places.id(b, 0x123, none), outside);
    assert.deepEqual(places.list[x], placeOf(a, 0x401234, none));
    assert.deepEqual(places.list[lib], { path: '/lib/libx.so', offset: 0x10010 });
    assert.deepEqual(places.list[outside], { path: '', offset: 0x123 });
    const keys = places.list.map(placeKey);
    assert.equal(new Set(keys).size, keys.length, 'one place per key');
  });

  it('Python lines: one place per file, line and function, whichever key a rank gave it', () => {
    const places = new PlaceTable();
    const site = { file: 'solver.py', line: 42, func: 'exchange', cframe: 'MPI.so+0x10' };
    const k1 = PYTHON_KEY_BASE + 7;
    const k2 = PYTHON_KEY_BASE + 9;
    const p1 = places.id([], k1, new Map([[k1, site]]));
    assert.equal(places.id([], k2, new Map([[k2, { ...site, cframe: 'MPI.so+0x20' }]])), p1);
    assert.equal(places.list[p1].python?.cframe, 'MPI.so+0x10', 'the first met');
  });
});

describe('Keeper.intern', () => {
  it('equal strings as one, long ones as they are', () => {
    const k = new Keeper();
    const a = k.intern(['mon', 'itor'].join(''));
    assert.equal(k.intern('monitor'), a);
    const long = 'x'.repeat(300);
    assert.equal(k.intern(long), long);
  });
});
