// The report's header, what mpiP prints at the top of its report: the command line, when the job
// started and stopped, the hosts and the ranks on each, the MPI library, the tools and their
// options. The ranks' profile holds the times, hosts, pids and tools; `mpii run` adds what only
// it knows (command line, MPI version string, tool options) in .mpii-run-info.json.
import type { Profile } from '../profile-file/read.js';
import { readRunInfo, type RunInfo } from './run-info.js';

export interface RunHeader {
  /** the program and its arguments, when mpii run recorded them */
  command?: string[];
  launcher?: string;
  cwd?: string;
  /** "Open MPI 4.1.4" when recorded, else the flavour the ranks report ("openmpi") */
  mpi: string;
  mpii?: string;
  /** seconds since the epoch: the first rank's start, the last rank's end (null: none finished) */
  start: number | null;
  stop: number | null;
  hosts: { host: string; ranks: number[] }[];
  tools: { id: number; name: string; options: Record<string, string | number | boolean> }[];
  program?: RunInfo['program'];
  /** the items the run did not record (a profile not written by mpii run) */
  missing: string[];
}

export function runHeader(p: Profile): RunHeader {
  const info = readRunInfo(p.dir);
  const starts = p.ranks.map((r) => r.tStart).filter((t) => t > 0);
  const ends = p.ranks.map((r) => r.tEnd).filter((t) => t > 0);
  const byHost = new Map<string, number[]>();
  for (const r of p.ranks) byHost.set(r.host || '?', [...(byHost.get(r.host || '?') ?? []), r.rank]);
  const ids = new Map<number, string>();
  for (const r of p.ranks) for (const [id, name] of r.tools) ids.set(id, name);
  const tools = [...ids]
    .sort((a, b) => a[0] - b[0])
    .map(([id, name]) => {
      const given = info?.tools[id - 1];
      return { id, name, options: given && given.name === name ? given.options : {} };
    });
  return {
    command: info?.command,
    launcher: info ? [info.launcher, ...info.launcherArgs].join(' ') : undefined,
    cwd: info?.cwd,
    mpi: info?.mpi ?? p.ranks[0]?.flavor ?? '?',
    mpii: info?.mpii,
    start: starts.length ? Math.min(...starts) : null,
    stop: ends.length ? Math.max(...ends) : null,
    hosts: [...byHost].map(([host, ranks]) => ({ host, ranks: ranks.sort((a, b) => a - b) })).sort((a, b) => a.ranks[0] - b.ranks[0]),
    tools,
    program: info?.program,
    missing: info ? [] : ['command line', 'MPI version', 'tool options'],
  };
}

/** "0-3,8,10-11" */
export function rankRanges(ranks: number[]): string {
  const out: string[] = [];
  for (let i = 0; i < ranks.length;) {
    let j = i;
    while (j + 1 < ranks.length && ranks[j + 1] === ranks[j] + 1) j++;
    out.push(j === i ? String(ranks[i]) : `${ranks[i]}-${ranks[j]}`);
    i = j + 1;
  }
  return out.join(',');
}

/** "2026-11-25 08:20:01 UTC" */
export const utc = (t: number) =>
  `${new Date(t * 1000)
    .toISOString()
    .replace('T', ' ')
    .replace(/\.\d+Z$/, '')} UTC`;

const quote = (s: string) => (/^[\w@%+=:,./-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`);

export const toolLabel = (t: RunHeader['tools'][0]) => {
  const o = Object.entries(t.options);
  return `${t.id}:${t.name}${o.length ? `[${o.map(([k, v]) => `${k}=${v}`).join(';')}]` : ''}`;
};

/** Key/value lines, at most `width` columns: long values wrap after a space; a word longer than
 * the line is broken, except in the command, whose paths stay whole so they can be copied. */
export function formatHeader(h: RunHeader, width = 80, maxHosts = 8): string[] {
  const rows: [string, string][] = [];
  if (h.command) rows.push(['command', h.command.map(quote).join(' ')]);
  if (h.launcher) rows.push(['launcher', h.launcher]);
  rows.push(['MPI', h.mpi + (h.mpii ? `; mpii ${h.mpii}` : '')]);
  if (h.start !== null) {
    const span = h.stop !== null && h.stop >= h.start ? ` (${(h.stop - h.start).toFixed(3)} s)` : '';
    rows.push(['started', utc(h.start)]);
    rows.push(['stopped', h.stop !== null ? utc(h.stop) + span : 'no rank finished']);
  }
  const hosts = h.hosts.slice(0, maxHosts).map((x) => `${x.host}: ${x.ranks.length} rank${x.ranks.length === 1 ? '' : 's'} (${rankRanges(x.ranks)})`);
  if (h.hosts.length > maxHosts) hosts.push(`… ${h.hosts.length - maxHosts} more hosts (--json for all)`);
  hosts.forEach((x, i) => rows.push([i ? '' : h.hosts.length === 1 ? 'host' : `hosts (${h.hosts.length})`, x]));
  h.tools
    .filter((t) => Object.keys(t.options).length)
    .forEach((t, i) =>
      rows.push([
        i ? '' : 'tool options',
        `${t.id}:${t.name} ${Object.entries(t.options)
          .map(([k, v]) => `${k}=${v}`)
          .join(' ')}`,
      ]),
    );
  if (h.missing.length) rows.push(['not recorded', `${h.missing.join(', ')} (the run was not started by mpii run)`]);
  const key = Math.max(...rows.map((r) => r[0].length));
  const out: string[] = [];
  for (const [k, v] of rows) {
    const lead = `  ${k.padEnd(key)}  `;
    out.push(...wrap(v, width - lead.length, k !== 'command').map((line, i) => (i ? ' '.repeat(lead.length) : lead) + line));
  }
  return out;
}

/** Splits at spaces to lines of at most `w` characters; a longer word is broken into pieces
 * unless `breakWords` is false (then it has a line of its own, longer than `w`). */
export function wrap(s: string, w: number, breakWords = true): string[] {
  const lines: string[] = [];
  let cur = '';
  const words = s.split(' ').flatMap((x) => (breakWords && x.length > w ? x.match(new RegExp(`.{1,${Math.max(1, w)}}`, 'g'))! : [x]));
  for (const wd of words) {
    if (!cur) cur = wd;
    else if (cur.length + 1 + wd.length <= w) cur += ` ${wd}`;
    else {
      lines.push(cur);
      cur = wd;
    }
  }
  lines.push(cur);
  return lines;
}

export function headerJson(h: RunHeader): unknown {
  return {
    command: h.command ?? null,
    launcher: h.launcher ?? null,
    cwd: h.cwd ?? null,
    mpi: h.mpi,
    mpii: h.mpii ?? null,
    start: h.start !== null ? new Date(h.start * 1000).toISOString() : null,
    stop: h.stop !== null ? new Date(h.stop * 1000).toISOString() : null,
    seconds: h.start !== null && h.stop !== null ? h.stop - h.start : null,
    hosts: h.hosts,
    tools: h.tools,
    program: h.program ?? null,
    notRecorded: h.missing,
  };
}
