// Pure-function tests: argument splitting, header parsing, generation, the profile reader.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execaSync } from 'execa';
import { parseRunArgs } from '../src/launch/args.js';
import { parseEnum, parseFunctionMacros, parseFunctions } from '../src/gen/header.js';
import { generate } from '../src/gen/generate.js';
import { readProfile } from '../src/profile-file/read.js';
import { mpiVersionOf } from '../src/shim/shim.js';
import { ROOT } from './helpers.js';

describe('mpii run argument splitting', () => {
  it('keeps mpii options, passes launcher options untouched, finds the program', () => {
    const a = parseRunArgs(['--tools', 'noop', '-np', '4', '--mca', 'btl', 'self,vader', '--oversubscribe', '--out=/o', './app', '--tools', 'x']);
    assert.equal(a.tools, 'noop');
    assert.equal(a.out, '/o');
    assert.deepEqual(a.launcherArgs, ['-np', '4', '--mca', 'btl', 'self,vader', '--oversubscribe']);
    assert.equal(a.program, './app');
    assert.deepEqual(a.programArgs, ['--tools', 'x']); // after the program, everything is the program's
  });
  it('MPICH -genv takes two values; -- ends the options', () => {
    const a = parseRunArgs(['-genv', 'A', 'B', '-n', '2', '--', '-weird-name']);
    assert.deepEqual(a.launcherArgs, ['-genv', 'A', 'B', '-n', '2']);
    assert.equal(a.program, '-weird-name');
  });
  it('Open MPI 5 and 6 (PRRTE): --prtemca and --pmixmca take two values, --display, --output and --runtime-options one', () => {
    const argv = [
      '--prtemca',
      'plm',
      'ssh',
      '--pmixmca',
      'ptl_base_if_include',
      'lo',
      '--display',
      'map',
      '--output',
      'tag',
      '--runtime-options',
      'fwd-environment',
      '--map-by',
      'ppr:2:node',
      '-np',
      '2',
      './app',
      '--display',
      'x',
    ];
    const a = parseRunArgs(argv);
    assert.deepEqual(a.launcherArgs, argv.slice(0, 16));
    assert.equal(a.program, './app');
    assert.deepEqual(a.programArgs, ['--display', 'x']);
  });
  it('a valued option without its value is an error', () => {
    assert.throws(() => parseRunArgs(['--tools']), /--tools needs a value/);
  });
  it("--launcher srun splits with srun's options (-q takes a value there, a flag to mpirun); --mpi PLUGIN is srun's", () => {
    const a = parseRunArgs(['--launcher', 'srun', '-q', 'normal', '--mpi', 'pmix', '-p', 'debug', '--mpi=mpich', '-np', '2', './app', '-x']);
    assert.equal(a.launcher, 'srun');
    assert.equal(a.mpi, 'mpich'); // an MPI's name is mpii's override, a plugin's name goes to srun
    assert.deepEqual(a.launcherArgs, ['-q', 'normal', '--mpi=pmix', '-p', 'debug', '-np', '2']);
    assert.equal(a.program, './app');
    assert.deepEqual(a.programArgs, ['-x']);
    const m = parseRunArgs(['-q', 'normal', './app']); // mpirun: -q is --quiet, normal is the program
    assert.equal(m.launcher, 'mpirun');
    assert.equal(m.program, 'normal');
  });
  it('MPII_LAUNCHER sets the default launcher; --launcher wins; unknown names are errors', () => {
    assert.equal(parseRunArgs(['-n', '2', './app'], { MPII_LAUNCHER: 'srun' }).launcher, 'srun');
    assert.equal(parseRunArgs(['--launcher', 'mpirun', './app'], { MPII_LAUNCHER: 'srun' }).launcher, 'mpirun');
    assert.throws(() => parseRunArgs(['./app'], { MPII_LAUNCHER: 'aprun' }), /unknown launcher 'aprun' in MPII_LAUNCHER/);
    assert.throws(() => parseRunArgs(['--launcher', 'mpiexec', './app']), /unknown launcher 'mpiexec'/);
  });
});

