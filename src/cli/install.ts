// `mpii install` / `mpii uninstall`: the sysadmin deployment. The shim is installed as a library
// (plus a static archive and the tool headers) under <prefix>/lib/mpii/<mpi>/, with the default
// stack in `mpii-defaults` next to it, and the MPI compiler wrappers are taught to link it:
//   Open MPI  the wrapper data files (<pkgdatadir>/<wrapper>-wrapper-data.txt, `libs=` line), or with
//             --wrappers separate, copies of them under the prefix used by <wrapper>-mpii.openmpi
//   MPICH     a profile configuration `mpii.conf` for `mpicc -profile=mpii` in MPICH's sysconfdir
//             (--make-default: /etc/profile.d/mpii.sh sets MPICC_PROFILE & co.), or with
//             --wrappers separate, <prefix>/etc/mpich/mpii.conf used by <wrapper>-mpii.mpich
// Every file written or changed is recorded in <prefix>/share/mpii/install.json with a backup of
// the original bytes; `mpii uninstall` puts them back and removes the rest. --dry-run shows diffs.
import { createHash } from 'node:crypto';
import {
  chmodSync,
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmdirSync,
  rmSync,
  statSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { execa } from 'execa';
import { buildShim, systemCacheWritable } from '../shim/shim.js';
import { ROOT } from '../paths.js';
import { resolveStack } from '../config/resolve.js';
import { MpiiError } from '../errors.js';
import { FLAVORS, findTool, type FlavorName } from '../mpi/flavors.js';
import { DEFAULTS_FILE } from './run.js';
import { ENV } from '../environment.gen.js';

export interface InstallOptions {
  prefix?: string;
  mpi?: string;
  defaultStack?: string;
  config?: string;
  wrappers?: string;
  makeDefault?: boolean;
  outBase?: string;
  dryRun?: boolean;
}

type Action = { kind: 'write'; path: string; content: Buffer; mode?: number } | { kind: 'modify'; path: string; content: Buffer };

interface Manifest {
  version: 1;
  created: string[];
  dirs: string[];
  modified: Array<{ path: string; backup: string; after: string }>;
}

const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');
const manifestPath = (prefix: string) => join(prefix, 'share', 'mpii', 'install.json');
const WRAPPERS = ['mpicc', 'mpicxx', 'mpifort', 'mpif90', 'mpif77'];
const OMPI_DATA = ['mpicc', 'mpicxx', 'mpiCC', 'mpic++', 'mpifort', 'mpif90', 'mpif77'];

function flavorsOf(mpi: string | undefined, env: NodeJS.ProcessEnv): FlavorName[] {
  const all = (Object.keys(FLAVORS) as FlavorName[]).filter((f) => findTool(f, FLAVORS[f].compilers, env));
  if (!mpi || mpi === 'all') {
    if (!all.length) throw new MpiiError('no MPI installation found', `install one: apt-get install -y ${FLAVORS.openmpi.packages}`);
    return all;
  }
  if (mpi !== 'openmpi' && mpi !== 'mpich') throw new MpiiError(`unknown MPI '${mpi}' for --mpi`, 'use --mpi openmpi, mpich or all');
  if (!all.includes(mpi)) throw new MpiiError(`${FLAVORS[mpi].label} is not installed`, `install it: apt-get install -y ${FLAVORS[mpi].packages}`);
  return [mpi];
}

/** The stack the linked-in shim runs when nothing else says: TOOLS and per-tool options. */
function defaultsFile(o: InstallOptions, env: NodeJS.ProcessEnv): string {
  const { TOOLS: _ignored, ...rest } = env; // the installer's own TOOLS must not decide the site default
  const stack = resolveStack({ stack: o.defaultStack, configFile: o.config, env: rest, cwd: process.cwd(), defaultsFile: DEFAULTS_FILE });
  if (!stack.tools.length) {
    throw new MpiiError('no default stack for programs built with the wrappers', 'pass --default-stack NAME (a stack from `mpii tools`)');
  }
  const lines = [
    '# mpii install: the stack of programs linked with the shim; TOOLS / INJ_IGNORE in the environment win',
    `${ENV.TOOLS}=${stack.tools.map((t) => (t.kind === 'external' ? t.path! : t.name)).join(':')}`,
  ];
  stack.tools.forEach((t, i) => {
    const opts = Object.entries(t.options);
    if (opts.length) lines.push(`${ENV.MPII_OPT}${i + 1}=${opts.map(([k, v]) => `${k}=${v}`).join(';')}`);
  });
  lines.push(`${ENV.MPII_OUT_BASE}=${o.outBase ?? 'mpii-out'}`);
  return `${lines.join('\n')}\n`;
}

const linkFlags = (dir: string) => `-L${dir} -Wl,-rpath,${dir} -lmpii -Wl,--no-as-needed`;

async function ompiDataDir(env: NodeJS.ProcessEnv): Promise<string> {
  const r = await execa('ompi_info', ['--path', 'pkgdatadir', '--parsable'], { env, reject: false });
  const dir = /^path:pkgdatadir:(.+)$/m.exec(r.stdout)?.[1];
  if (!dir)
    throw new MpiiError(
      "cannot find Open MPI's wrapper data directory (ompi_info --path pkgdatadir)",
      `reinstall Open MPI: apt-get install -y ${FLAVORS.openmpi.packages}`,
    );
  return dir;
}

/** An Open MPI wrapper data file with the shim linked first. `libs_static` too: the Fortran
 * wrappers use it whenever libmpi.so is not in their own libdir (Debian), yet link shared. */
function ompiData(text: string, dir: string): string {
  return text.replace(/^(libs|libs_static)=(.*)$/gm, (_m, key: string, libs: string) => `${key}=${linkFlags(dir)} ${libs}`);
}

function mpichSysconfdir(env: NodeJS.ProcessEnv): string {
  const cc = findTool('mpich', FLAVORS.mpich.compilers, env)!;
  const m = /^sysconfdir=(.+)$/m.exec(readFileSync(cc, 'utf8'));
  if (!m) throw new MpiiError(`cannot find MPICH's sysconfdir in ${cc}`, 'use --wrappers separate');
  return m[1].trim();
}

const script = (body: string) => Buffer.from(`#!/bin/sh\n# mpii install: ${body.split('\n')[0]}\n${body.split('\n').slice(1).join('\n')}\n`);

/** The archive with its site_path.o member naming the installed defaults file: code linked into a
 * program statically cannot find the library's directory at run time. */
async function archiveFor(archive: string, dir: string, env: NodeJS.ProcessEnv): Promise<Buffer> {
  const tmp = mkdtempSync(join(tmpdir(), 'mpii-archive-'));
  try {
    const src = join(tmp, 'site_path.c');
    writeFileSync(src, `const char mpii_site_defaults_path[] = ${JSON.stringify(join(dir, 'mpii-defaults'))};\n`);
    await execa('cc', ['-c', '-fPIC', '-O2', src, '-o', join(tmp, 'site_path.o')], { env });
    copyFileSync(archive, join(tmp, 'libmpii.a'));
    await execa('ar', ['r', join(tmp, 'libmpii.a'), join(tmp, 'site_path.o')], { env });
    return readFileSync(join(tmp, 'libmpii.a'));
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}

async function plan(o: InstallOptions, prefix: string, env: NodeJS.ProcessEnv): Promise<Action[]> {
  const mode = o.wrappers ?? 'system';
  if (mode !== 'system' && mode !== 'separate') throw new MpiiError(`unknown --wrappers '${mode}'`, 'use --wrappers system or --wrappers separate');
  const flavors = flavorsOf(o.mpi, env);
  const defaults = Buffer.from(defaultsFile(o, env));
  const actions: Action[] = [];
  for (const f of flavors) {
    // into the system cache when it may (root): every user's `mpii run` then compiles nothing (a
    // dry run writes nothing there)
    const shim = await buildShim(f, { env, archive: true, system: !o.dryRun && systemCacheWritable(env) });
    const dir = join(prefix, 'lib', 'mpii', f);
    actions.push({ kind: 'write', path: join(dir, 'libmpii.so'), content: readFileSync(shim.library), mode: 0o755 });
    actions.push({ kind: 'write', path: join(dir, 'libmpii.a'), content: await archiveFor(shim.archive, dir, env) });
    for (const h of readdirSync(shim.includeDir))
      actions.push({ kind: 'write', path: join(dir, 'include', h), content: readFileSync(join(shim.includeDir, h)) });
    actions.push({ kind: 'write', path: join(dir, 'mpii-defaults'), content: defaults });
    if (f === 'openmpi') {
      const data = await ompiDataDir(env);
      const seen = new Set<string>();
      const copyDir = join(prefix, 'share', 'mpii', 'openmpi-data');
      if (mode === 'separate') {
        // the wrappers read every file of their data directory from OPAL_PKGDATADIR: copy them all
        for (const e of readdirSync(data)) {
          const p = join(data, e);
          if (!statSync(p).isFile()) continue;
          const text = readFileSync(p);
          const edited = e.endsWith('-wrapper-data.txt') ? Buffer.from(ompiData(text.toString('utf8'), dir)) : text;
          actions.push({ kind: 'write', path: join(copyDir, e), content: edited });
        }
        for (const w of WRAPPERS) {
          const real = findTool(f, [`${w}.openmpi`], env);
          if (real)
            actions.push({
              kind: 'write',
              path: join(prefix, 'bin', `${w}-mpii.openmpi`),
              mode: 0o755,
              content: script(`${w}.openmpi linking the mpii shim (Open MPI's files untouched)\nOPAL_PKGDATADIR=${copyDir} exec ${real} "$@"`),
            });
        }
      } else {
        for (const w of OMPI_DATA) {
          const p = join(data, `${w}-wrapper-data.txt`);
          if (!existsSync(p)) continue;
          const real = realpathSync(p);
          if (seen.has(real)) continue;
          seen.add(real);
          actions.push({ kind: 'modify', path: real, content: Buffer.from(ompiData(readFileSync(real, 'utf8'), dir)) });
        }
      }
    } else {
      // mpicc -profile=mpii-static -static-mpi: the compile-time mode (mpii.h + libmpii.a before libmpich.a)
      const staticConf = Buffer.from(
        [
          '# mpii install: `mpicc -profile=mpii-static -static-mpi`: mpii.h and the shim archive, for a static MPICH',
          `PROFILE_INCPATHS="-I${join(dir, 'include')} -include ${join(dir, 'include', 'mpii.h')}"`,
          `PROFILE_PRELIB="${join(dir, 'libmpii.a')}"`,
          'PROFILE_POSTLIB="-ldl -lpthread"',
          '',
        ].join('\n'),
      );
      const conf = Buffer.from(
        [
          '# mpii install: `mpicc -profile=mpii` links the QMPI tool shim',
          `PROFILE_PRELIB="${linkFlags(dir)}"`,
          `PROFILE_INCPATHS="-I${join(dir, 'include')}"`,
          "# mpifort puts PROFILE_PRELIB after -lmpichfort: the shim's Fortran entry points must come first",
          `if [ -n "$FC" ]; then PROFILE_INCPATHS="$PROFILE_INCPATHS -L${dir} -Wl,-rpath,${dir} -Wl,--no-as-needed -lmpii"; fi`,
          '',
        ].join('\n'),
      );
      if (mode === 'separate') {
        const confDir = join(prefix, 'etc', 'mpich');
        actions.push({ kind: 'write', path: join(confDir, 'mpii.conf'), content: conf });
        actions.push({ kind: 'write', path: join(confDir, 'mpii-static.conf'), content: staticConf });
        for (const w of WRAPPERS) {
          const real = findTool(f, [`${w}.mpich`], env);
          if (real)
            actions.push({
              kind: 'write',
              path: join(prefix, 'bin', `${w}-mpii.mpich`),
              mode: 0o755,
              content: script(`${w}.mpich linking the mpii shim (MPICH's files untouched)\nexec ${real} -profile=${join(confDir, 'mpii')} "$@"`),
            });
        }
      } else {
        const sysconf = mpichSysconfdir(env);
        actions.push({ kind: 'write', path: join(sysconf, 'mpii.conf'), content: conf });
        actions.push({ kind: 'write', path: join(sysconf, 'mpii-static.conf'), content: staticConf });
        if (o.makeDefault) {
          actions.push({
            kind: 'write',
            path: '/etc/profile.d/mpii.sh',
            content: Buffer.from(
              "# mpii install --make-default: MPICH's wrappers link the mpii shim unless -profile= says otherwise\nexport MPICC_PROFILE=mpii MPICXX_PROFILE=mpii MPIFORT_PROFILE=mpii\n",
            ),
          });
        }
      }
    }
  }
  // the manual page, where man finds it for programs in <prefix>/bin (docs/mpii.1, kept up to date
  // with the command definitions by test/man.test.ts)
  const page = join(ROOT, 'docs', 'mpii.1');
  if (existsSync(page)) actions.push({ kind: 'write', path: join(prefix, 'share', 'man', 'man1', 'mpii.1'), content: readFileSync(page) });
  return actions;
}

async function diff(path: string, before: Buffer | null, after: Buffer | null): Promise<string> {
  const r = await execa('diff', ['-u', '--label', before ? path : '/dev/null', '--label', after ? path : '/dev/null', before ? path : '/dev/null', '-'], {
    input: after ?? Buffer.alloc(0),
    reject: false,
  });
  return r.stdout;
}

const isText = (b: Buffer) => !b.subarray(0, 4096).includes(0);

async function show(path: string, before: Buffer | null, after: Buffer | null): Promise<void> {
  if ((before && !isText(before)) || (after && !isText(after))) {
    console.log(`${after ? (before ? 'replace' : 'create') : 'remove'} ${path} (binary, ${(after ?? before)!.length} bytes)`);
  } else {
    console.log(await diff(path, before, after));
  }
}

/** Directories that do not exist yet on the way to `path`, outermost first. */
function missingDirs(path: string): string[] {
  const out: string[] = [];
  for (let d = dirname(path); !existsSync(d); d = dirname(d)) out.unshift(d);
  return out;
}

export async function installCommand(o: InstallOptions, env: NodeJS.ProcessEnv = process.env): Promise<number> {
  const prefix = resolve(o.prefix ?? '/usr/local');
  if (existsSync(manifestPath(prefix))) {
    throw new MpiiError(`mpii is already installed in ${prefix}`, `run \`mpii uninstall --prefix ${prefix}\` first`);
  }
  const actions = await plan(o, prefix, env);
  if (o.dryRun) {
    for (const a of actions) await show(a.path, a.kind === 'modify' || existsSync(a.path) ? readFileSync(a.path) : null, a.content);
    return 0;
  }
  for (const a of actions) {
    if (a.kind === 'write' && existsSync(a.path)) {
      throw new MpiiError(`${a.path} already exists`, 'remove it, or install into another --prefix');
    }
  }
  const m: Manifest = { version: 1, created: [], dirs: [], modified: [] };
  const backups = join(prefix, 'share', 'mpii', 'backup');
  const save = () => {
    mkdirSync(dirname(manifestPath(prefix)), { recursive: true });
    writeFileSync(manifestPath(prefix), JSON.stringify(m, null, 2));
  };
  const mkdirs = (p: string) => {
    for (const d of missingDirs(p)) {
      mkdirSync(d);
      m.dirs.push(d);
    }
  };
  mkdirs(manifestPath(prefix));
  save(); // from here on, a failed install can be undone with `mpii uninstall`
  try {
    for (const a of actions) {
      if (a.kind === 'write') {
        mkdirs(a.path);
        writeFileSync(a.path, a.content);
        if (a.mode) chmodSync(a.path, a.mode);
        m.created.push(a.path);
      } else {
        const backup = join(backups, a.path.replace(/\//g, '%'));
        mkdirs(backup);
        copyFileSync(a.path, backup);
        m.modified.push({ path: a.path, backup, after: sha(a.content) });
        save();
        writeFileSync(a.path, a.content);
      }
      save();
    }
  } catch (e) {
    const err = e as NodeJS.ErrnoException;
    throw new MpiiError(
      `install stopped: ${err.code === 'EACCES' ? `no permission to write ${err.path}` : err.message}`,
      `run \`mpii uninstall --prefix ${prefix}\` to undo the part done, then install as root or with --prefix DIR --wrappers separate`,
    );
  }
  console.log(`mpii installed in ${prefix}: ${m.created.length} files, ${m.modified.length} MPI wrapper files changed (backups in ${backups})`);
  return 0;
}

export async function uninstallCommand(o: { prefix?: string; dryRun?: boolean; force?: boolean }): Promise<number> {
  const prefix = resolve(o.prefix ?? '/usr/local');
  const mp = manifestPath(prefix);
  if (!existsSync(mp)) throw new MpiiError(`mpii is not installed in ${prefix} (no ${mp})`, 'pass the --prefix you installed with');
  const m = JSON.parse(readFileSync(mp, 'utf8')) as Manifest;
  for (const x of m.modified) {
    if (existsSync(x.path) && sha(readFileSync(x.path)) !== x.after && !o.force) {
      throw new MpiiError(
        `${x.path} changed since mpii install (an MPI upgrade?)`,
        `compare it with the backup ${x.backup}; --force restores the backup anyway`,
      );
    }
  }
  if (o.dryRun) {
    for (const x of m.modified) await show(x.path, existsSync(x.path) ? readFileSync(x.path) : null, readFileSync(x.backup));
    for (const p of m.created) if (existsSync(p)) await show(p, readFileSync(p), null);
    return 0;
  }
  for (const x of m.modified) {
    writeFileSync(x.path, readFileSync(x.backup));
    unlinkSync(x.backup);
  }
  for (const p of m.created) if (existsSync(p)) unlinkSync(p);
  unlinkSync(mp);
  for (const d of [...m.dirs].reverse()) {
    try {
      rmdirSync(d);
    } catch {
      /* not empty: something else lives there now */
    }
  }
  console.log(`mpii uninstalled from ${prefix}: ${m.modified.length} MPI wrapper files restored, ${m.created.length} files removed`);
  return 0;
}
