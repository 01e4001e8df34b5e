// Seeded fuzzing of what mpii reads from outside: profile files, the YAML configuration, --tools
// strings and TOOLS, tool libraries. Every input must give a result or an MpiiError (a one-line
// error for the user), nothing else. Seeded, so every run tries the same inputs and a failure names
// one that can be replayed.
//
// Each campaign is one seeded sequence of inputs, run in two shares: its first tenth is a quick
// unit test (fuzz.unit.test.ts, part of npm test), the other nine tenths run with the integration
// layer (fuzz.test.ts). Together they try exactly the inputs of the one long campaign.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execaSync } from 'execa';
import { nodeFileBytes, rankImage, synthRank, writeSyntheticJob } from '../src/profile-file/synthetic.js';
import { readProfile } from '../src/profile-file/read.js';
import { formatSummary, summaryJson } from '../src/report/summary.js';
import { writeJson } from '../src/report/json-stream.js';
import { listStacks, listTools, resolveStack } from '../src/config/resolve.js';
import { DEFAULTS_FILE } from '../src/cli/run.js';
import { MpiiError } from '../src/errors.js';
import { checkToolLibraries } from '../src/elf.js';

/** Which inputs of a campaign a test file runs: the first tenth, or the rest. */
export type Share = 'first' | 'rest';
const mine = (share: Share, i: number, n: number) => i < Math.floor(n / 10) === (share === 'first');

/** mulberry32: a small deterministic PRNG. */
function prng(seed: number): { next: () => number; int: (n: number) => number; pick: <T>(xs: readonly T[]) => T } {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const int = (n: number) => Math.floor(next() * n);
  return { next, int, pick: (xs) => xs[int(xs.length)] };
}

/** Runs `fn` on each input: it may succeed or throw an MpiiError, nothing else. Returns the failures. */
function expectOnlyMpiiErrors(what: string, inputs: Iterable<[string, () => void]>): { tried: number; rejected: number; failures: string[] } {
  let tried = 0;
  let rejected = 0;
  const failures: string[] = [];
  for (const [label, fn] of inputs) {
    tried++;
    try {
      fn();
    } catch (e) {
      if (e instanceof MpiiError) rejected++;
      else failures.push(`${what} ${label}: ${(e as Error).stack?.split('\n').slice(0, 3).join(' | ') ?? e}`);
    }
  }
  console.log(
    `fuzz: ${tried} ${what} inputs tried: ${rejected} rejected with an MpiiError, ${tried - rejected - failures.length} accepted, ${failures.length} other failures`,
  );
  return { tried, rejected, failures };
}

const INTERESTING = [0, 1, 2, 3, 4, 7, 8, 0x7f, 0x80, 0xff, 0xffff, 0x7fffffff, 0x80000000, 0xffffffff];

/** A damaged copy of `b`: truncations, bit flips, 32-bit words overwritten, bytes inserted or
 * dropped; mostly in the first 512 bytes, where the headers and the first records are. */
function mutate(b: Buffer, r: ReturnType<typeof prng>): { bytes: Buffer; how: string } {
  let out = Buffer.from(b);
  const how: string[] = [];
  const at = () => (r.next() < 0.6 ? r.int(Math.min(out.length, 512)) : r.int(out.length));
  for (let k = 1 + r.int(4); k > 0 && out.length > 0; k--) {
    const op = r.int(5);
    if (op === 0) {
      const n = r.int(out.length);
      out = out.subarray(0, n);
      how.push(`cut@${n}`);
    } else if (op === 1) {
      const i = at();
      const bit = r.int(8);
      out[i] ^= 1 << bit;
      how.push(`flip@${i}.${bit}`);
    } else if (op === 2 && out.length >= 4) {
      const i = Math.min(at() & ~3, out.length - 4);
      const v = r.next() < 0.7 ? r.pick(INTERESTING) : r.int(0x100000000);
      out.writeUInt32LE(v >>> 0, i);
      how.push(`u32@${i}=${v}`);
    } else if (op === 3) {
      const i = at();
      out = Buffer.concat([out.subarray(0, i), Buffer.alloc(1 + r.int(16), r.int(256)), out.subarray(i)]);
      how.push(`insert@${i}`);
    } else {
      const i = at();
      const n = 1 + r.int(16);
      out = Buffer.concat([out.subarray(0, i), out.subarray(i + n)]);
      how.push(`drop@${i}+${n}`);
    }
  }
  return { bytes: out, how: how.join(',') };
}