describe('header parsing', () => {
  const text = `
typedef int (MPI_Copy_function)(MPI_Comm, int, void *);
enum QMPI_Functions_enum { MPI_ABORT_T, MPI_SEND_T, MPI_LAST_FUNC_T };
extern int MPI_Send(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm) __attribute__((visibility("default")));
int MPI_Group_range_incl(MPI_Group group, int n, int ranges[][3], MPI_Group *newgroup);
int MPI_Pcontrol(const int level, ...);
double MPI_Wtime(void);
int MPI_Type_f2c_like(MPI_Fint, MPI_Datatype *);
struct s { int MPI_Fake(int); };
`;
  it('reads prototypes, arrays, varargs, void and unnamed parameters', () => {
    const fns = parseFunctions(text, ['MPI_']);
    const by = new Map(fns.map((f) => [f.name, f]));
    assert.deepEqual(
      by.get('MPI_Send')!.params.map((p) => p.name),
      ['buf', 'count', 'datatype', 'dest', 'tag', 'comm'],
    );
    assert.equal(by.get('MPI_Group_range_incl')!.params[2].type, 'int (*)[3]');
    assert.equal(by.get('MPI_Pcontrol')!.variadic, true);
    assert.equal(by.get('MPI_Wtime')!.ret, 'double');
    assert.equal(by.get('MPI_Wtime')!.params.length, 0);
    assert.deepEqual(
      by.get('MPI_Type_f2c_like')!.params.map((p) => p.decl),
      ['MPI_Fint a0', 'MPI_Datatype * a1'],
    );
    assert.ok(!by.has('MPI_Fake'), 'nothing inside struct bodies');
    assert.deepEqual(parseEnum(text, 'QMPI_Functions_enum'), ['MPI_ABORT_T', 'MPI_SEND_T', 'MPI_LAST_FUNC_T']);
  });
});

