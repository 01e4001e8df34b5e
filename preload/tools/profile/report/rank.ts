// One rank's profile-tool data (layout: preload/tools/profile/profile.h) as the report needs it:
// its times and, per call-site row, the function, the places of its frames and its statistics.
// Every rank of a job is read (16,384 of them), so this is plain: the sections through typed
// arrays reused rank after rank (src/profile-file/table.ts), the field positions looked up once
// per layout, each place made once for the whole job; per row only its statistics are made.
import {
  MpiiError,
  type CounterSection,
  type RankProfile,
  TableReader,
  parseModules,
  placeKey,
  placeOf,
  type Module,
  type Place,
  type PythonSite,
  pythonSites,
  CONSTANTS,
} from '../../../../src/tool-api/index.js';
import type { RankTimes, SiteStats } from './types.js';

const NONE = 2 ** 63; // the C side's UINT64_MAX ("no value yet") reads as 2^64
const ALWAYS_TIMED = CONSTANTS.PF_ALWAYS_TIMED; // a site's first calls, all timed (preload/tools/profile/blocks.yaml)
const DENSE_TIMED = CONSTANTS.PF_DENSE_TIMED; // later calls timed one in N, then rarer (blocks.yaml)

/** Where a site's dense stretch (one in N timed) ended: its calls then, its later timed calls' ticks. */
export interface DenseEnd {
  calls: number;
  ticks: number;
}

/** The ticks a site spent in MPI: its timed calls' ticks scaled to all its calls. A site's first
 * ALWAYS_TIMED calls are all timed and are taken as they are (the first call may set up a
 * connection and take milliseconds: scaled, it would count many times); the later timed calls
 * stand for all later calls. Past its DENSE_TIMED-th later timed call a site is timed more rarely
 * (`dense`: where that stretch ended), so each stretch is scaled by its own calls / timed calls: one
 * scale for both would give the dense stretch's calls the weight of its many timed calls. Without
 * `ticksFirst` (older profiles) all timed calls are scaled alike. */
export function scaledTicks(count: number, timed: number, ticks: number, ticksFirst?: number, dense?: DenseEnd): number {
  if (timed <= 0) return 0;
  const first = Math.min(timed, ALWAYS_TIMED);
  if (ticksFirst === undefined || timed <= first) return ticks * (count / timed);
  if (!dense || dense.calls <= 0) return ticksFirst + (ticks - ticksFirst) * ((count - first) / (timed - first));
  const denseTime = dense.ticks * ((dense.calls - first) / DENSE_TIMED);
  const sparseTimed = timed - first - DENSE_TIMED;
  const sparseCalls = count - dense.calls;
  // no sparse call timed yet: the dense stretch's mean stands for them
  const sparseMean = sparseTimed > 0 ? (ticks - ticksFirst - dense.ticks) / sparseTimed : dense.ticks / DENSE_TIMED;
  return ticksFirst + denseTime + sparseMean * sparseCalls;
}

export interface RawRow {
  fn: string;
  /** ids in the job's PlaceTable, one per frame recorded */
  places: number[];
  overflow: boolean;
  stats: SiteStats;
}

export interface RawRank {
  times: RankTimes;
  timer: number;
  depth: number;
  rows: RawRow[];
}

/** The places of all ranks' rows, each made once: id -> place, in the order first met. A place
 *  is found by its object file and offset there (its placeKey), without making the key's text:
 *  a job's ranks repeat the same few places (each rank at its own load address). */
export class PlaceTable {
  readonly list: Place[] = [];
  private byPath = new Map<string, Map<number, number>>();
  private python = new Map<string, number>();

  /** The id of where `addr` is in a rank with these modules (and Python sites); placeOf's place. */
  id(modules: Module[], addr: number, python: Map<number, PythonSite>): number {
    if (python.size && python.has(addr)) {
      const pl = placeOf(modules, addr, python);
      return this.intern(this.python, placeKey(pl), pl);
    }
    let path = '';
    let offset = addr;
    for (const m of modules) {
      if (addr >= m.lo && addr < m.hi) {
        path = m.path;
        offset = addr - m.bias;
        break;
      }
    }
    let offsets = this.byPath.get(path);
    if (!offsets) this.byPath.set(path, (offsets = new Map()));
    return this.intern(offsets, offset, { path, offset });
  }

