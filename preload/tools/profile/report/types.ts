// The profile tool's data as the report sees it: call sites, per-rank times, statistics. Types
// only; every module of the report imports them (data.ts reads them, totals.ts sums them).
import type { Location } from '../../../../src/tool-api/index.js';

export interface SiteStats {
  count: number;
  /** calls that were timed (option sample: all of a site's first 64, then one in N) */
  timed: number;
  /** seconds: total (the timed calls' time scaled by count / timed), shortest and longest timed call */
  time: number;
  tmin: number;
  tmax: number;
  /** bytes sent and received in all calls; smallest and largest per call (sent + received) */
  sent: number;
  recv: number;
  smin: number;
  smax: number;
}

export interface Site {
  id: number;
  fn: string;
  /** the calling address and, with a stack depth above 1, the callers' */
  frames: Location[];
  /** "file.c:42 main" (with its callers, "← file.c:7 solve", at a stack depth above 1) */
  location: string;
  /** calls that found the rank's site table full, filed under their function only */
  overflow: boolean;
}

export interface RankTimes {
  rank: number;
  /** seconds from MPI_Init to MPI_Finalize (to the last MPI call when the rank did not finish) */
  app: number;
  /** seconds with recording on (MPI_Pcontrol) */
  recorded: number;
  /** seconds inside MPI calls while recording */
  mpi: number;
  pcontrol: number;
  /** times another thread's MPI call put the tool on its locked path, and times MPI_Init's thread
   * alone brought it back to the fast one */
  joins: number;
  resumes: number;
  finished: boolean;
}

export interface ProfileRun {
  tool: number;
  depth: number;
  timer: string;
  ranks: RankTimes[];
  sites: Site[];
  /** stats[site id]: rank index (into `ranks`) -> statistics */
  stats: Map<number, SiteStats>[];
  /** why some call sites have no file:line */
  problems: string[];
}

export interface SiteTotal extends SiteStats {
  site: Site;
  /** ranks that called it */
  ranks: number;
  /** coefficient of variation of the per-rank time over all ranks (0 = perfectly even) */
  cov: number;
  /** the rank that spent the most time there */
  maxRank: number;
  maxRankTime: number;
}

export interface Imbalance {
  min: number;
  minRank: number;
  max: number;
  maxRank: number;
  mean: number;
  ratio: number;
}
