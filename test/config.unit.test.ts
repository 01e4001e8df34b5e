import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { MpiiError, formatError } from '../src/errors.js';
import { loadConfigFile } from '../src/config/load.js';
import { coerceOption } from '../src/config/options.js';
import { closest } from '../src/config/yaml-file.js';
import { builtinManifests } from '../src/tools/manifest.js';
import { displayPath, listStacks, listTools, parseToolsArg, resolveStack } from '../src/config/resolve.js';
import type { ResolveRequest } from '../src/config/resolve.js';

// dist/test/config.test.js → <repo>/config/tools.yaml
const SHIPPED_DEFAULTS = fileURLToPath(new URL('../../config/tools.yaml', import.meta.url));

const roots: string[] = [];
after(() => {
  for (const r of roots) fs.rmSync(r, { recursive: true, force: true });
});

/** A fresh, isolated set of directories: project cwd, $HOME, $XDG_CONFIG_HOME, /etc stand-in. */
function sandbox() {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'mpii-config-test-'));
  roots.push(root);
  const cwd = path.join(root, 'proj');
  const home = path.join(root, 'home');
  const xdg = path.join(root, 'xdg');
  const etc = path.join(root, 'etc');
  for (const d of [cwd, home, xdg, etc]) fs.mkdirSync(d, { recursive: true });
  const write = (file: string, text: string): string => {
    const abs = path.isAbsolute(file) ? file : path.join(root, file);
    fs.mkdirSync(path.dirname(abs), { recursive: true });
    fs.writeFileSync(abs, text);
    return abs;
  };
  return {
    root,
    cwd,
    home,
    xdg,
    etc,
    write,
    /** write <cwd>/mpii.yaml */
    project: (text: string) => write(path.join(cwd, 'mpii.yaml'), text),
    xdgFile: path.join(xdg, 'mpii', 'config.yaml'),
    etcFile: path.join(etc, 'config.yaml'),
    req(extra: Partial<ResolveRequest> = {}, env: NodeJS.ProcessEnv = {}): ResolveRequest {
      return {
        env: { HOME: home, XDG_CONFIG_HOME: xdg, ...env },
        cwd,
        defaultsFile: SHIPPED_DEFAULTS,
        systemConfigFile: path.join(etc, 'config.yaml'),
        ...extra,
      };
    },
  };
}

/** Assert fn throws an MpiiError whose message matches every regex in msg (and fix matches fix). */
function throwsMpii(fn: () => unknown, msg: RegExp | RegExp[], fix?: RegExp | RegExp[]): MpiiError {
  let caught: unknown;
  try {
    fn();
  } catch (e) {
    caught = e;
  }
  assert.ok(caught instanceof MpiiError, `expected an MpiiError, got ${String(caught)}`);
  for (const re of [msg].flat()) assert.match(caught.message, re);
  if (fix) {
    assert.ok(caught.fix, `expected a fix for: ${caught.message}`);
    for (const re of [fix].flat()) assert.match(caught.fix, re);
  }
  assert.ok(!caught.message.includes('\n'), `message must be one line: ${caught.message}`);
  assert.ok(!formatError(caught).includes('\n'), 'formatted error must be one line');
  return caught;
}

const names = (r: { tools: { name: string }[] }) => r.tools.map((t) => t.name);

// A defaults file with five built-ins a..e, used for the precedence tests.
const FIVE_BUILTINS = `
tools:
  a: { builtin: true }
  b: { builtin: true }
  c: { builtin: true }
  d: { builtin: true }
  e: { builtin: true }
stacks:
  p: [a]
  q: [a]
default-stack: p
`;

describe('errors', () => {
  it('formatError gives one line with the fix', () => {
    assert.equal(formatError(new MpiiError('boom', 'do this')), 'mpii: boom — do this');
    assert.equal(formatError(new MpiiError('boom')), 'mpii: boom');
    const e = new MpiiError('x');
    assert.equal(e.exitCode, 2);
    assert.equal(new MpiiError('x', undefined, 3).exitCode, 3);
    assert.ok(e instanceof Error);
  });
});

