// Builds the preload shim for one MPI: generate wrappers from the installed mpi.h, compile with
// the MPI's compiler wrapper, link WITHOUT libmpi, and cache the result so a warm run builds nothing.
import type { Hash } from 'node:crypto';
import {
  accessSync,
  constants,
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { MpiiError } from '../errors.js';
import { makeDirs } from '../fsdirs.js';
import { FLAVORS, findTool, flavorLabel, type ShimFlavor } from '../mpi/flavors.js';
import { abiVersion } from '../mpi/abi.js';
import { abiProbe } from './abi-probe.js';
import { cacheRoot, memoized } from '../memo.js';
import { BUILTIN_TOOLS_DIR, PRELOAD_DIR, ROOT } from '../paths.js';
import { createRequire } from 'node:module';
import type { ToolManifest } from '../tools/manifest.js';
import { ENV } from '../environment.gen.js';
import { lockHolder, lockPath, waitForLock } from './build-lock.js';
import { stackName } from '../gen/specialised-c.js';
import { compileObject } from './object-cache.js';

// Loaded only when used: a warm `mpii run` neither hashes (the key is remembered, see cacheKey)
// nor generates anything
const sha256 = (): Hash => (createRequire(import.meta.url)('node:crypto') as typeof import('node:crypto')).createHash('sha256');

// Every wrapper zeroes a 240-byte argument view (mpii_args_t); GCC's default for such a memset
// on x86-64 is `rep stos`, whose start-up alone costs tens of cycles on AMD — as much as the rest
// of a tool's per-call work. Plain stores instead.
const ARCH_FLAGS = process.arch === 'x64' ? ['-mstringop-strategy=unrolled_loop'] : [];

// Wrappers are macros expanded over every MPI function: a local that takes a parameter's name in
// one of them (MPI_Info_set's `key`) passes the wrong value on to MPI, and the compiler's only
// sign is one of these warnings. A build that has one is wrong: it stops (GCC 14 makes both
// errors by default; Debian 12's GCC 12 only warns).
const ERROR_FLAGS = ['-Werror=int-conversion', '-Werror=incompatible-pointer-types'];

/** The C compiler's arguments to link the shim `out` from `objects`: without libmpi (the shim
 *  finds the MPI's functions at run time), its own calls bound inside it. */
export function linkArgs(out: string, objects: string[]): string[] {
  return ['-shared', '-o', out, ...objects, '-ldl', '-lpthread', '-Wl,-Bsymbolic-functions', '-Wl,-soname,libmpii.so'];
}

/** The compiler's flags for one source of the shim: the generated wrappers (hundreds of
 *  functions) with line tables only, as full debug information nearly doubled their compile
 *  time, the longest step of a build. */
export function compileArgs(src: string, obj: string, genDir: string, extra: string[] = [], level: OptLevel = '-O2'): string[] {
  const debug = src.startsWith(`${genDir}/`) || level !== '-O2' ? '-g1' : '-g';
  return [
    '-c',
    '-fPIC',
    level,
    debug,
    '-std=gnu11',
    '-fno-semantic-interposition',
    '-Wall',
    ...ERROR_FLAGS,
    ...ARCH_FLAGS,
    ...extra,
    '-I',
    genDir,
    '-I',
    join(PRELOAD_DIR, 'core'),
    '-I',
    join(PRELOAD_DIR, 'include'),
    src,
    '-o',
    obj,
  ];
}

/** How hard the compiler optimises: -O2 for the shims that stay; -Og or -O0 for a quick shim
 *  (below, quickLevel): a quarter (memcheck.c, profile.c) to a half (monitor.c, the wrappers) of
 *  -O2's time, the same behaviour. */
export type OptLevel = '-O2' | '-Og' | '-O0';

/** A quick shim's sources that compile fastest at -O0 (CPU seconds on Open MPI 4.1, loaded:
 *  memcheck.c 4.3 against 8.3 at -Og, the wrappers 1.9 against 2.9); the others stay at -Og, where
 *  -O0 is slower (monitor.c 22 s against 3.5: its always-inline helpers stay whole in every
 *  wrapper) or the same. */
const QUICK_O0 = new Set(['memcheck.c', 'mpii_wrappers.c']);

/** The level a source of a quick shim is compiled at. */
export const quickLevel = (src: string): OptLevel => (QUICK_O0.has(src.split('/').pop()!) ? '-O0' : '-Og');

// the generators (src/gen: the wrappers, the tools' registration and options) and the manifests'
// loader (src/tools)
const GEN_JS = [join(ROOT, 'dist', 'src', 'gen'), join(ROOT, 'dist', 'src', 'tools')];

export interface Shim {
  flavor: ShimFlavor;
  /** where what is built next to this shim goes (a stack's compiled-in shim, its lock): its own
   *  directory, or for a shim of the system cache that key's directory in the user's cache */
  home: string;
  mpiVersion: string;
  /** the shared library to preload */
  library: string;
  /** static archive of the same objects (for programs linked against a static MPI) */
  archive: string;
  /** headers for tool authors: qmpi.h, mpii_tool.h, mpii_gen.h */
  includeDir: string;
  functions: number;
  fromCache: boolean;
}

export interface Probe {
  compiler: string;
  incdirs: string[];
  /** where the MPI library is, and its name (`mpi`, `mpich`): what the wrapper links */
  libdirs: string[];
  lib: string;
  cc: string;
  /** what the wrapper adds to a compilation (-I…, -pthread): the shim's files are compiled with
   *  `cc` and these, not through the wrapper. MPICH's wrapper is a shell script that forks a sed
   *  for each argument: 0.34 CPU seconds a file against 0.12 (log.c), 9 of a build's seconds. */
  cflags: string[];
  stamp: string;
}

/** The command and its first arguments that compile one of the shim's files. */
export const compileCommand = (pr: Probe): [string, string[]] => [pr.cc, pr.cflags];

export { cacheRoot }; // where it always was, for its importers

/** The cache directory, made one component at a time (mkdirSync's recursive mode spins for ever
 * under /proc); a cache that cannot be made is one line. */
function makeCache(cache: string): void {
  try {
    makeDirs(cache);
  } catch (e) {
    throw new MpiiError(
      `cannot create the shim cache ${cache} (${(e as Error).message})`,
      'set XDG_CACHE_HOME to a directory you can write (the cache is $XDG_CACHE_HOME/mpii, else ~/.cache/mpii)',
    );
  }
}

function stamp(path: string): string {
  try {
    const s = statSync(path);
    return `${path}:${s.size}:${s.mtimeMs}:${s.ino}`;
  } catch {
    return `${path}:missing`;
  }
}

// execa is loaded only when something must be spawned: a warm `mpii run` never pays for it
const loadExeca = async () => (await import('execa')).execa;

/** What the compiler wrapper says about itself; cached against the wrapper binary's stat. */
export async function probe(flavor: ShimFlavor, cache: string, env: NodeJS.ProcessEnv): Promise<Probe> {
  if (flavor === 'abi') return abiProbe(cache, env, stamp);
  const compiler = findTool(flavor, FLAVORS[flavor].compilers, env);
  if (!compiler) {
    throw new MpiiError(
      `no ${flavorLabel(flavor)} C compiler wrapper found (tried ${FLAVORS[flavor].compilers.join(', ')})`,
      `install it: apt-get install -y ${FLAVORS[flavor].packages}`,
    );
  }
  const file = join(cache, `probe-${flavor}.json`);
  const st = stamp(compiler);
  try {
    const p = JSON.parse(readFileSync(file, 'utf8')) as Probe;
    if (p.stamp === st && p.compiler === compiler && p.libdirs && p.cflags) return p;
  } catch {
    /* no probe yet */
  }
  const execa = await loadExeca();
  let incdirs: string[];
  let libdirs: string[];
  let lib = flavor === 'openmpi' ? 'mpi' : 'mpich';
  let cc: string;
  let cflags: string[];
  const words = async (arg: string) => (await execa(compiler, [arg], { env })).stdout.trim().split(/\s+/).filter(Boolean);
  if (flavor === 'openmpi') {
    incdirs = await words('-showme:incdirs');
    libdirs = await words('-showme:libdirs');
    cc = (await words('-showme:command'))[0] || 'cc';
    cflags = await words('-showme:compile');
  } else {
    const show = await words('-show');
    cc = show[0] || 'cc';
    incdirs = show.filter((a) => a.startsWith('-I')).map((a) => a.slice(2));
    libdirs = show.filter((a) => a.startsWith('-L')).map((a) => a.slice(2));
    lib = show.find((a) => /^-lmpi(ch)?$/.test(a))?.slice(2) ?? lib;
    // what -compile_info prints but the linking (which a compilation with -c ignores anyway)
    cflags = (await words('-compile_info')).slice(1).filter((a) => !/^(-L|-l|-Wl,)/.test(a));
  }
  const p: Probe = { compiler, incdirs, libdirs, lib, cc, cflags, stamp: st };
  makeCache(cache);
  writeFileSync(file, JSON.stringify(p));
  return p;
}

function listFiles(dir: string): string[] {
  const out: string[] = [];
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) out.push(...listFiles(p));
    else out.push(p);
  }
  return out.sort();
}

