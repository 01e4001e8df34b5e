// MPI_T's pure parts: the header constants, name filters and suggestions, --pvar parsing, which
// variables can be sampled, and the generator's MPI_T wrappers (the jobs are in mpit.test.ts).
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execaSync } from 'execa';
import { FLAVORS, ROOT, type Flavor } from './helpers.js';
import { parseHeader, namesByValue } from '../src/mpit/header.js';
import { checkSampled, nameFilter, suggest } from '../src/mpit/vars.js';
import type { MpitListing, PvarInfo } from '../src/mpit/library.js';
import { parseRunArgs } from '../src/launch/args.js';
import { generate } from '../src/gen/generate.js';

const HEADERS: Record<Flavor, string> = {
  openmpi: '/usr/lib/x86_64-linux-gnu/openmpi/include/mpi.h',
  mpich: '/usr/include/x86_64-linux-gnu/mpich/mpi.h',
};

describe('MPI_T units', () => {
  it("header constants: MPICH's shifted enums and integer datatypes, Open MPI's global objects", () => {
    const m = parseHeader(readFileSync(HEADERS.mpich, 'utf8'));
    assert.equal(m.values.get('MPI_T_VERBOSITY_USER_BASIC'), 221);
    assert.equal(m.values.get('MPI_T_PVAR_CLASS_SIZE'), 242);
    assert.equal(namesByValue(m, 'MPI_T_PVAR_CLASS_').get(240), 'state');
    assert.equal(namesByValue(m, 'MPI_T_BIND_').get(9701), 'mpi_comm');
    assert.equal(m.datatypes.get('MPI_INT'), 0x4c000405);
    assert.equal(m.datatypes.get('MPI_LONG_LONG'), m.datatypes.get('MPI_LONG_LONG_INT'), 'aliases resolve');
    const o = parseHeader(readFileSync(HEADERS.openmpi, 'utf8'));
    assert.equal(o.values.get('MPI_T_VERBOSITY_USER_BASIC'), 0);
    assert.equal(o.values.get('MPI_T_PVAR_CLASS_GENERIC'), 9);
    assert.equal(o.datatypes.get('MPI_UNSIGNED_LONG'), 'ompi_mpi_unsigned_long');
    assert.equal(o.values.get('MPI_T_ERR_INVALID_NAME'), 73);
  });

  it('filters, suggestions, --pvar parsing', () => {
    const f = nameFilter(['ob1', 'coll_*_count']);
    assert.ok(f('pml_ob1_posted_recvq_length'));
    assert.ok(f('coll_monitoring_o2a_count'));
    assert.ok(!f('coll_monitoring_o2a_size'));
    assert.equal(suggest('pml_monitoring_flsh', ['pml_monitoring_flush', 'osc_x']), 'pml_monitoring_flush');
    assert.equal(suggest('zzzzzzzz', ['pml_monitoring_flush']), undefined);
    assert.deepEqual(parseRunArgs(['--pvar', 'a,b', '--pvar=c', '-np', '2', './x']).pvars, ['a', 'b', 'c']);
  });

  it('checkSampled accepts numbers bound to nothing or a communicator', () => {
    const v = (name: string, type: string, binding: string): PvarInfo => ({
      index: 0,
      name,
      class: 'counter',
      type,
      binding,
      verbosity: 'user/basic',
      readonly: true,
      continuous: false,
      atomic: false,
      description: '',
    });
    const l: MpitListing = {
      flavor: 'openmpi',
      version: 'Open MPI 9',
      library: '/x',
      header: '/y',
      cvars: [],
      pvars: [v('a', 'MPI_UNSIGNED_LONG', 'none'), v('b', 'MPI_DOUBLE', 'MPI_Comm'), v('c', 'MPI_CHAR', 'none'), v('d', 'MPI_INT', 'MPI_File')],
    };
    checkSampled(l, ['a', 'b']);
    assert.throws(() => checkSampled(l, ['c']), /MPI_CHAR/);
    assert.throws(() => checkSampled(l, ['d']), /MPI_File/);
  });

  it("the generator ends the MPI_T functions in the core's provider; tools still wrap them", () => {
    for (const f of FLAVORS) {
      const dir = mkdtempSync(join(tmpdir(), 'mpii-gen-'));
      writeFileSync(join(dir, 'h.c'), '#include <mpi.h>\n');
      const pre = execaSync(`mpicc.${f}`, ['-E', '-P', join(dir, 'h.c')]).stdout;
      const g = generate({ flavor: f, preprocessed: pre, specPath: join(ROOT, 'preload', 'spec', 'mpi.yaml'), mpiVersion: 'test' });
      assert.equal(g.functions.find((x) => x.name === 'MPI_T_pvar_read')!.kind, 'mpit');
      const w = g.files['mpii_wrappers.c'];
      assert.match(
        w,
        /__attribute__\(\(visibility\("hidden"\)\)\) int mpii_bottom_T_pvar_read\(QMPI_Context context, int tool_id, [^)]*\)\n\{\n {4}\(void\) context; \(void\) tool_id;\n {4}return mpii_mpit_MPI_T_pvar_read\(session, handle, buf\);/,
      );
      // no QMPI_X of the shim's: an MPICH with QMPI dispatches through the address of its own
      // QMPI_X, which one of the shim's would take (docs/qmpi.md)
      assert.doesNotMatch(w, /^[^\n(]* QMPI_\w+\(QMPI_Context context/m);
      // MPI_X's body is the inline mpii_top_X (shared with the Fortran entry points)
      // (with no tool on it, in the general shim's path and in a specialised stack's)
      assert.match(
        w,
        /int mpii_top_MPI_T_pvar_read\(void \*mpii_ra, [^)]*\)\n\{\n#ifdef MPII_SPEC\n[\s\S]*?if \(mpii_nid == 0\) \{\n {12}return mpii_mpit_MPI_T_pvar_read\(session, handle, buf\);\n[\s\S]*?#endif\n[^}]*return mpii_mpit_MPI_T_pvar_read\(session, handle, buf\);\n {4}\}/,
      );
      assert.match(
        w,
        /int MPII_ENTRY\(MPI_T_pvar_read\)\([^)]*\)\n\{\n {4}return mpii_top_MPI_T_pvar_read\(__builtin_return_address\(0\), session, handle, buf\);/,
      );
      assert.match(g.files['mpii_gen.h'], /int mpii_mpit_MPI_T_pvar_get_info\(/);
      // cvars and enums stay the library's
      assert.equal(g.functions.find((x) => x.name === 'MPI_T_cvar_read')!.kind, 'local');
    }
  });
});