describe('shipped defaults (config/tools.yaml)', () => {
  it('loads and has the stacks none, count, …, default none; the tools come from their folders', () => {
    const f = loadConfigFile(SHIPPED_DEFAULTS, { builtinAllowed: true });
    assert.deepEqual([...f.tools.keys()], []); // each built-in tool is declared by its preload/tools/<name>/tool.yaml
    assert.deepEqual([...f.stacks.keys()], ['none', 'count', 'profile', 'monitor', 'overlap', 'memcheck']);
    assert.equal(f.defaultStack?.name, 'none');
    const tools = builtinManifests();
    assert.deepEqual(
      tools.map((t) => t.name),
      ['noop', 'trace-count', 'profile', 'monitor', 'overlap', 'memcheck'],
    );
    assert.deepEqual(tools.find((t) => t.name === 'trace-count')?.options.top, {
      type: 'int',
      default: 15,
      min: 1,
      description: 'rows printed by mpii run',
    });
  });

  it('with nothing set uses default-stack none: an empty stack', () => {
    const s = sandbox();
    const r = resolveStack(s.req());
    assert.deepEqual(r.tools, []);
    assert.match(r.source, /^default-stack none \(from .*config[/\\]tools\.yaml\)$/);
  });

  it('--stack count gives trace-count with its default option', () => {
    const s = sandbox();
    const r = resolveStack(s.req({ stack: 'count' }));
    assert.deepEqual(r.tools, [{ name: 'trace-count', kind: 'builtin', options: { top: 15 } }]);
    assert.match(r.source, /^--stack count \(from .*tools\.yaml\)$/);
  });
});

describe('precedence', () => {
  it('--tools beats TOOLS beats --stack beats default-stack', () => {
    const s = sandbox();
    s.project('stacks:\n  mine: [noop]\n');
    const env = { TOOLS: 'trace-count' };
    let r = resolveStack(s.req({ tools: 'noop,noop', stack: 'mine' }, env));
    assert.deepEqual(names(r), ['noop', 'noop']);
    assert.equal(r.source, '--tools');

    r = resolveStack(s.req({ stack: 'mine' }, env));
    assert.deepEqual(names(r), ['trace-count']);
    assert.equal(r.source, 'TOOLS');

    r = resolveStack(s.req({ stack: 'mine' }));
    assert.deepEqual(names(r), ['noop']);
    assert.equal(r.source, `--stack mine (from .${path.sep}mpii.yaml)`);

    r = resolveStack(s.req());
    assert.deepEqual(names(r), []);
    assert.match(r.source, /^default-stack none/);
  });

  it('an empty or blank TOOLS counts as unset', () => {
    const s = sandbox();
    for (const v of ['', '  ', ':']) {
      const r = resolveStack(s.req({ stack: 'count' }, { TOOLS: v }));
      assert.deepEqual(names(r), ['trace-count'], `TOOLS=${JSON.stringify(v)}`);
    }
  });

  it("--tools '' explicitly selects an empty stack, even over TOOLS", () => {
    const s = sandbox();
    const r = resolveStack(s.req({ tools: '' }, { TOOLS: 'noop' }));
    assert.deepEqual(r.tools, []);
    assert.equal(r.source, '--tools');
  });

  it('config files: defaults < /etc < XDG < ./mpii.yaml < --config (stack by name)', () => {
    const s = sandbox();
    const defaults = s.write('defaults.yaml', FIVE_BUILTINS);
    s.write(s.etcFile, 'stacks:\n  p: [b]\n');
    s.write(s.xdgFile, 'stacks:\n  p: [c]\n');
    s.project('stacks:\n  p: [d]\n');
    const user = s.write('user.yaml', 'stacks:\n  p: [e]\n');
    const req = (extra: Partial<ResolveRequest> = {}) => s.req({ defaultsFile: defaults, stack: 'p', ...extra });

    let r = resolveStack(req({ configFile: user }));
    assert.deepEqual(names(r), ['e']);
    assert.equal(r.source, `--stack p (from ${user})`);

    r = resolveStack(req());
    assert.deepEqual(names(r), ['d']);
    assert.equal(r.source, `--stack p (from .${path.sep}mpii.yaml)`);

    fs.rmSync(path.join(s.cwd, 'mpii.yaml'));
    r = resolveStack(req());
    assert.deepEqual(names(r), ['c']);
    assert.equal(r.source, `--stack p (from ${s.xdgFile})`);

    fs.rmSync(s.xdgFile);
    r = resolveStack(req());
    assert.deepEqual(names(r), ['b']);
    assert.equal(r.source, `--stack p (from ${s.etcFile})`);

    fs.rmSync(s.etcFile);
    r = resolveStack(req());
    assert.deepEqual(names(r), ['a']);
    assert.equal(r.source, `--stack p (from ${defaults})`);
  });

  it('config files: default-stack is overridden level by level too', () => {
    const s = sandbox();
    const defaults = s.write('defaults.yaml', FIVE_BUILTINS);
    s.write(s.etcFile, 'stacks:\n  sb: [b]\ndefault-stack: sb\n');
    s.write(s.xdgFile, 'stacks:\n  sc: [c]\ndefault-stack: sc\n');
    s.project('stacks:\n  sd: [d]\ndefault-stack: sd\n');
    const user = s.write('user.yaml', 'stacks:\n  se: [e]\ndefault-stack: se\n');
    const req = (extra: Partial<ResolveRequest> = {}) => s.req({ defaultsFile: defaults, ...extra });

    assert.deepEqual(names(resolveStack(req({ configFile: user }))), ['e']);
    assert.equal(resolveStack(req({ configFile: user })).source, `default-stack se (from ${user})`);
    assert.deepEqual(names(resolveStack(req())), ['d']);
    fs.rmSync(path.join(s.cwd, 'mpii.yaml'));
    assert.deepEqual(names(resolveStack(req())), ['c']);
    fs.rmSync(s.xdgFile);
    assert.deepEqual(names(resolveStack(req())), ['b']);
    fs.rmSync(s.etcFile);
    assert.deepEqual(names(resolveStack(req())), ['a']);
  });

  it('XDG_CONFIG_HOME defaults to ~/.config', () => {
    const s = sandbox();
    s.write(path.join(s.home, '.config', 'mpii', 'config.yaml'), 'default-stack: count\n');
    const r = resolveStack({ ...s.req(), env: { HOME: s.home } });
    assert.deepEqual(names(r), ['trace-count']);
    assert.equal(
      r.source,
      `default-stack count (from ~${path.sep}.config${path.sep}mpii${path.sep}config.yaml; stack defined in ${displayPath(SHIPPED_DEFAULTS, s.cwd, s.home)})`,
    );
    // and an explicit XDG_CONFIG_HOME hides ~/.config
    assert.deepEqual(names(resolveStack(s.req())), []);
  });
});