/** Every directory under `dir`, itself included (a file added anywhere changes one of them). */
function listDirs(dir: string): string[] {
  return [
    dir,
    ...readdirSync(dir, { withFileTypes: true })
      .filter((e) => e.isDirectory())
      .flatMap((e) => listDirs(join(dir, e.name))),
  ];
}

/** The cache key: shim sources + generator + MPI header + compilers + the builders (the compiler
 *  flags). Reads files, spawns nothing; remembered against the identity of every file and
 *  directory it read, so a warm run only stats them. */
export function cacheKey(flavor: ShimFlavor, pr: Probe, cache?: string): string {
  const mpiHeaders = pr.incdirs.map((dir) => join(dir, 'mpi.h'));
  return memoized(cache, 'shim-key', JSON.stringify({ flavor, root: ROOT, stamp: pr.stamp, cc: pr.cc, mpiHeaders }), () => {
    const h = sha256();
    h.update(`flavor=${flavor}\n${pr.stamp}\ncc=${pr.cc}\n`);
    for (const header of mpiHeaders) h.update(stamp(header));
    // what the shim is made of: C, headers and YAML (the spec, the tools' manifests), not the
    // tools' report modules (TypeScript) that live in the same folders
    const dirs = [PRELOAD_DIR, ...GEN_JS.filter((d) => existsSync(d))];
    const sources = listFiles(PRELOAD_DIR).filter((f) => /\.(c|h|ya?ml)$/.test(f));
    // this file (the compiler's flags) and the one that makes the specialised shims
    const here = fileURLToPath(import.meta.url);
    const builders = [here, join(dirname(here), 'specialise.js')];
    const files = [...sources, ...GEN_JS.flatMap((d) => (existsSync(d) ? listFiles(d) : [])), ...builders];
    for (const f of files) {
      h.update(f.slice(ROOT.length));
      h.update(readFileSync(f));
    }
    return { value: `${flavor}-${h.digest('hex').slice(0, 16)}`, deps: [...mpiHeaders, ...files, ...dirs.flatMap(listDirs), ...GEN_JS] };
  });
}