describe('generation from the declarations of MPICH 4.1 and later', () => {
  // the parts of MPICH 5.0's preprocessed mpi.h that differ from 4.0: QMPI_Register_function and
  // QMPI_Get_function take the id as an int, and the handle conversions are declared (mpi_proto.h)
  // before mpi.h defines them again as macros
  const pre = `
typedef int MPI_Comm; typedef int MPI_Fint; typedef int MPI_Datatype;
typedef struct { void **storage_stack; } QMPI_Context;
int QMPI_Register_function(int calling_tool_id, int function_enum, void (*function_ptr) (void)) __attribute__((visibility ("default")));
int QMPI_Get_function(int calling_tool_id, int function_enum, void (**function_ptr) (void), int *next_tool_id);
int MPI_Barrier(MPI_Comm comm);
MPI_Fint MPI_Comm_c2f(MPI_Comm comm);
MPI_Comm MPI_Comm_f2c(MPI_Fint comm);
enum QMPI_Functions_enum { MPI_BARRIER_T, MPI_COMM_C2F_T, MPI_COMM_F2C_T, MPI_LAST_FUNC_T };
int QMPI_Barrier(QMPI_Context context, int tool_id, MPI_Comm comm);
typedef int (QMPI_Barrier_t) (QMPI_Context context, int tool_id, MPI_Comm comm);
`;
  const defines = '#define MPI_VERSION 5\n#define MPI_Comm_c2f(comm) (MPI_Fint)(comm)\n#define MPI_Comm_f2c(comm) (MPI_Comm)(comm)\n';
  const g = generate({ flavor: 'mpich', preprocessed: pre, specPath: join(ROOT, 'preload', 'spec', 'mpi.yaml'), mpiVersion: 'test', defines });
  it("the shim's QMPI_Register_function and QMPI_Get_function take the id as mpi.h declares it (int)", () => {
    assert.match(g.files['qmpi.h'], /^typedef int mpii_qmpi_id_t;$/m);
    assert.doesNotMatch(g.files['qmpi.h'], /enum QMPI_Functions_enum \{/, "MPICH's own enum, not a second one");
  });
  it('a function mpi.h also defines as a macro gets no wrapper (its name would expand the macro)', () => {
    assert.deepEqual([...parseFunctionMacros(defines)].sort(), ['MPI_Comm_c2f', 'MPI_Comm_f2c']);
    assert.deepEqual(
      g.functions.map((f) => f.name),
      ['MPI_Barrier'],
    );
    assert.equal(g.functions[0].enumName, 'MPI_BARRIER_T', "MPICH's id, so a tool compiled against its mpi.h agrees");
  });
  it('MPICH 4.0 and Open MPI keep the enum type', () => {
    const old = generate({
      flavor: 'mpich',
      preprocessed: pre.replace(/int function_enum/g, 'enum QMPI_Functions_enum function_enum'),
      specPath: join(ROOT, 'preload', 'spec', 'mpi.yaml'),
      mpiVersion: 'test',
    });
    assert.match(old.files['qmpi.h'], /^typedef enum QMPI_Functions_enum mpii_qmpi_id_t;$/m);
    assert.deepEqual(
      old.functions.map((f) => f.name),
      ['MPI_Barrier', 'MPI_Comm_c2f', 'MPI_Comm_f2c'],
    );
  });
});

describe("the MPI's version as the library says it", () => {
  it("Open MPI: the pkg-config file's version (a release candidate's suffix too), else mpi.h's numbers", () => {
    const dir = mkdtempSync(join(tmpdir(), 'mpii-ver-'));
    mkdirSync(join(dir, 'include'));
    writeFileSync(join(dir, 'include', 'mpi.h'), '#define OMPI_MAJOR_VERSION 6\n#define OMPI_MINOR_VERSION 0\n#define OMPI_RELEASE_VERSION 0\n');
    assert.equal(mpiVersionOf('openmpi', [join(dir, 'include')]), 'Open MPI 6.0.0');
    mkdirSync(join(dir, 'lib', 'pkgconfig'), { recursive: true });
    writeFileSync(join(dir, 'lib', 'pkgconfig', 'ompi.pc'), 'Name: Open MPI\nDescription: x\nVersion: 6.0.0rc2\n');
    assert.equal(mpiVersionOf('openmpi', [join(dir, 'include')]), 'Open MPI 6.0.0rc2');
  });
});

describe('generation from the installed headers', () => {
  for (const f of ['openmpi', 'mpich'] as const) {
    it(`${f}: every MPI function of mpi.h is wrapped, with roles from the spec`, () => {
      const dir = mkdtempSync(join(tmpdir(), 'mpii-gen-'));
      writeFileSync(join(dir, 'h.c'), '#include <mpi.h>\n');
      const pre = execaSync(`mpicc.${f}`, ['-E', '-P', join(dir, 'h.c')]).stdout;
      const g = generate({ flavor: f, preprocessed: pre, specPath: join(ROOT, 'preload', 'spec', 'mpi.yaml'), mpiVersion: 'test' });
      const declared = parseFunctions(pre, ['MPI_', 'MPIX_'])
        .map((x) => x.name)
        .sort();
      assert.deepEqual(g.functions.map((x) => x.name).sort(), declared);
      const send = g.functions.find((x) => x.name === 'MPI_Send')!;
      assert.equal(send.kind, 'send');
      assert.deepEqual(send.roles, ['buffer', 'count', 'datatype', 'peer', 'tag', 'comm']);
      assert.equal(g.functions.find((x) => x.name === 'MPI_Alltoall')!.kind, 'coll-a2a');
      // the argument view: every role by name, whatever the parameter's position or spelling
      const gen = g.files['mpii_gen.h'];
      assert.match(
        gen,
        /#define MPII_ARGS_MPI_Send \(\(mpii_args_t\) \{ \.buffer = \(const void \*\) buf, \.count = \(MPI_Count\) count, \.datatype = \(MPI_Datatype\) datatype, \.peer = \(int\) dest, \.tag = \(int\) tag, \.comm = \(MPI_Comm\) comm \}\)/,
      );
      assert.match(gen, /#define MPII_ARGS_MPI_Sendrecv \(\(mpii_args_t\) \{[^\n]*\.peer = \(int\) dest,[^\n]*\.recv_peer = \(int\) source/);
      assert.match(gen, /#define MPII_ARGS_MPI_Comm_free \(\(mpii_args_t\) \{ \.comm_ref = \(MPI_Comm \*\) comm \}\)/);
      assert.match(gen, /#define MPII_ARGS_MPI_Cart_create \(\(mpii_args_t\) \{ \.comm = \(MPI_Comm\) \w+, \.new_comm = \(MPI_Comm \*\) comm_cart \}\)/);
      if (f === 'mpich') {
        // ids are MPICH's own enum, so tools compiled against MPICH's mpi.h agree with the shim
        const e = parseEnum(pre, 'QMPI_Functions_enum');
        const inEnum = g.functions.filter((x) => !x.enumName.startsWith('MPII_EXT_'));
        for (const fn of inEnum) assert.ok(e.includes(fn.enumName), fn.enumName);
        assert.ok(
          g.functions.some((x) => x.name === 'MPI_Send_c'),
          'large-count variants',
        );
        assert.equal(g.functions.find((x) => x.name === 'MPI_Send_c')!.kind, 'send');
        assert.match(g.files['qmpi.h'], /#include <mpi\.h>/);
        // the argument view: large-count arrays fill the `_c` twin of an int-array field
        assert.match(g.files['mpii_gen.h'], /#define MPII_ARGS_MPI_Alltoallv_c \(\(mpii_args_t\) \{ [^\n]*\.send_counts_c = \(const MPI_Count \*\) sendcounts/);
      } else {
        // Open MPI's mpi.h has no QMPI enum: qmpi.h declares one, alphabetical (Open MPI 6's
        // starts with the ABI's MPI_Abi_* functions, 4.1's and 5.0's with MPI_Abort)
        const own = parseEnum(g.files['qmpi.h'], 'QMPI_Functions_enum');
        assert.match(own[0], /^MPI_AB(I_GET_\w+|ORT)_T$/);
        assert.ok(own.includes('MPI_ABORT_T') && own.includes('MPI_SEND_T'));
        assert.match(g.files['qmpi.h'], /typedef int \(QMPI_Send_t\) \(QMPI_Context context, int tool_id, const void \*buf/);
        assert.match(g.files['mpii_objects.h'], /#define ompi_mpi_comm_world \(\*mpii_obj_ompi_mpi_comm_world\)/);
      }
    });
  }
});

/** The 16-byte head of profile.mpii: magic, format version, number of rank images. */
function profileHeader(version: number, nranks: number): Buffer {
  const b = Buffer.alloc(16);
  b.write('MPIIPROF', 0, 'latin1');
  b.writeUInt32LE(version, 8);
  b.writeUInt32LE(nranks, 12);
  return b;
}

describe('profile reader', () => {
  const sample = (): string => {
    // a real profile from a finished run is produced by the job tests; here we fabricate bad ones
    const d = mkdtempSync(join(tmpdir(), 'mpii-prof-'));
    return d;
  };
  it('rejects a file with the wrong magic', () => {
    const d = sample();
    writeFileSync(join(d, 'profile.mpii'), 'garbage garbage garbage');
    assert.throws(() => readProfile(d), /not an mpii profile/);
  });
  it('rejects a newer format version', () => {
    const d = sample();
    writeFileSync(join(d, 'profile.mpii'), profileHeader(99, 1));
    assert.throws(() => readProfile(d), /newer mpii \(format 99/);
  });
  it('rejects a truncated profile', () => {
    const d = sample();
    writeFileSync(join(d, 'profile.mpii'), profileHeader(1, 4));
    assert.throws(() => readProfile(d), /truncated: 0 of 4 ranks/);
  });
  it('rejects a rank image cut short', () => {
    const d = sample();
    const img = Buffer.alloc(144);
    img.write('MPIIRNK1', 0, 'latin1');
    img.writeUInt32LE(1, 8);
    img.writeBigUInt64LE(4096n, 32); // claims more than is there
    writeFileSync(join(d, 'rank-0.live'), img);
    assert.throws(() => readProfile(d), /truncated/);
  });
});