describe('merging', () => {
  it('tools and stacks from all files are merged by name, later file wins', () => {
    const s = sandbox();
    s.write(path.join(s.etc, 'libsys.so'), '');
    s.write(s.etcFile, 'tools:\n  sys: { path: ./libsys.so }\nstacks:\n  both: [sys, noop]\n');
    s.write(path.join(s.xdg, 'mpii', 'libmine.so'), '');
    s.write(s.xdgFile, 'tools:\n  mine: { path: libmine.so, description: my tool }\n');
    // the project file redefines the built-in noop as an external tool and uses tools from other files
    s.write(path.join(s.cwd, 'tools', 'libnoop2.so'), '');
    s.project('tools:\n  noop:\n    path: tools/libnoop2.so\nstacks:\n  all: [mine, sys, noop, trace-count]\n');

    const r = resolveStack(s.req({ stack: 'all' }));
    assert.deepEqual(r.tools, [
      { name: 'mine', kind: 'external', path: path.join(s.xdg, 'mpii', 'libmine.so'), options: {} },
      { name: 'sys', kind: 'external', path: path.join(s.etc, 'libsys.so'), options: {} },
      { name: 'noop', kind: 'external', path: path.join(s.cwd, 'tools', 'libnoop2.so'), options: {} },
      { name: 'trace-count', kind: 'builtin', options: { top: 15 } },
    ]);
    // a stack from /etc still resolves names against the merged tools
    assert.deepEqual(
      resolveStack(s.req({ stack: 'both' })).tools.map((t) => t.kind),
      ['external', 'external'],
    );
    // stacks from the defaults survive
    assert.deepEqual(names(resolveStack(s.req({ stack: 'count' }))), ['trace-count']);
  });

  it('a later file can change a tool option schema (and so the defaults)', () => {
    const s = sandbox();
    s.write(path.join(s.cwd, 'libtc.so'), '');
    s.project(
      'tools:\n  trace-count:\n    path: ./libtc.so\n    options:\n      top: { type: int, default: 3 }\n      mode: { type: enum, values: [a, b], default: b }\n',
    );
    const r = resolveStack(s.req({ tools: 'trace-count[mode=a]' }));
    assert.deepEqual(r.tools, [{ name: 'trace-count', kind: 'external', path: path.join(s.cwd, 'libtc.so'), options: { top: 3, mode: 'a' } }]);
  });

  it('--config file must exist', () => {
    const s = sandbox();
    throwsMpii(() => resolveStack(s.req({ configFile: 'nope.yaml' })), /^--config: file not found: \.[/\\]nope\.yaml$/, /--config/);
  });

  it('missing defaults file is an error', () => {
    const s = sandbox();
    throwsMpii(() => resolveStack(s.req({ defaultsFile: path.join(s.root, 'gone.yaml') })), /defaults file not found.*gone\.yaml/);
  });

  it('an empty config file is fine', () => {
    const s = sandbox();
    s.project('');
    s.write(s.xdgFile, '# only a comment\n');
    assert.deepEqual(resolveStack(s.req({ stack: 'count' })).tools.length, 1);
  });
});