/** The version of a flavour's MPI as its own header says it (through its compiler wrapper's
 *  probe, cached); undefined when its development files are not installed (a standard-ABI run
 *  and MPI_T on the ABI need only its library). */
export async function implementationVersion(flavor: ShimFlavor, env: NodeJS.ProcessEnv): Promise<string | undefined> {
  try {
    return mpiVersionOf(flavor, (await probe(flavor, cacheRoot(env), env)).incdirs);
  } catch {
    return undefined;
  }
}

export function mpiVersionOf(flavor: ShimFlavor, incdirs: string[]): string {
  if (flavor === 'abi') return abiVersion(incdirs[0]);
  for (const dir of incdirs) {
    const p = join(dir, 'mpi.h');
    if (!existsSync(p)) continue;
    const t = readFileSync(p, 'utf8');
    if (flavor === 'mpich') {
      const m = /#define MPICH_VERSION "([^"]+)"/.exec(t);
      if (m) return `MPICH ${m[1]}`;
    } else {
      // mpi.h has the numbers only; the pkg-config file beside it has the version as the library
      // says it, a release candidate's suffix too (6.0.0rc2)
      for (const lib of ['lib', 'lib64']) {
        const pc = join(dir, '..', lib, 'pkgconfig', 'ompi.pc');
        const m = existsSync(pc) ? /^Version:\s*(\S+)/m.exec(readFileSync(pc, 'utf8')) : null;
        if (m) return `Open MPI ${m[1]}`;
      }
      const v = ['MAJOR', 'MINOR', 'RELEASE'].map((k) => new RegExp(`#define OMPI_${k}_VERSION (\\d+)`).exec(t)?.[1]);
      if (v[0]) return `Open MPI ${v.join('.')}`;
    }
  }
  return flavor;
}

