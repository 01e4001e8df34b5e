// The manual page: docs/mpii.1 is what `mpii man` generates from the command definitions
// (regenerate with `npm run man`), and it renders without warnings. Its install is in man.test.ts.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { execa } from 'execa';
import { buildProgram } from '../src/cli/main.js';
import { code, manPage, text } from '../src/cli/man.js';
import { MPII, ROOT, TEST_ENV } from './helpers.js';

const PAGE = join(ROOT, 'docs', 'mpii.1');
const SECTIONS = ['NAME', 'SYNOPSIS', 'DESCRIPTION', 'COMMANDS', 'OPTIONS', 'EXAMPLES', 'ENVIRONMENT', 'EXIT STATUS', 'FILES', 'SEE ALSO'];
// the man(7) macros the page may use, and the roff requests it does
const MACROS = new Set(['TH', 'SH', 'SS', 'TP', 'PP', 'B', 'I', 'BR', 'IR', 'RS', 'RE', 'br', 'nh']);

const has = async (cmd: string) => (await execa('sh', ['-c', `command -v ${cmd}`], { reject: false })).exitCode === 0;

/** Commander's flags as the page writes them: `--top` is `\-\-top`. */
const roffFlag = (f: string) => f.replace(/-/g, '\\-');

describe('mpii man', () => {
  it('docs/mpii.1 is up to date with the command definitions (npm run man regenerates it)', async () => {
    const program = await buildProgram(
      () => {},
      () => '',
    );
    const page = manPage(program);
    assert.equal(readFileSync(PAGE, 'utf8'), page, 'docs/mpii.1 differs from what `mpii man` generates now: run `npm run man` and commit docs/mpii.1');
    const r = await execa('node', [MPII, 'man'], { env: TEST_ENV, reject: false });
    assert.equal(r.exitCode, 0, r.stderr);
    assert.equal(r.stdout + '\n', page);
  });

  it('holds every command, argument and option of the definitions, the examples, the environment and the exit codes', async () => {
    const program = await buildProgram(
      () => {},
      () => '',
    );
    const page = manPage(program);
    const sections = [...page.matchAll(/^\.SH "?([A-Z ]+)"?$/gm)].map((m) => m[1]);
    assert.deepEqual(sections, SECTIONS);
    for (const c of program.commands) {
      assert.match(page, new RegExp(`^\\.SS "\\\\fBmpii ${c.name()}\\\\fR`, 'm'), c.name());
      for (const o of c.options) assert.ok(page.includes(`\\fB${roffFlag(o.long!)}\\fR`), `${c.name()} ${o.long}`);
      for (const a of c.registeredArguments) assert.ok(page.includes(`\\fI${a.name()}\\fR`), `${c.name()} <${a.name()}>`);
    }
    for (const v of ['TOOLS', 'INJ_IGNORE', 'INJ_DEBUG', 'MPII_LAUNCHER', 'NO_COLOR', 'FORCE_COLOR', 'XDG_CACHE_HOME']) {
      assert.match(page, new RegExp(`^\\.B ${v}$`, 'm'), v);
    }
    const exit = page.slice(page.indexOf('.SH EXIT STATUS'), page.indexOf('.SH FILES'));
    for (const c of ['0', '2', '124']) assert.match(exit, new RegExp(`^\\.B ${c}$`, 'm'), c);
    assert.match(exit, /128\+\\fIsignal/);
    assert.match(exit, /job's own exit code/);
    assert.ok(page.includes(`\\fB${code('mpii run --tools monitor,profile -np 16 ./app')}\\fR`), 'an example of mpii run --help');
    assert.ok(page.includes(`\\fB${code('mpii report prof --json > prof.json')}\\fR`), 'an example of mpii report --help');
  });

  it('is plain man(7) roff: known macros only, ASCII, no line a formatter would misread', () => {
    const lines = readFileSync(PAGE, 'utf8').split('\n');
    assert.equal(lines.at(-1), '', 'ends with a newline');
    const body = lines.filter((l) => !l.startsWith('.\\"'));
    assert.match(body[0], /^\.TH MPII 1 "" "mpii [^"]+" "User Commands"$/);
    for (const [i, l] of lines.entries()) {
      assert.match(l, /^[\x20-\x7e]*$/, `line ${i + 1}: only printable ASCII (other characters as \\[uXXXX])`);
      if (l.startsWith('.\\"')) continue;
      if (l.startsWith('.')) assert.ok(MACROS.has(/^\.(\S+)/.exec(l)![1]), `line ${i + 1}: unknown macro: ${l}`);
      assert.ok(!l.startsWith("'"), `line ${i + 1} starts with a control character: ${l}`);
      assert.equal(l, l.trimEnd(), `line ${i + 1}: trailing blanks`);
      // every backslash starts an escape the page means: \- \e \fB \fI \fR \fP \& \(em \(dq \[uXXXX] \"
      const bad = l.replace(/\\(-|e|&|f[BIRP]|\(\w\w|\[u[0-9A-F]{4,5}\]|")/g, '').includes('\\');
      assert.ok(!bad, `line ${i + 1}: a stray backslash: ${l}`);
      const fonts = [...l.matchAll(/\\f([BIRP])/g)].map((m) => m[1]);
      if (fonts.length) assert.ok(['R', 'P'].includes(fonts.at(-1)!), `line ${i + 1}: a font left on: ${l}`);
    }
  });

  it('escapes what roff would misread', () => {
    assert.equal(text('.hidden'), '\\&.hidden');
    assert.equal(text('see --out DIR and -np, not call-site'), 'see \\-\\-out DIR and \\-np, not call-site');
    assert.equal(code('a\\b-c…'), 'a\\eb\\-c\\[u2026]');
  });

  it('renders without warnings (groff and man)', async () => {
    const groff = await has('groff');
    const man = await has('man');
    assert.ok(groff && man, 'groff and man are installed by scripts/setup.sh (groff-base, man-db)');
    if (groff) {
      const r = await execa('groff', ['-man', '-Tutf8', '-ww', '-z', PAGE], { reject: false });
      assert.equal(r.exitCode, 0, r.stderr);
      assert.equal(r.stderr, '', 'groff -ww warns');
    }
    if (man) {
      const r = await execa('man', ['--warnings', '-l', PAGE], {
        env: { ...TEST_ENV, MANPAGER: 'cat', PAGER: 'cat', MANWIDTH: '80', MAN_KEEP_FORMATTING: '' },
        reject: false,
      });
      assert.equal(r.exitCode, 0, r.stderr);
      assert.equal(r.stderr, '', 'man --warnings -l warns');
      for (const s of SECTIONS) assert.match(r.stdout, new RegExp(`^${s}$`, 'm'), s);
      assert.match(r.stdout, /^ {7}mpii report \[options\] dir \[dir2\]$/m);
      // eslint-disable-next-line no-control-regex -- man's overstrike (char, backspace, char) is what this strips
      const wide = r.stdout.split('\n').filter((l) => l.replace(/.\x08/g, '').length > 80);
      assert.deepEqual(wide, [], 'lines wider than MANWIDTH');
    }
  });
});