describe('stack entries and options', () => {
  it('YAML stack entries with options, defaults filled in', () => {
    const s = sandbox();
    s.project('stacks:\n  s:\n    - { trace-count: { top: 5 } }\n    - trace-count\n    - trace-count:\n        top: 7\n    - noop:\n');
    const r = resolveStack(s.req({ stack: 's' }));
    assert.deepEqual(r.tools, [
      { name: 'trace-count', kind: 'builtin', options: { top: 5 } },
      { name: 'trace-count', kind: 'builtin', options: { top: 15 } },
      { name: 'trace-count', kind: 'builtin', options: { top: 7 } },
      { name: 'noop', kind: 'builtin', options: {} },
    ]);
  });

  it('--tools options are parsed and typed by the schema', () => {
    const s = sandbox();
    s.write(path.join(s.cwd, 'libt.so'), '');
    s.project(
      [
        'tools:',
        '  t:',
        '    path: libt.so',
        '    options:',
        '      n: { type: int, min: -3, max: 3 }',
        '      f: { type: number, default: 0.5 }',
        '      b: { type: bool, default: false }',
        '      s: { type: string }',
        '      e: { type: enum, values: [x, y, z], default: x }',
        '',
      ].join('\n'),
    );
    const r = resolveStack(s.req({ tools: 't[n=-3;f=1e3;b=yes;s=hello world;e=z], t, t[n=3,b=0]' }));
    assert.deepEqual(
      r.tools.map((t) => t.options),
      [
        { n: -3, f: 1000, b: true, s: 'hello world', e: 'z' },
        { f: 0.5, b: false, e: 'x' },
        { n: 3, f: 0.5, b: false, e: 'x' },
      ],
    );
  });

  it('a tool listed twice stays twice', () => {
    const s = sandbox();
    const r = resolveStack(s.req({ tools: 'trace-count,trace-count[top=2],noop,noop' }));
    assert.deepEqual(
      r.tools.map((t) => [t.name, t.options]),
      [
        ['trace-count', { top: 15 }],
        ['trace-count', { top: 2 }],
        ['noop', {}],
        ['noop', {}],
      ],
    );
    s.project('stacks:\n  twice: [noop, noop]\n');
    assert.deepEqual(names(resolveStack(s.req({ stack: 'twice' }))), ['noop', 'noop']);
    assert.deepEqual(names(resolveStack(s.req({}, { TOOLS: 'noop:noop' }))), ['noop', 'noop']);
  });

  it('empty stacks are valid', () => {
    const s = sandbox();
    s.project('stacks:\n  empty: []\ndefault-stack: empty\n');
    const r = resolveStack(s.req());
    assert.deepEqual(r.tools, []);
    assert.equal(r.source, `default-stack empty (from .${path.sep}mpii.yaml)`);
    assert.deepEqual(resolveStack(s.req({ stack: 'none' })).tools, []);
  });

  it('parseToolsArg splits on top-level commas only', () => {
    const e = parseToolsArg(' a , b[x=1,y=2] ,c[] ', '/cwd');
    assert.deepEqual(
      e.map((x) => [x.ref, x.options.map((o) => `${o.key}=${String(o.value)}`)]),
      [
        ['a', []],
        ['b', ['x=1', 'y=2']],
        ['c', []],
      ],
    );
  });
});