function readShim(dir: string, flavor: ShimFlavor, fromCache: boolean, home = dir): Shim {
  const meta = JSON.parse(readFileSync(join(dir, 'shim.json'), 'utf8')) as { mpiVersion: string; functions: number };
  return {
    flavor,
    mpiVersion: meta.mpiVersion,
    functions: meta.functions,
    fromCache,
    home,
    library: join(dir, 'libmpii.so'),
    archive: join(dir, 'libmpii.a'),
    includeDir: join(dir, 'include'),
  };
}

/** Functions the MPI's static library (lib<name>.a in its libdirs) defines, if it has one. */
async function staticSymbols(pr: Probe, env: NodeJS.ProcessEnv): Promise<Set<string>> {
  const archive = pr.libdirs.map((d) => join(d, `lib${pr.lib}.a`)).find((p) => existsSync(p));
  if (!archive) return new Set();
  const execa = await loadExeca();
  const r = await execa('nm', ['--defined-only', '-g', archive], { env, reject: false });
  return new Set(
    r.stdout
      .split('\n')
      .map((l) => l.trim().split(/\s+/))
      .filter((w) => w.length === 3 && /[TW]/.test(w[1]))
      .map((w) => w[2]),
  );
}

/** What a build makes (`shim`: the general shim of an MPI; `stack`: a stack's specialised shim;
 *  `quick`: a quick shim, quickShimDir)
 *  and why it is not in the cache. */
export interface BuildReason {
  kind: 'shim' | 'stack' | 'quick';
  what: string;
  why: string;
}

export interface BuildOptions {
  env?: NodeJS.ProcessEnv;
  force?: boolean;
  /** awaited once before a real build starts, told what is built and why (the CLI loads its
   *  spinner here, or says so in one line when quiet) */
  beforeBuild?: (what: BuildReason) => Promise<void>;
  /** progress messages (an ora spinner in the CLI) */
  onStep?: (text: string) => void;
  /** also the static archive libmpii.a (`mpii install`): made the first time it is asked for,
   *  not with every shim, as most builds are for `mpii run` */
  archive?: boolean;
  /** build into the system cache (systemCacheRoot), not the user's: `mpii build --system` */
  system?: boolean;
  /** a quick shim (quickShimDir) with these built-in tools only, instead of the general shim */
  quick?: ToolManifest[];
  /** the caller holds the lock of the build (the background build, handed it by its run) */
  lockHeld?: boolean;
  /** told once when another process is building what this one needs, and this one waits */
  onWait?: (pid: number, what: string) => Promise<void> | void;
}

/** The tag of a quick shim's tools in its directory's name (in name order: one shim per set of
 *  tools): `none` for the empty stack. */
const quickTag = (tools: ToolManifest[]) => stackName([...tools].sort((a, b) => a.name.localeCompare(b.name))) || 'none';

/**
 * A quick shim: what an MPI's very first run starts on while its general shim builds in the
 * background. The general shim's sources and the same generated wrappers, but only the built-in
 * tools of the run's stack, compiled with -Og: the same behaviour at a fraction of the compile
 * (docs/architecture.md, "The first run"). Named after the general shim's key: a run uses it only
 * while that shim is not cached.
 */
export function quickShimDir(cache: string, key: string, tools: ToolManifest[]): string {
  return join(cache, `quick-${key}-${quickTag(tools)}`);
}

/** The system-wide cache: prebuilt shims every run reads before the user's own cache and never
 *  writes (`mpii build --system`, `mpii install`: docs/install.md). */