  private intern<K>(ids: Map<K, number>, key: K, pl: Place): number {
    let id = ids.get(key);
    if (id === undefined) {
      id = this.list.length;
      ids.set(key, id);
      this.list.push(pl);
    }
    return id;
  }
}

/** Where a table's fields are in its rows (a field it lacks: -1), per layout (labels list). */
interface Fields {
  /** the labels name any field at all (an overflow table's own serve when the sites have none) */
  any: boolean;
  count: number;
  timed: number;
  ticks: number;
  ticksFirst: number;
  denseCalls: number;
  denseTicks: number;
  ticksMin: number;
  ticksMax: number;
  sent: number;
  recv: number;
  sizeMin: number;
  sizeMax: number;
}

function fieldsOf(labels: string[], first: number): Fields {
  const at = new Map<string, number>();
  for (let f = first; f < labels.length; f++) at.set(labels[f], f - first);
  const i = (k: string) => at.get(k) ?? -1;
  return {
    any: at.size > 0,
    count: i('count'),
    timed: i('timed'),
    ticks: i('ticks'),
    ticksFirst: i('ticks_first'),
    denseCalls: i('dense_calls'),
    denseTicks: i('dense_ticks'),
    ticksMin: i('ticks_min'),
    ticksMax: i('ticks_max'),
    sent: i('bytes_sent'),
    recv: i('bytes_recv'),
    sizeMin: i('size_min'),
    sizeMax: i('size_max'),
  };
}

/** The labels of the sites table (the reader shares one list among the ranks that repeat it):
 *  its stack depth and fields. */
const layouts = new WeakMap<string[], { depth: number; fields: Fields }>();
const overflowLayouts = new WeakMap<string[], Fields>();
/** A clock's labels: label -> position. */
const clockLayouts = new WeakMap<string[], Map<string, number>>();

/** Reads ranks one after the other (its typed arrays are reused from rank to rank). */
export class RankReader {
  private clock = new TableReader();
  private table = new TableReader();
  /** "<id> <name>" texts parsed so far (ranks repeat them): the names shared, each parsed once */
  private functions = new Map<string, { id: number; name: string } | null>();
  constructor(readonly places: PlaceTable) {}

  private functionText(text: string): { id: number; name: string } | null {
    let f = this.functions.get(text);
    if (f === undefined) {
      const m = /^(\d+) (\S+)$/.exec(text);
      f = m ? { id: Number(m[1]), name: m[2] } : null;
      if (this.functions.size < 65536) this.functions.set(text, f); // bounded, whatever the texts
    }
    return f;
  }