describe('external tools by path', () => {
  it('--tools ./x.so, x.so (relative to cwd) and absolute paths', () => {
    const s = sandbox();
    const so = s.write(path.join(s.cwd, 'x.so'), '');
    for (const spec of ['./x.so', 'x.so', so]) {
      const r = resolveStack(s.req({ tools: spec }));
      assert.deepEqual(r.tools, [{ name: 'x.so', kind: 'external', path: so, options: {} }], spec);
    }
  });

  it('.so paths accept any key=value options as strings', () => {
    const s = sandbox();
    const so = s.write(path.join(s.cwd, 'x.so'), '');
    const r = resolveStack(s.req({ tools: './x.so[a=1;b=true;c=hi]' }));
    assert.deepEqual(r.tools, [{ name: 'x.so', kind: 'external', path: so, options: { a: '1', b: 'true', c: 'hi' } }]);
    s.project('stacks:\n  s:\n    - ./x.so: { a: 1, b: true }\n');
    assert.deepEqual(resolveStack(s.req({ stack: 's' })).tools[0].options, { a: '1', b: 'true' });
  });

  it('TOOLS: colon-separated names and .so paths', () => {
    const s = sandbox();
    const so = s.write(path.join(s.cwd, 'lib', 'libq.so'), '');
    const r = resolveStack(s.req({}, { TOOLS: `lib/libq.so:noop:${so}` }));
    assert.deepEqual(r.tools, [
      { name: 'libq.so', kind: 'external', path: so, options: {} },
      { name: 'noop', kind: 'builtin', options: {} },
      { name: 'libq.so', kind: 'external', path: so, options: {} },
    ]);
    assert.equal(r.source, 'TOOLS');
  });

  it('paths in YAML resolve against the YAML file directory, not cwd', () => {
    const s = sandbox();
    const so = s.write(path.join(s.xdg, 'mpii', 'x.so'), '');
    s.write(s.xdgFile, 'stacks:\n  s: [./x.so, x.so]\n');
    const r = resolveStack(s.req({ stack: 's' }));
    assert.deepEqual(
      r.tools.map((t) => t.path),
      [so, so],
    );
  });

  it('declared external tool without schema accepts any option as strings', () => {
    const s = sandbox();
    const so = s.write(path.join(s.home, 'libfree.so'), '');
    s.project('tools:\n  free: { path: ~/libfree.so }\n');
    const r = resolveStack(s.req({ tools: 'free[k=v;n=3]' }));
    assert.deepEqual(r.tools, [{ name: 'free', kind: 'external', path: so, options: { k: 'v', n: '3' } }]);
  });
});