export function systemCacheRoot(env: NodeJS.ProcessEnv): string {
  return env[ENV.MPII_SYSTEM_CACHE] || '/var/cache/mpii';
}

/** The system cache, made if missing, when this process may write it; else one line. */
function writableSystemCache(env: NodeJS.ProcessEnv): string {
  const dir = systemCacheRoot(env);
  try {
    makeDirs(dir);
    accessSync(dir, constants.W_OK);
  } catch (e) {
    throw new MpiiError(
      `cannot write the system shim cache ${dir} (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`,
      `prebuild it as root, or set ${ENV.MPII_SYSTEM_CACHE} to a directory you can write`,
    );
  }
  return dir;
}

/** Whether this process may write the system cache (made if missing): root, or its owner. */
export function systemCacheWritable(env: NodeJS.ProcessEnv): boolean {
  try {
    writableSystemCache(env);
    return true;
  } catch {
    return false;
  }
}

/** Whether the general shim of `flavor` is in the system cache or the user's (no build, no spawn
 *  once probed), and its cache key. */
export async function cachedGeneral(flavor: ShimFlavor, env: NodeJS.ProcessEnv): Promise<{ cached: boolean; key: string }> {
  const cache = cacheRoot(env);
  makeCache(cache);
  const key = cacheKey(flavor, await probe(flavor, cache, env), cache);
  return { cached: [cache, systemCacheRoot(env)].some((c) => existsSync(join(c, key, 'shim.json'))), key };
}

/** libmpii.a in the built shim `dir`, for programs linked against a static MPI (mpii.h): the
 *  wrappers' static variant (entry points MPII_MPI_X, next layer by address), mpii_static.c,
 *  site_path.o and the shim's other objects. Made in a private directory and renamed into place,
 *  so concurrent installs see none or a whole one. */
