// The library's own QMPI tool list as mpii run reads it for its banner (src/run/library-tools.ts),
// in MPICH's order of its three names, and the note for the one name nothing reads.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { listedTools, listNameNote } from '../src/run/library-tools.js';

describe('the library QMPI tool list', () => {
  it('is read under MPICH three names, the last one MPICH reads winning', () => {
    assert.equal(listedTools({}), undefined);
    assert.deepEqual(listedTools({ MPICH_QMPI_TOOL_LIST: 'a:b' }), { variable: 'MPICH_QMPI_TOOL_LIST', names: ['a', 'b'] });
    assert.deepEqual(listedTools({ MPICH_QMPI_TOOL_LIST: 'a', MPIR_PARAM_QMPI_TOOL_LIST: 'b' }), { variable: 'MPIR_PARAM_QMPI_TOOL_LIST', names: ['b'] });
    assert.deepEqual(listedTools({ MPIR_CVAR_QMPI_TOOL_LIST: 'c:c', MPIR_PARAM_QMPI_TOOL_LIST: 'b', MPICH_QMPI_TOOL_LIST: 'a' }), {
      variable: 'MPIR_CVAR_QMPI_TOOL_LIST',
      names: ['c', 'c'],
    });
    // set but empty, it still wins, as in MPICH: no tool at all
    assert.equal(listedTools({ MPICH_QMPI_TOOL_LIST: 'a', MPIR_CVAR_QMPI_TOOL_LIST: '' }), undefined);
    assert.equal(listedTools({ MPIR_CVAR_QMPI_TOOL_LIST: '::' }), undefined);
  });

  it('says QMPI_TOOL_LIST alone is read by nobody, and names the variable to use', () => {
    assert.match(
      listNameNote({ QMPI_TOOL_LIST: 'x' }) ?? '',
      /QMPI_TOOL_LIST is read neither by MPICH nor by mpii: name the tools in MPIR_CVAR_QMPI_TOOL_LIST instead/,
    );
    assert.equal(listNameNote({ QMPI_TOOL_LIST: 'x', MPIR_CVAR_QMPI_TOOL_LIST: 'x' }), undefined);
    assert.equal(listNameNote({}), undefined);
  });
});
