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

  const param = (decl: string) => {
    const m = /^(.*?)\s*\b(\w+)$/.exec(decl)!;
    return { decl, name: m[2], type: m[1] };
  };
  const fn = (name: string, kind: string, decls: string[]) => ({
    name,
    ret: 'int',
    variadic: false,
    enumName: `${name.toUpperCase()}_T`,
    kind,
    roles: decls.map(() => 'other'),
    params: decls.map(param),
  });
  const send = fn('MPI_Send', 'send', ['const void *buf', 'int count', 'MPI_Datatype datatype', 'int dest', 'int tag', 'MPI_Comm comm']);
  const allreduce = fn('MPI_Allreduce', 'coll-a2a', [
    'const void *sendbuf',
    'void *recvbuf',
    'int count',
    'MPI_Datatype datatype',
    'MPI_Op op',
    'MPI_Comm comm',
  ]);
  const rank = fn('MPI_Comm_rank', 'local', ['MPI_Comm comm', 'int *rank']);
  const body = (c: string, sym: string) => {
    const i = c.indexOf(`void ${sym}(`);
    assert.ok(i >= 0, `${sym} is defined`);
    return c.slice(i, c.indexOf('\n}\n', i));
  };

  it("defines Open MPI's mpi_x_f08_ (4.1, 5.0) and mpi_x_f08ts_ (6.0) for a choice buffer, MPICH's mpi_x_f08ts_ only", () => {
    const list = ['MPI_Send', 'MPI_Comm_rank'];
    const ompi = emitFortran({ flavor: 'openmpi', functions: [send, rank], list });
    const mpich = emitFortran({ flavor: 'mpich', functions: [send, rank], list });
    for (const sym of ['mpi_send_', 'mpi_send_f08_', 'mpi_send_f08ts_', 'mpi_comm_rank_f08_']) assert.match(ompi, new RegExp(`^void ${sym}\\(`, 'm'), sym);
    assert.doesNotMatch(ompi, /^void mpi_comm_rank_f08ts_\(/m);
    assert.doesNotMatch(mpich, /^void mpi_send_f08_\(/m);
    assert.match(mpich, /^void mpi_send_f08ts_\(/m);
    // the descriptor's sentinels are the MPI's own for mpi_f08: Open MPI shares mpif.h's (0), MPICH has its own (1)
    assert.match(body(ompi, 'mpi_send_f08ts_'), /mpii_fdesc\(f_buf, 0, &nc_buf\)/);
    assert.match(body(mpich, 'mpi_send_f08ts_'), /mpii_fdesc\(f_buf, 1, &nc_buf\)/);
  });

  it("sends a point-to-point section with gaps as a datatype of its own; a collective's goes to the MPI's binding", () => {
    const c = emitFortran({ flavor: 'openmpi', functions: [send, allreduce], list: ['MPI_Send', 'MPI_Allreduce'] });
    const s = body(c, 'mpi_send_f08ts_');
    assert.match(s, /mpii_fdesc_type\(f_buf, &n_buf, &t_buf\)/);
    assert.match(s, /mpii_top_MPI_Send\(__builtin_return_address\(0\), c_buf, n_buf, t_buf,/);
    assert.match(s, /if \(MPII_UNLIKELY\(nc_buf\)\) \{[^}]*mpii_f_next\("mpi_send_f08ts_"\)/);
    const a = body(c, 'mpi_allreduce_f08ts_');
    assert.doesNotMatch(a, /mpii_fdesc_type/);
    assert.match(a, /if \(MPII_UNLIKELY\(nc_sendbuf \| nc_recvbuf\)\) \{[^}]*mpii_f_next\("mpi_allreduce_f08ts_"\)/);
  });
});