  /** The rank's data from instance `tool` of the profile tool; undefined when it never started. */
  read(r: RankProfile, tool: number): RawRank | undefined {
    const clockSection = section(r, tool, 'clock');
    const clock = this.clock.read(clockSection, clockSection?.length ?? 0);
    const at = clockSection ? clockLayout(clockSection.labels) : undefined;
    const v = clock.values;
    const on = clock.count > 0;
    const g = (k: string) => {
      const i = at?.get(k);
      return on && i !== undefined ? v[i] : 0;
    };
    const timer = g('timer');
    if (!timer) return undefined; // the tool never started (no MPI_Init)
    const t0 = g('t0_ticks');
    let rate = 1e9;
    if (timer === 1) {
      const span = g('end_ns') - g('t0_ns');
      const cal = g('t0_ns') - g('cal_ns');
      if (g('end_ticks') && span >= 1e7) rate = ((g('end_ticks') - t0) / span) * 1e9;
      else if (cal > 0) rate = ((t0 - g('cal_ticks')) / cal) * 1e9;
    }
    const end = g('end_ticks') || g('last_ticks') || t0;
    const onSince = g('on_since');
    const times: RankTimes = {
      rank: r.rank,
      app: Math.max(0, end - t0) / rate,
      recorded: (g('on_ticks') + (onSince ? Math.max(0, end - onSince) : 0)) / rate,
      mpi: 0,
      pcontrol: g('pcontrol'),
      joins: g('joins'),
      resumes: g('resumes'),
      finished: g('end_ticks') > 0,
    };
    const depth = g('depth') || 1;

    const names = new Map<number, string>();
    const moduleLines: string[] = [];
    for (const t of r.texts) {
      if (t.tool !== tool) continue;
      if (t.name === 'module') moduleLines.push(t.text);
      else if (t.name === 'function') {
        const f = this.functionText(t.text);
        if (f) names.set(f.id, f.name);
      }
    }
    const fnName = (id: number) => names.get(id) ?? `function #${id}`;
    const modules = parseModules(moduleLines);
    const python = pythonSites(r.texts);

    const rows: RawRow[] = [];
    let fields: Fields | undefined;
    const sites = section(r, tool, 'sites');
    if (sites) {
      const layout = sitesLayout(r.rank, sites.labels);
      fields = layout.fields;
      const len = sites.labels.length;
      const t = this.table.read(sites, len);
      const w = t.values;
      for (let k = 0; k < t.count; k++) {
        const a = k * len; // the k-th listed row
        if (!w[a]) continue; // a row a crash left without its key
        const places: number[] = [];
        for (let d = 0; d < layout.depth; d++) if (d === 0 || w[a + 1 + d]) places.push(this.places.id(modules, w[a + 1 + d], python));
        rows.push({ fn: fnName(w[a] - 1), places, overflow: false, stats: stats(w, a + layout.depth + 1, len - layout.depth - 1, fields, rate) });
      }
    }
    const over = section(r, tool, 'overflow');
    if (over && over.labels.length) {
      const len = over.labels.length;
      if (!fields?.any) fields = overflowFields(over.labels);
      const t = this.table.read(over, len);
      const w = t.values;
      const count = fields.count < 0 ? 0 : fields.count; // the column that says a row was used
      for (let k = 0; k < t.count; k++) {
        const a = k * len; // the k-th listed row
        if (count >= len || !w[a + count]) continue;
        rows.push({ fn: fnName(t.rows[k]), places: [], overflow: true, stats: stats(w, a, len, fields, rate) });
      }
    }
    return { times, timer, depth, rows };
  }
}

function section(r: RankProfile, tool: number, name: string): CounterSection | undefined {
  for (const c of r.counters) if (c.tool === tool && c.name === name) return c;
  return undefined;
}

function clockLayout(labels: string[]): Map<string, number> {
  let at = clockLayouts.get(labels);
  if (!at) {
    at = new Map();
    labels.forEach((l, i) => {
      if (l) at!.set(l, i);
    });
    clockLayouts.set(labels, at);
  }
  return at;
}

function sitesLayout(rank: number, labels: string[]): { depth: number; fields: Fields } {
  let l = layouts.get(labels);
  if (l) return l;
  const depth = labels.filter((x) => x.startsWith('address')).length;
  if (!depth || labels[0] !== 'function' || labels.length < depth + 2) {
    throw new MpiiError(
      `rank ${rank}: the profile tool's call-site table has an unknown layout`,
      'the profile was written by a different mpii version; re-run the job',
    );
  }
  l = { depth, fields: fieldsOf(labels, depth + 1) };
  layouts.set(labels, l);
  return l;
}

function overflowFields(labels: string[]): Fields {
  let f = overflowLayouts.get(labels);
  if (!f) overflowLayouts.set(labels, (f = fieldsOf(labels, 0)));
  return f;
}

/** A row's statistics: its `n` fields at w[a…] (a field past them, or one the table lacks: 0). */
function stats(w: Float64Array, a: number, n: number, f: Fields, rate: number): SiteStats {
  const g = (i: number) => (i < 0 ? 0 : i < n ? w[a + i] : NaN);
  const count = g(f.count);
  const timed = f.timed >= 0 ? g(f.timed) : count; // profiles from before sampling timed every call
  const tmin = g(f.ticksMin);
  const smin = g(f.sizeMin);
  return {
    count,
    timed,
    time:
      scaledTicks(
        count,
        timed,
        g(f.ticks),
        f.ticksFirst >= 0 ? g(f.ticksFirst) : undefined,
        f.denseCalls >= 0 ? { calls: g(f.denseCalls), ticks: g(f.denseTicks) } : undefined,
      ) / rate,
    tmin: tmin >= NONE ? 0 : tmin / rate,
    tmax: g(f.ticksMax) / rate,
    sent: g(f.sent),
    recv: g(f.recv),
    smin: smin >= NONE ? -1 : smin,
    smax: g(f.sizeMax),
  };
}
