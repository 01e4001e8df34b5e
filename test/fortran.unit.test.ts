// The Fortran generator's checks (the Fortran programs themselves run in fortran.test.ts).
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { emitFortran } from '../src/gen/fortran.js';

describe('Fortran generator', () => {
  it('refuses a listed function whose parameters it cannot convert, naming it', () => {
    const fn = {
      name: 'MPI_Comm_set_name',
      ret: 'int',
      variadic: false,
      enumName: 'MPI_COMM_SET_NAME_T',
      kind: 'local',
      roles: ['comm', 'other'],
      params: [
        { decl: 'MPI_Comm comm', name: 'comm', type: 'MPI_Comm' },
        { decl: 'const char *comm_name', name: 'comm_name', type: 'const char *' },
      ],
    };
    assert.throws(
      () => emitFortran({ flavor: 'mpich', functions: [fn], list: ['MPI_Comm_set_name'] }),
      /lists MPI_Comm_set_name under fortran, but its parameter `const char \*comm_name` has no Fortran conversion/,
    );
  });
});