async function ensureArchive(dir: string, pr: Probe, env: NodeJS.ProcessEnv, step: (text: string) => void): Promise<void> {
  if (existsSync(join(dir, 'libmpii.a'))) return;
  const execa = await loadExeca();
  const tmp = mkdtempSync(join(dir, '.archive-'));
  try {
    const genDir = join(dir, 'gen');
    step('compiling the static archive');
    const statics = [join(genDir, 'mpii_wrappers.c'), join(genDir, 'mpii_static.c')].map((src) => ({
      src,
      obj: join(tmp, `static-${src.split('/').pop()!.replace(/\.c$/, '.o')}`),
    }));
    const [cc, cflags] = compileCommand(pr);
    await Promise.all(statics.map(({ src, obj }) => compileObject(execa, cc, [...cflags, ...compileArgs(src, obj, genDir, ['-DMPII_STATIC'])], src, obj, env)));
    // the shim's own objects (numbered), all but the dynamic wrappers
    const objects = readdirSync(dir)
      .filter((f) => /^\d+-.*\.o$/.test(f) && !f.endsWith('-mpii_wrappers.o'))
      .map((f) => join(dir, f));
    await execa('ar', ['rcs', join(tmp, 'libmpii.a'), ...statics.map((x) => x.obj), join(dir, 'site_path.o'), ...objects], { env });
    renameSync(join(tmp, 'libmpii.a'), join(dir, 'libmpii.a'));
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}

/** The sources in the order two compilers finish soonest: the longest compiles first (a long one
 *  started last keeps one core busy alone at the end). A file's cost is its size, and far more its
 *  expansions over every MPI function (MPII_FOREACH_FUNC: a tool's wrappers of each). */
export function longestFirst(sources: string[]): string[] {
  const cost = (f: string) => {
    const text = readFileSync(f, 'utf8');
    return text.length + 1e6 * (text.match(/^\s*MPII_FOREACH_FUNC\(/gm)?.length ?? 0);
  };
  const costs = new Map(sources.map((f) => [f, cost(f)]));
  return [...sources].sort((a, b) => costs.get(b)! - costs.get(a)!);
}

export async function buildShim(flavor: ShimFlavor, opts: BuildOptions = {}): Promise<Shim> {
  const env = opts.env ?? process.env;
  const cache = opts.system ? writableSystemCache(env) : cacheRoot(env);
  makeCache(cache);
  const pr = await probe(flavor, cache, env);
  const key = cacheKey(flavor, pr, cache);
  const quick = opts.quick;
  const final = quick ? quickShimDir(cache, key, quick) : join(cache, key);
  const step = opts.onStep ?? (() => {});
  if (!opts.force && existsSync(join(final, 'shim.json'))) {
    if (opts.archive && !quick) await ensureArchive(final, pr, env, step);
    return readShim(final, flavor, true);
  }
  // prebuilt in the system cache: read there, and what is built next to it goes to the user's
  // (an archive is made next to the shim: `mpii install` as a user builds its own)
  const prebuilt = join(systemCacheRoot(env), key);
  if (!opts.system && !opts.force && !opts.archive && existsSync(join(prebuilt, 'shim.json'))) return readShim(prebuilt, flavor, true, join(cache, key));
  // a first run's background build of this very shim (background.ts): waited for, not repeated
  const generalLock = lockPath(cache, `general-${key}`);
  const builder = quick || opts.force || opts.lockHeld ? undefined : lockHolder(generalLock);
  if (builder !== undefined) {
    await opts.onWait?.(builder, `the ${flavorLabel(flavor)} shim`);
    await waitForLock(generalLock, () => existsSync(join(final, 'shim.json')));
    if (existsSync(join(final, 'shim.json'))) return buildShim(flavor, opts);
  }

  // Build in a private directory and rename it into place: concurrent builds of the same key
  // each produce a complete directory and the first rename wins; nobody sees a half-built one.
  const work = join(cache, `.build-${key}-${process.pid}-${Date.now()}`);
  mkdirSync(join(work, 'gen'), { recursive: true });
  // mpii exiting mid-build (a signal: see runCommand) leaves no half-built directory behind
  const dropWork = () => rmSync(work, { recursive: true, force: true });
  process.on('exit', dropWork);
  try {
    const execa = await loadExeca();
    // another shim of this MPI in the cache: built from other sources, or for another MPI build
    const older = readdirSync(cache).some((d) => /^[a-z]+-[0-9a-f]{16}$/.test(d) && d.startsWith(`${flavor}-`) && d !== key);
    await opts.beforeBuild?.(
      quick
        ? {
            kind: 'quick',
            what: `a quick ${flavorLabel(flavor)} shim with ${quick.length ? `the tools ${quickTag(quick)}` : 'no tool'} (-Og)`,
            why: `the first run on this MPI${older ? " since mpii's sources or the MPI changed" : ''}; the full shim builds in the background`,
          }
        : {
            kind: 'shim',
            what: `the ${flavorLabel(flavor)} shim`,
            why: opts.force ? '--force' : older ? "mpii's sources or the MPI changed since the cached one" : 'none cached yet for this MPI',
          },
    );
    step(`reading ${flavorLabel(flavor)} mpi.h`);
    writeFileSync(join(work, 'mpi_header.c'), '#include <mpi.h>\n');
    const pre = await execa(pr.compiler, ['-E', '-P', join(work, 'mpi_header.c')], { env });
    const defines = await execa(pr.compiler, ['-E', '-dM', join(work, 'mpi_header.c')], { env });
    const mpiVersion = mpiVersionOf(flavor, pr.incdirs);
    step('generating wrappers');
    // (the static archive's resolver only: a quick shim has none)
    const staticDefined = quick ? new Set<string>() : await staticSymbols(pr, env);
    const { generate, writeGenerated } = await import('../gen/generate.js');
    const gen = generate({
      flavor,
      preprocessed: pre.stdout,
      specPath: join(PRELOAD_DIR, 'spec', 'mpi.yaml'),
      mpiVersion,
      staticDefined,
      defines: defines.stdout,
    });
    writeGenerated(join(work, 'gen'), gen.files);
    // the built-in tools: every folder of preload/tools with a manifest (its C, its typed options,
    // its row in the registration table)
    const { builtinManifests } = await import('../tools/manifest.js');
    const { generateToolSources } = await import('../gen/tools-c.js');
    const tools = quick ?? builtinManifests(BUILTIN_TOOLS_DIR);
    writeGenerated(join(work, 'gen'), generateToolSources(tools));

    const sources = [
      join(work, 'gen', 'mpii_wrappers.c'),
      join(work, 'gen', 'mpii_tools.c'),
      ...listFiles(join(PRELOAD_DIR, 'core')),
      ...tools.flatMap((t) => listFiles(t.dir)),
    ].filter((f) => f.endsWith('.c') && !f.endsWith('site_path.c'));
    // site_path.o keeps its plain name: `mpii install` replaces that archive member
    const queue = longestFirst([...sources, join(PRELOAD_DIR, 'core', 'site_path.c')]);
    const total = queue.length;
    const objects: string[] = [];
    let done = 0,
      fromCache = 0;
    const [cc, cflags] = compileCommand(pr);
    step(`compiling ${total} files with ${cc}`);
    const genDir = join(work, 'gen');
    // two at a time: the machines this runs on are small. The spinner names what is compiling
    // (the long ones, a tool's wrappers of every function, come first and take most of the time)
    const compiling = new Set<string>();
    const worker = async () => {
      for (let src = queue.shift(); src; src = queue.shift()) {
        const name = src.split('/').pop()!;
        const base = name.replace(/\.c$/, '.o');
        const obj = join(work, base === 'site_path.o' ? base : `${objects.length}-${base}`);
        if (base !== 'site_path.o') objects.push(obj);
        compiling.add(name);
        step(`compiling ${[...compiling].join(', ')} (${done}/${total} done)`);
        const how = await compileObject(execa, cc, [...cflags, ...compileArgs(src, obj, genDir, [], quick ? quickLevel(src) : '-O2')], src, obj, env);
        if (how === 'cached') fromCache++;
        compiling.delete(name);
        done++;
      }
    };
    await Promise.all([worker(), worker()]);
    step(`linking (without libmpi)${fromCache ? `: ${fromCache} of ${total} objects from the object cache` : ''}`);
    await execa(pr.cc, linkArgs(join(work, 'libmpii.so'), [...objects, join(work, 'site_path.o')]), { env });
    mkdirSync(join(work, 'include'));
    copyFileSync(join(work, 'gen', 'qmpi.h'), join(work, 'include', 'qmpi.h'));
    copyFileSync(join(work, 'gen', 'mpii_gen.h'), join(work, 'include', 'mpii_gen.h'));
    copyFileSync(join(work, 'gen', 'mpii_objects.h'), join(work, 'include', 'mpii_objects.h')); // mpii_gen.h includes it
    copyFileSync(join(PRELOAD_DIR, 'include', 'mpii_tool.h'), join(work, 'include', 'mpii_tool.h'));
    copyFileSync(join(work, 'gen', 'mpii.h'), join(work, 'include', 'mpii.h'));
    writeFileSync(
      join(work, 'shim.json'),
      JSON.stringify({ flavor, mpiVersion, functions: gen.functions.length, key, ...(quick && { quick: quickTag(quick) }) }),
    );
    // --force replaces the cached shim: the old directory is moved aside first (a job running
    // from it keeps its mapped files), then removed
    const old = opts.force && existsSync(final) ? `${work}.old` : undefined;
    if (old) renameSync(final, old);
    try {
      renameSync(work, final);
    } catch (e) {
      if (!existsSync(join(final, 'shim.json'))) throw e; // lost the race to an identical build: fine
      rmSync(work, { recursive: true, force: true });
    }
    if (old) rmSync(old, { recursive: true, force: true });
    if (opts.archive && !quick) await ensureArchive(final, pr, env, step);
    return readShim(final, flavor, false);
  } catch (e) {
    rmSync(work, { recursive: true, force: true });
    if (e instanceof MpiiError) throw e;
    const err = e as { stderr?: string; shortMessage?: string; message: string };
    const detail = (err.stderr || err.shortMessage || err.message).split('\n').find((l) => /error/i.test(l)) ?? err.message.split('\n')[0];
    throw new MpiiError(`building the ${flavorLabel(flavor)} shim failed: ${detail}`, 'run `mpii doctor` to check the MPI installation');
  } finally {
    process.off('exit', dropWork);
  }
}