describe('YAML errors name file:line and a fix', () => {
  it('YAML syntax error', () => {
    const s = sandbox();
    s.project('stacks:\n  s: [noop\ndefault-stack: s\n');
    const e = throwsMpii(() => resolveStack(s.req()), /^\.[/\\]mpii\.yaml:\d+: YAML syntax error: \S/);
    assert.equal(e.fix, 'fix the YAML syntax');
    s.project('stacks:\n  s: []\n  s: [noop]\n');
    throwsMpii(() => resolveStack(s.req()), /^\.[/\\]mpii\.yaml:3: YAML syntax error: Map keys must be unique$/, /fix the YAML syntax/);
    s.project('tools:\n  a: "unterminated\n');
    throwsMpii(() => resolveStack(s.req()), /mpii\.yaml:\d+: YAML syntax error/);
  });

  it('unknown top-level key, with suggestion', () => {
    const s = sandbox();
    s.project('# comment\nstacks: {}\ntoolz:\n  x: { path: x.so }\n');
    throwsMpii(() => resolveStack(s.req()), /^\.[/\\]mpii\.yaml:3: unknown key 'toolz' at the top level$/, [/did you mean 'tools'/, /default-stack/]);
  });

  it('top level must be a mapping', () => {
    const s = sandbox();
    s.project('- noop\n');
    throwsMpii(() => resolveStack(s.req()), /mpii\.yaml:1: the top level must be a mapping/, /tools, stacks, default-stack/);
  });

  it('builtin: true outside the defaults file', () => {
    const s = sandbox();
    s.write(s.xdgFile, 'tools:\n  mine:\n    builtin: true\n');
    throwsMpii(
      () => resolveStack(s.req()),
      [/xdg[/\\]mpii[/\\]config\.yaml:3: /, /`builtin: true` \(tool 'mine'\) is only allowed in mpii's own defaults file/],
      /path: /,
    );
  });

  it('tool with neither builtin nor path, or both', () => {
    const s = sandbox();
    s.project('tools:\n  foo:\n    description: hi\n');
    throwsMpii(() => resolveStack(s.req()), /^\.[/\\]mpii\.yaml:2: tool 'foo' has neither `path` nor `builtin: true`$/, /path: \/path\/to\/libfoo\.so/);
    s.project('tools:\n  foo:\n');
    throwsMpii(() => resolveStack(s.req()), /mpii\.yaml:2: tool 'foo' has neither/);
    const d = s.write('d.yaml', 'tools:\n  foo:\n    builtin: true\n    path: x.so\n');
    throwsMpii(() => resolveStack(s.req({ defaultsFile: d })), /d\.yaml:4: tool 'foo' has both/);
  });

  it('unknown key in a tool', () => {
    const s = sandbox();
    s.project('tools:\n  foo:\n    path: x.so\n    descripton: typo\n');
    throwsMpii(() => resolveStack(s.req()), /mpii\.yaml:4: unknown key 'descripton' in tool 'foo'/, /did you mean 'description'/);
  });

  it('stacks values must be lists', () => {
    const s = sandbox();
    s.project('stacks:\n  ok: []\n  bad: trace-count\n');
    throwsMpii(() => resolveStack(s.req()), /^\.[/\\]mpii\.yaml:3: stack 'bad' must be a list$/, /bad: \[tool1, tool2\]/);
    s.project('stacks:\n  bad:\n');
    throwsMpii(() => resolveStack(s.req()), /mpii\.yaml:2: stack 'bad' must be a list/, /bad: \[\]/);
  });

  it('malformed stack entry', () => {
    const s = sandbox();
    s.project('stacks:\n  s:\n    - noop\n    - { a: 1, b: 2 }\n');
    throwsMpii(() => resolveStack(s.req()), /mpii\.yaml:4: entry of stack 's'/, /tool name/);
    s.project('stacks:\n  s:\n    - trace-count: 5\n');
    throwsMpii(() => resolveStack(s.req()), /mpii\.yaml:3: options of 'trace-count' in stack 's' must be a mapping/);
  });

  it('default-stack must name an existing stack', () => {
    const s = sandbox();
    s.project('stacks:\n  mine: [noop]\n\ndefault-stack: mien\n');
    throwsMpii(() => resolveStack(s.req()), /^\.[/\\]mpii\.yaml:4: default-stack 'mien' is not a defined stack$/, [
      /did you mean 'mine'/,
      /none, count, profile, monitor, overlap, memcheck, mine/,
    ]);
  });

  it('option schema errors in a tool declaration', () => {
    const s = sandbox();
    s.project('tools:\n  t:\n    path: x.so\n    options:\n      n: { type: integer }\n');
    throwsMpii(() => resolveStack(s.req()), /mpii\.yaml:5: unknown option type 'integer'/, /int, number, bool, string, enum/);
    s.project('tools:\n  t:\n    path: x.so\n    options:\n      n: { type: int, min: 1,\n           default: 0 }\n');
    throwsMpii(() => resolveStack(s.req()), /mpii\.yaml:6: default of option 'n' of tool 't' must be ≥ 1, got 0/);
    s.project('tools:\n  t:\n    path: x.so\n    options:\n      e: { type: enum }\n');
    throwsMpii(() => resolveStack(s.req()), /mpii\.yaml:5: enum option 'e' of tool 't' has no `values`/);
    s.project('tools:\n  t:\n    path: x.so\n    options:\n      e: { default: 3 }\n');
    throwsMpii(() => resolveStack(s.req()), /mpii\.yaml:5: option 'e' of tool 't' has no `type`/);
  });

  it('errors in a --config file name that file', () => {
    const s = sandbox();
    const f = s.write('conf/my.yaml', 'stacks:\n  s: [noop]\nbogus: 1\n');
    throwsMpii(() => resolveStack(s.req({ configFile: f })), new RegExp(`^${f.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}:3: unknown key 'bogus'`));
  });
});

describe('stack validation errors', () => {
  it('unknown tool in --tools suggests the closest name and lists known tools', () => {
    const s = sandbox();
    throwsMpii(() => resolveStack(s.req({ tools: 'noop,trce-count' })), /^--tools: unknown tool 'trce-count'$/, [
      /did you mean 'trace-count'\?/,
      /known tools: noop, trace-count/,
    ]);
    const e = throwsMpii(() => resolveStack(s.req({ tools: 'zzzzzzzzz' })), /unknown tool 'zzzzzzzzz'/, /known tools: noop, trace-count/);
    assert.doesNotMatch(e.fix ?? '', /did you mean/);
  });

  it('unknown tool in TOOLS', () => {
    const s = sandbox();
    throwsMpii(() => resolveStack(s.req({}, { TOOLS: 'noop:nop' })), /^TOOLS: unknown tool 'nop'$/, /did you mean 'noop'/);
  });

  it('unknown tool in a YAML stack names file:line of the entry', () => {
    const s = sandbox();
    s.project('stacks:\n  s:\n    - noop\n    - tracecount\n');
    throwsMpii(() => resolveStack(s.req({ stack: 's' })), /^\.[/\\]mpii\.yaml:4: unknown tool 'tracecount'$/, /did you mean 'trace-count'/);
    // the same broken stack also breaks the default when chosen as default-stack
    s.project('stacks:\n  s:\n    - noop\n    - tracecount\ndefault-stack: s\n');
    throwsMpii(() => resolveStack(s.req()), /mpii\.yaml:4: unknown tool 'tracecount'/);
    // …but is not checked when another stack is selected
    assert.deepEqual(names(resolveStack(s.req({ stack: 'count' }))), ['trace-count']);
  });

  it('.so path that does not exist or is not a file', () => {
    const s = sandbox();
    throwsMpii(
      () => resolveStack(s.req({ tools: './missing.so' })),
      /^--tools: tool library '\.\/missing\.so' not found \(looked for .*missing\.so\)$/,
      /current directory/,
    );
    throwsMpii(() => resolveStack(s.req({}, { TOOLS: 'gone.so' })), /^TOOLS: tool library 'gone\.so' not found/);
    fs.mkdirSync(path.join(s.cwd, 'dir.so'));
    throwsMpii(() => resolveStack(s.req({ tools: 'dir.so' })), /--tools: tool library 'dir\.so' is not a file .*is a directory/);
    s.project('stacks:\n  s:\n\n    - ../nowhere/libx.so\n');
    throwsMpii(
      () => resolveStack(s.req({ stack: 's' })),
      /^\.[/\\]mpii\.yaml:4: tool library '\.\.\/nowhere\/libx\.so' not found/,
      /directory of the YAML file/,
    );
  });

  it('declared external tool whose .so is missing', () => {
    const s = sandbox();
    s.project('tools:\n  ext:\n    path: build/libext.so\nstacks:\n  s: [noop, ext]\n');
    throwsMpii(
      () => resolveStack(s.req({ stack: 's' })),
      /^\.[/\\]mpii\.yaml:5: tool library '.*build[/\\]libext\.so' not found/,
      /declared at \.[/\\]mpii\.yaml:2/,
    );
    throwsMpii(() => resolveStack(s.req({ tools: 'ext' })), /^--tools: tool library .*libext\.so' not found/);
  });

  it('unknown stack', () => {
    const s = sandbox();
    throwsMpii(() => resolveStack(s.req({ stack: 'cont' })), /^--stack: unknown stack 'cont'$/, [/did you mean 'count'/, /known stacks: none, count/]);
  });

  it('unknown option for a tool with a schema', () => {
    const s = sandbox();
    throwsMpii(() => resolveStack(s.req({ tools: 'trace-count[tpo=3]' })), /^--tools: unknown option 'tpo' for tool 'trace-count'$/, [
      /did you mean 'top'/,
      /int ≥ 1, default 15/,
    ]);
    throwsMpii(() => resolveStack(s.req({ tools: 'noop[x=1]' })), /--tools: unknown option 'x' for tool 'noop'/, /takes no options/);
    s.project('stacks:\n  s:\n    - trace-count:\n        top: 3\n        rows: 4\n');
    throwsMpii(() => resolveStack(s.req({ stack: 's' })), /^\.[/\\]mpii\.yaml:5: unknown option 'rows' for tool 'trace-count'$/);
  });

  it('bad option values: wrong type, out of range, not in enum', () => {
    const s = sandbox();
    s.write(path.join(s.cwd, 'libt.so'), '');
    s.project(
      [
        'tools:',
        '  t:',
        '    path: libt.so',
        '    options:',
        '      n: { type: int, min: 1, max: 10 }',
        '      f: { type: number }',
        '      b: { type: bool }',
        '      e: { type: enum, values: [fast, slow] }',
        'stacks:',
        '  s:',
        '    - t: { n: 4 }',
        '    - t: { n: 2.5 }',
        '',
      ].join('\n'),
    );
    throwsMpii(
      () => resolveStack(s.req({ tools: 'trace-count[top=abc]' })),
      /^--tools: bad value for option 'top' of tool 'trace-count': expected an integer, got 'abc'$/,
      /int ≥ 1/,
    );
    throwsMpii(() => resolveStack(s.req({ tools: 'trace-count[top=0]' })), /option 'top' of tool 'trace-count': must be ≥ 1, got 0/);
    throwsMpii(() => resolveStack(s.req({ tools: 't[n=11]' })), /option 'n' of tool 't': must be ≤ 10, got 11/, /int in \[1, 10\]/);
    throwsMpii(() => resolveStack(s.req({ tools: 't[f=1x]' })), /option 'f' of tool 't': expected a number, got '1x'/);
    throwsMpii(() => resolveStack(s.req({ tools: 't[b=maybe]' })), /option 'b' of tool 't': expected true or false, got 'maybe'/);
    throwsMpii(() => resolveStack(s.req({ tools: 't[e=medium]' })), /option 'e' of tool 't': must be one of fast, slow; got 'medium'/, /one of fast\|slow/);
    throwsMpii(() => resolveStack(s.req({ stack: 's' })), /^\.[/\\]mpii\.yaml:12: bad value for option 'n' of tool 't': expected an integer, got 2\.5$/);
  });

  it('--tools and TOOLS syntax errors', () => {
    const s = sandbox();
    throwsMpii(() => resolveStack(s.req({ tools: 'noop,,noop' })), /^--tools: empty entry in 'noop,,noop'$/, /--tools/);
    throwsMpii(() => resolveStack(s.req({ tools: 'trace-count[top=3' })), /^--tools: cannot parse 'trace-count\[top=3'/);
    throwsMpii(() => resolveStack(s.req({ tools: 'trace-count[top]' })), /^--tools: option 'top' of 'trace-count' is not key=value$/);
    throwsMpii(() => resolveStack(s.req({ tools: 'trace-count[top=1;top=2]' })), /option 'top' of 'trace-count' is given twice/);
    throwsMpii(() => resolveStack(s.req({}, { TOOLS: 'trace-count[top=3]' })), /^TOOLS: options are not supported/, /--tools 'trace-count\[top=3\]'/);
  });
});

describe('listTools / listStacks', () => {
  it('lists every tool with kind, description, path, options and origin', () => {
    const s = sandbox();
    const so = s.write(path.join(s.cwd, 'libext.so'), '');
    s.project('tools:\n  ext:\n    path: ./libext.so\n    description: an external\n  gone:\n    path: /nonexistent/libgone.so\n');
    const tools = listTools(s.req());
    assert.deepEqual(
      tools.map((t) => [t.name, t.kind]),
      [
        ['noop', 'builtin'],
        ['trace-count', 'builtin'],
        ['profile', 'builtin'],
        ['monitor', 'builtin'],
        ['overlap', 'builtin'],
        ['memcheck', 'builtin'],
        ['ext', 'external'],
        ['gone', 'external'],
      ],
    );
    const tc = tools[1];
    assert.equal(tc.description, 'Counts calls per MPI function per rank');
    assert.equal(tc.path, undefined);
    assert.match(tc.definedIn, /trace-count[/\\]tool\.yaml:\d+$/);
    assert.equal(tc.options?.[0].name, 'top');
    assert.equal(tc.options?.[0].summary, 'int ≥ 1, default 15');
    assert.deepEqual(tools[0].options, []);
    const ext = tools.find((t) => t.name === 'ext')!,
      gone = tools.find((t) => t.name === 'gone')!;
    assert.equal(ext.path, so);
    assert.equal(ext.pathExists, true);
    assert.equal(ext.description, 'an external');
    assert.equal(ext.definedIn, `.${path.sep}mpii.yaml:2`);
    assert.equal(ext.options, undefined);
    assert.equal(gone.pathExists, false);
  });

  it('lists every stack with entries, origin, default flag and problems', () => {
    const s = sandbox();
    s.project('stacks:\n  mine:\n    - { trace-count: { top: 5 } }\n    - noop\n  broken: [nope]\ndefault-stack: mine\n');
    const stacks = listStacks(s.req());
    assert.deepEqual(
      stacks.map((x) => [x.name, x.entries, x.isDefault]),
      [
        ['none', [], false],
        ['count', ['trace-count'], false],
        ['profile', ['profile'], false],
        ['monitor', ['monitor'], false],
        ['overlap', ['overlap'], false],
        ['memcheck', ['memcheck'], false],
        ['mine', ['trace-count[top=5]', 'noop'], true],
        ['broken', ['nope'], false],
      ],
    );
    const mine = stacks.find((x) => x.name === 'mine')!,
      broken = stacks.find((x) => x.name === 'broken')!;
    assert.equal(mine.definedIn, `.${path.sep}mpii.yaml:2`);
    assert.equal(mine.problem, undefined);
    assert.match(broken.problem ?? '', /mpii\.yaml:5: unknown tool 'nope'/);
  });
});

describe('helpers', () => {
  it('closest and coerceOption', () => {
    assert.equal(closest('trace-cnt', ['noop', 'trace-count']), 'trace-count');
    assert.equal(closest('xyzzy', ['noop', 'trace-count']), undefined);
    assert.deepEqual(coerceOption({ type: 'bool' }, 'OFF'), { ok: true, value: false });
    assert.deepEqual(coerceOption({ type: 'int' }, ' 42 '), { ok: true, value: 42 });
    assert.equal(coerceOption({ type: 'int' }, '').ok, false);
    assert.equal(coerceOption({ type: 'number' }, '').ok, false);
    assert.deepEqual(coerceOption({ type: 'string' }, 5), { ok: true, value: '5' });
  });

  it('displayPath', () => {
    assert.equal(displayPath('/p/q/mpii.yaml', '/p/q', '/h'), `.${path.sep}mpii.yaml`);
    assert.equal(displayPath('/p/q/config/tools.yaml', '/p/q', '/h'), path.join('config', 'tools.yaml'));
    assert.equal(displayPath('/h/.config/mpii/config.yaml', '/p/q', '/h'), '~/.config/mpii/config.yaml');
    assert.equal(displayPath('/etc/mpii/config.yaml', '/p/q', '/h'), '/etc/mpii/config.yaml');
  });
});
