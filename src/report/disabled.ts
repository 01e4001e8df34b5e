// A tool that switched itself off says why in each rank's profile; the report says it once per
// reason, with the ranks it concerns, so a 1,024-rank job gets one line, not 1,024.

export interface Disabled {
  rank: number;
  reason: string;
}

/** "  off on ranks 0-3,5 of 6: <reason>" lines, one per distinct reason. */
export function disabledLines(disabled: Disabled[], ranks: number): string[] {
  const byReason = new Map<string, number[]>();
  for (const d of disabled) {
    const list = byReason.get(d.reason) ?? [];
    list.push(d.rank);
    byReason.set(d.reason, list);
  }
  return [...byReason].map(([reason, list]) => {
    const who = list.length === ranks && ranks > 1 ? `all ${ranks} ranks` : `${list.length === 1 ? 'rank' : 'ranks'} ${rankRanges(list)}`;
    return `  OFF on ${who}: ${reason}`;
  });
}

/** [0,1,2,3,5,9,10] → "0-3,5,9-10" */
export function rankRanges(ranks: number[]): string {
  const sorted = [...new Set(ranks)].sort((a, b) => a - b);
  const parts: string[] = [];
  for (let i = 0; i < sorted.length;) {
    let j = i;
    while (j + 1 < sorted.length && sorted[j + 1] === sorted[j] + 1) j++;
    parts.push(i === j ? `${sorted[i]}` : `${sorted[i]}-${sorted[j]}`);
    i = j + 1;
  }
  return parts.join(',');
}
