// How call sites are named in stripped programs and libraries, both MPIs: a function names an
// address only when the address lies inside it (a static function of a stripped object is
// object+0xoffset, never its exported neighbour's name), and a separate debug file, found by
// build-id or by .gnu_debuglink under MPII_DEBUG_DIR, gives file:line and the function, in the
// terminal report, --json and --html alike.
import { before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execaSync } from 'execa';
import { FLAVORS, ROOT, launcherArgs, mpii, outDir, type Flavor } from './helpers.js';

const SRC = join(ROOT, 'test', 'programs');
const PROGRAM = 'callsite_names';
const LIB = 'libcallsite_lib.so';

/** Line of each `site:<name>` marker in the two sources. */
const markers: Record<string, number> = {};
for (const name of ['callsite_names.c', 'callsite_lib.c']) {
  readFileSync(join(SRC, name), 'utf8')
    .split('\n')
    .forEach((l, i) => {
      const m = /site:([\w-]+) \*\//.exec(l);
      if (m) markers[m[1]] = i + 1;
    });
}

/** nm's start and size of a function in an unstripped object. */
function extent(file: string, name: string): { lo: number; hi: number } {
  const line = execaSync('nm', ['-S', file])
    .stdout.split('\n')
    .find((l) => l.endsWith(` ${name}`) || l.includes(` ${name}.`));
  assert.ok(line, `${name} in ${file}`);
  const [lo, size] = line.split(' ').map((x) => Number.parseInt(x, 16));
  return { lo, hi: lo + size };
}

interface Built {
  stripped: string;
  byBuildId: string;
  byLink: string;
  full: string;
}

/** The program and its library built with -g, stripped copies (build-id and debuglink kept) in
 * `stripped`, their debug files under two debug roots: by build-id, and by debuglink name. */
function build(f: Flavor): Built {
  const top = mkdtempSync(join(tmpdir(), `mpii-callsites-${f}-`));
  const dirs = { full: join(top, 'full'), stripped: join(top, 'stripped'), byBuildId: join(top, 'debug-id'), byLink: join(top, 'debug-link') };
  for (const d of Object.values(dirs)) mkdirSync(d);
  // -fno-toplevel-reorder: the functions in the source's order, each static one after its exported neighbour
  execaSync(`mpicc.${f}`, ['-O2', '-g', '-fno-toplevel-reorder', '-shared', '-fPIC', '-o', join(dirs.full, LIB), join(SRC, 'callsite_lib.c')]);
  execaSync(`mpicc.${f}`, [
    '-O2',
    '-g',
    '-fno-toplevel-reorder',
    '-rdynamic',
    '-o',
    join(dirs.full, PROGRAM),
    join(SRC, 'callsite_names.c'),
    `-L${dirs.full}`,
    '-lcallsite_lib',
    '-Wl,-rpath,$ORIGIN',
  ]);
  for (const obj of [PROGRAM, LIB]) {
    const full = join(dirs.full, obj);
    const debug = `${full}.debug`;
    execaSync('objcopy', ['--only-keep-debug', full, debug]);
    execaSync('objcopy', ['--strip-all', `--add-gnu-debuglink=${debug}`, full, join(dirs.stripped, obj)]);
    const id = /Build ID: ([0-9a-f]+)/.exec(execaSync('readelf', ['-n', full]).stdout)?.[1];
    assert.ok(id, `${obj} has a build-id`);
    mkdirSync(join(dirs.byBuildId, '.build-id', id.slice(0, 2)), { recursive: true });
    copyFileSync(debug, join(dirs.byBuildId, '.build-id', id.slice(0, 2), `${id.slice(2)}.debug`));
    mkdirSync(join(dirs.byLink, dirs.stripped), { recursive: true });
    copyFileSync(debug, join(dirs.byLink, dirs.stripped, `${obj}.debug`));
  }
  return dirs;
}

interface Frame {
  function: string;
  file: string;
  line: number;
  object: string;
  offset: number;
}
interface JsonSite {
  call: string;
  location: string;
  frames: Frame[];
}