/** Reads everything of a profile, as the report would: the lazily read counters too. */
function readAll(dir: string, report: boolean): void {
  const p = readProfile(dir);
  for (const rank of p.ranks) {
    for (const c of rank.counters) {
      void c.nonzero.size;
      c.forEach(() => {});
      void c.words().entries;
    }
  }
  if (report) {
    writeJson(summaryJson(p), () => {}, true); // as mpii report --json: the monitor's rows are made as written
    formatSummary(p, {});
  }
}

export function fuzzSuite(share: Share): void {
  describe(`fuzz (seeded; ${share === 'first' ? 'the first tenth' : 'the other nine tenths'} of each campaign)`, () => {
    it('the profile reader: damaged profile.mpii, node-*.live and rank-*.live files give an MpiiError or a profile, nothing else', { timeout: 300_000 }, () => {
      const r = prng(0x6d706969); // "mpii"
      const base = mkdtempSync(join(tmpdir(), 'mpii-fuzz-profile-'));
      const sources: { name: string; file: string; bytes: Buffer }[] = [];
      const gathered = join(base, 'gathered');
      sources.push({ name: 'profile.mpii', file: 'profile.mpii', bytes: readFileSync(writeSyntheticJob(gathered, 4)) });
      sources.push({ name: 'profile.mpii (1 rank)', file: 'profile.mpii', bytes: readFileSync(writeSyntheticJob(join(base, 'one'), 1)) });
      sources.push({ name: 'rank-1.live', file: 'rank-1.live', bytes: rankImage({ ...synthRank(2, 1), state: 'running' }) });
      const slot = (r: number) => rankImage({ ...synthRank(4, r), state: 'running' });
      sources.push({ name: 'node-vm.live', file: 'node-vm.live', bytes: nodeFileBytes([slot(3), null, slot(1), slot(2)]) });
      const work = join(base, 'work');
      mkdirSync(work);
      const N = 2500;
      function* inputs(): Generator<[string, () => void]> {
        for (let i = 0; i < N; i++) {
          const src = sources[i % sources.length];
          const { bytes, how } = mutate(src.bytes, r);
          if (!mine(share, i, N)) continue;
          yield [
            `#${i} ${src.name} ${how}`,
            () => {
              for (const f of readdirSync(work)) rmSync(join(work, f), { force: true });
              writeFileSync(join(work, src.file), bytes);
              if (src.file.endsWith('.live')) writeFileSync(join(work, 'rank-0.live'), rankImage({ ...synthRank(2, 0), state: 'running' }));
              readAll(work, i % 5 === 0); // every fifth through the whole text and JSON report too
            },
          ];
        }
      }
      const { tried, rejected, failures } = expectOnlyMpiiErrors('profile', inputs());
      assert.ok(rejected > tried / 10 && rejected < tried, 'the damage is varied: some inputs are refused, some pass');
      assert.deepEqual(failures.slice(0, 10), []);
    });

    it('the YAML configuration: damaged files give an MpiiError or a configuration, nothing else', { timeout: 300_000 }, () => {
      const r = prng(0x79616d6c); // "yaml"
      const defaults = readFileSync(DEFAULTS_FILE, 'utf8');
      const user = [
        'tools:',
        '  mine:',
        '    path: ./libmine.so',
        '    description: my tool',
        '    options:',
        '      level: { type: int, default: 2, min: 0, max: 9 }',
        '      mode: { type: enum, values: [fast, slow], default: fast }',
        'stacks:',
        '  base: &b [trace-count, { profile: { depth: 2, top: 5 } }]',
        '  mon: [monitor, { trace-count: { top: 3 } }]',
        '  both: [memcheck, overlap]',
        'default-stack: mon',
        '',
      ].join('\n');
      const TOKENS = [
        ':',
        ': ',
        '-',
        '- ',
        '[',
        ']',
        '{',
        '}',
        ',',
        '&a ',
        '*a',
        '*b',
        '<<: *b',
        '!!int ',
        '!!str ',
        '!!binary ',
        '"',
        "'",
        '#',
        '\t',
        '  ',
        '\n',
        '|',
        '>',
        '? ',
        '%YAML 1.2\n',
        '---\n',
        '...\n',
        'null',
        '~',
        'true',
        'no',
        '-1',
        '1e309',
        '0x10',
        '.nan',
        'tools',
        'stacks',
        'default-stack',
        'options',
        'type',
        'int',
        'enum',
        'values',
        'builtin',
        'path',
        'min',
        'max',
        'default',
        'trace-count',
        'profile',
        '/',
        '\\',
        '\u0000',
      ];
      const mutateText = (t: string): { text: string; how: string } => {
        let lines = t.split('\n');
        const how: string[] = [];
        for (let k = 1 + r.int(3); k > 0; k--) {
          const op = r.int(5);
          const i = r.int(lines.length);
          if (op === 0) {
            lines.splice(i, 1);
            how.push(`del ${i}`);
          } else if (op === 1) {
            lines.splice(i, 0, lines[r.int(lines.length)] ?? '');
            how.push(`dup ${i}`);
          } else if (op === 2) {
            const l = lines[i] ?? '';
            const at = r.int(l.length + 1);
            const tok = r.pick(TOKENS);
            lines[i] = l.slice(0, at) + tok + l.slice(at);
            how.push(`ins ${i}:${at} ${JSON.stringify(tok)}`);
          } else if (op === 3) {
            const l = lines[i] ?? '';
            const at = r.int(l.length + 1);
            lines[i] = l.slice(0, at) + l.slice(at + 1 + r.int(4));
            how.push(`cut ${i}:${at}`);
          } else {
            lines = lines.slice(0, i);
            how.push(`end ${i}`);
          }
        }
        return { text: lines.join('\n'), how: how.join(',') };
      };
      const dir = mkdtempSync(join(tmpdir(), 'mpii-fuzz-yaml-'));
      const env = { HOME: dir, XDG_CONFIG_HOME: join(dir, 'xdg') };
      const N = 1500;
      function* inputs(): Generator<[string, () => void]> {
        for (let i = 0; i < N; i++) {
          const onDefaults = i % 3 === 0; // the shipped file (builtins allowed) or a user's mpii.yaml
          const { text, how } = mutateText(onDefaults ? defaults : user);
          const stack = r.pick([undefined, 'base', 'mon', 'both', 'count']);
          if (!mine(share, i, N)) continue;
          yield [
            `#${i} ${onDefaults ? 'tools.yaml' : 'mpii.yaml'} ${how}`,
            () => {
              const defaultsFile = join(dir, 'tools.yaml');
              writeFileSync(defaultsFile, onDefaults ? text : defaults);
              writeFileSync(join(dir, 'mpii.yaml'), onDefaults ? '' : text);
              const req = { env, cwd: dir, defaultsFile };
              listTools(req);
              listStacks(req);
              resolveStack({ ...req, stack });
            },
          ];
        }
      }
      const { tried, rejected, failures } = expectOnlyMpiiErrors('yaml', inputs());
      assert.ok(rejected > tried / 10 && rejected < tried, 'the damage is varied: some inputs are refused, some pass');
      assert.deepEqual(failures.slice(0, 10), []);
    });

    it('--tools strings and tool options: an MpiiError or a stack, nothing else', { timeout: 300_000 }, () => {
      const r = prng(0x746f6f6c); // "tool"
      const dir = mkdtempSync(join(tmpdir(), 'mpii-fuzz-tools-'));
      writeFileSync(join(dir, 'text.so'), 'not a library');
      const env = { HOME: dir, XDG_CONFIG_HOME: join(dir, 'xdg') };
      const TOKENS = [
        'noop',
        'trace-count',
        'profile',
        'monitor',
        'memcheck',
        'overlap',
        'trace-cont',
        'x',
        '[',
        ']',
        '=',
        ';',
        ',',
        ',',
        ' ',
        '',
        'top',
        'depth',
        'sample',
        'sites',
        'mode',
        'matrix',
        'prof',
        'strict',
        'fatal',
        'pending',
        'chain-threshold',
        'heap-min',
        '5',
        '0',
        '-1',
        '1e3',
        '99999999999999999999',
        '0x10',
        'NaN',
        'true',
        'false',
        'yes',
        'adaptive',
        'paging',
        'all',
        'off',
        './text.so',
        '/nonexistent/lib.so',
        'lib.so',
        '~/x.so',
        '/',
        '.',
        '..',
        '\\',
        '"',
        "'",
        '%',
        '\u00e9',
        '\n',
        '\u0000',
        '[]',
        '[=]',
        '[a=b=c]',
      ];
      const N = 3000;
      function* inputs(): Generator<[string, () => void]> {
        for (let i = 0; i < N; i++) {
          const n = 1 + r.int(10);
          let spec = '';
          for (let k = 0; k < n; k++) spec += r.pick(TOKENS);
          if (!mine(share, i, N)) continue;
          yield [
            `#${i} ${JSON.stringify(spec)}`,
            () => {
              checkToolLibraries(resolveStack({ tools: spec, env, cwd: dir, defaultsFile: DEFAULTS_FILE }).tools);
            },
          ];
          // the same tokens as $TOOLS (colon-separated, no options)
          const envSpec = spec.replace(/,/g, ':');
          yield [
            `#${i} TOOLS=${JSON.stringify(envSpec)}`,
            () => {
              resolveStack({ env: { ...env, TOOLS: envSpec }, cwd: dir, defaultsFile: DEFAULTS_FILE });
            },
          ];
        }
      }
      const { failures } = expectOnlyMpiiErrors('tools', inputs());
      assert.deepEqual(failures.slice(0, 10), []);
    });

    it('the tool library check: damaged ELF files give an MpiiError or pass, nothing else', { timeout: 300_000 }, async () => {
      const r = prng(0x656c6621); // "elf!"
      const dir = mkdtempSync(join(tmpdir(), 'mpii-fuzz-elf-'));
      writeFileSync(join(dir, 't.c'), 'int mpii_tool_x(void) { return 1; }\n');
      execaSync('cc', ['-shared', '-fPIC', '-o', join(dir, 'good.so'), join(dir, 't.c')]);
      const good = readFileSync(join(dir, 'good.so'));
      const file = join(dir, 'lib.so');
      function* inputs(): Generator<[string, () => void]> {
        const N = 2000;
        for (let i = 0; i < N; i++) {
          const { bytes, how } = mutate(good, r);
          if (!mine(share, i, N)) continue;
          yield [
            `#${i} ${how}`,
            () => {
              writeFileSync(file, bytes);
              checkToolLibraries([{ name: 'lib.so', kind: 'external', path: file }]);
            },
          ];
        }
      }
      const { tried, rejected, failures } = expectOnlyMpiiErrors('ELF', inputs());
      // only the ELF header and the dynamic section are read: most damage elsewhere passes
      assert.ok(rejected > 0 && rejected < tried, 'some inputs are refused, some pass');
      assert.deepEqual(failures.slice(0, 10), []);
    });
  });
}