for (const f of FLAVORS) {
  describe(`call site names on ${f}`, () => {
    let built: Built;
    let out: string;
    before(async () => {
      built = build(f);
      out = outDir(`${f}-callsites`);
      const r = await mpii(['run', '--tools', 'profile', '--out', out, ...launcherArgs(f, 2), join(built.stripped, PROGRAM)]);
      assert.equal(r.code, 0, r.stderr);
      assert.match(r.stdout, /callsite_names ok/);
    });

    /** The report's sites, with MPII_DEBUG_DIR set to `debugDir` (a root holding no debug file of ours when unset). */
    async function sites(debugDir: string): Promise<{ json: Record<string, JsonSite>; text: string; html: string; problems: string[] }> {
      const env = { MPII_DEBUG_DIR: debugDir };
      const j = await mpii(['report', '--json', '--top', '0', out], env);
      assert.equal(j.code, 0, j.stderr);
      const run = JSON.parse(j.stdout).profile[0];
      const json: Record<string, JsonSite> = {};
      for (const s of run.sites as JsonSite[]) json[s.call] = s;
      const t = await mpii(['report', '--top', '0', out], env);
      assert.equal(t.code, 0, t.stderr);
      const page = join(out, 'sites.html');
      const h = await mpii(['report', '--html', page, '--force', out], env);
      assert.equal(h.code, 0, h.stderr);
      return { json, text: t.stdout, html: readFileSync(page, 'utf8'), problems: run.problems };
    }

    it("stripped, no debug file: a static function's site is object+0xoffset, an exported one's its name", async () => {
      // the binaries lay out as meant: each static function past its exported neighbour's end
      const before = extent(join(built.full, PROGRAM), 'callsite_before');
      const hidden = extent(join(built.full, PROGRAM), 'hidden');
      const after = extent(join(built.full, PROGRAM), 'callsite_after');
      assert.ok(before.hi <= hidden.lo && hidden.hi <= after.lo, `callsite_before ${before.lo}, hidden ${hidden.lo}, callsite_after ${after.lo}`);
      const libBefore = extent(join(built.full, LIB), 'callsite_lib_before');
      assert.ok(libBefore.hi <= extent(join(built.full, LIB), 'lib_hidden').lo, 'callsite_lib_before below lib_hidden');

      const { json, text, html, problems } = await sites(join(built.full, 'nowhere'));
      const site = json.MPI_Allreduce.frames[0];
      assert.equal(site.function, '', `hidden() is not ${site.function}`);
      assert.equal(site.file, '');
      assert.match(json.MPI_Allreduce.location, new RegExp(`^${PROGRAM}\\+0x[0-9a-f]+$`));
      assert.equal(json.MPI_Bcast.frames[0].function, '', `lib_hidden() is not ${json.MPI_Bcast.frames[0].function}`);
      assert.match(json.MPI_Bcast.location, /^libcallsite_lib\.so\+0x[0-9a-f]+$/);
      assert.match(json.MPI_Barrier.location, new RegExp(`^callsite_after \\(${PROGRAM}\\+0x[0-9a-f]+\\)$`));
      for (const page of [text, html]) {
        assert.doesNotMatch(page, /callsite_before|callsite_lib_before/, 'no site named after a neighbour');
        assert.ok(page.includes(json.MPI_Allreduce.location), json.MPI_Allreduce.location);
      }
      assert.match(problems.join('\n'), /no debug information for .*callsite_names.*MPII_DEBUG_DIR/);
    });

    for (const [how, dir] of [
      ['build-id', 'byBuildId'],
      ['.gnu_debuglink', 'byLink'],
    ] as const) {
      it(`stripped, debug files found by ${how} under MPII_DEBUG_DIR: file:line and the function, program and library`, async () => {
        const { json, text, html, problems } = await sites(built[dir]);
        const expect: [string, string, string, number][] = [
          ['MPI_Allreduce', 'hidden', 'callsite_names.c', markers.hidden],
          ['MPI_Barrier', 'callsite_after', 'callsite_names.c', markers.after],
          ['MPI_Bcast', 'lib_hidden', 'callsite_lib.c', markers['lib-hidden']],
        ];
        for (const [call, fn, file, line] of expect) {
          const fr = json[call].frames[0];
          assert.equal(fr.function, fn, call);
          assert.match(fr.file, new RegExp(`${file.replace('.', '\\.')}$`), call);
          assert.equal(fr.line, line, call);
          assert.equal(json[call].location, `${file}:${line} ${fn}`);
          for (const page of [text, html]) assert.ok(page.includes(`${file}:${line} ${fn}`), `${call} in the text and the page`);
        }
        assert.deepEqual(problems, []);
      });
    }
  });
}
