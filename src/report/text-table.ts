// Terminal tables that fit a width (80 columns by default): left-aligned text, right-aligned
// numbers, two spaces apart; one column may give way (its cells cut at the end with "…").

export const WIDTH = 80;

export interface TableOptions {
  indent?: string;
  bold?: (s: string) => string;
  /** the column that gives way when the table is wider than `width` */
  shrink?: number;
  width?: number;
  /** the narrowest the shrinking column gets (default 12) */
  minShrink?: number;
}

/** `s` in at most `w` characters: cut at the end with "…". */
export function cut(s: string, w: number): string {
  if (s.length <= w) return s;
  return w <= 1 ? s.slice(0, Math.max(0, w)) : `${s.slice(0, w - 1)}…`;
}

export function table(head: string[], rows: string[][], right: boolean[], o: TableOptions = {}): string[] {
  const indent = o.indent ?? '    ';
  const bold = o.bold ?? ((s: string) => s);
  const w = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const width = o.width ?? WIDTH;
  let cells = rows;
  if (o.shrink !== undefined) {
    const total = indent.length + w.reduce((a, b) => a + b, 0) + 2 * (w.length - 1);
    if (total > width) {
      const k = o.shrink;
      w[k] = Math.max(o.minShrink ?? 12, head[k].length, w[k] - (total - width));
      cells = rows.map((r) => r.map((c, i) => (i === k ? cut(c, w[k]) : c)));
    }
  }
  const line = (r: string[]) =>
    r
      .map((c, i) => (right[i] ? c.padStart(w[i]) : c.padEnd(w[i])))
      .join('  ')
      .trimEnd();
  return [indent + bold(line(head)), ...cells.map((r) => indent + line(r))];
}

// eslint-disable-next-line no-control-regex -- the escape sequences of a terminal (ESC [) are what this looks for
const ANSI = /\x1b\[[0-9;]*m/g;
/** Characters a terminal shows (colour codes take none). */
export const visibleLength = (s: string) => [...s.replace(ANSI, '')].length;

/** Lines longer than `width` wrapped at spaces, the rest indented two more than the line; a
 *  word longer than a line is broken. Tables are made to fit already; this catches the prose
 *  lines of the tools' reports (overlap's statistics, memcheck's backtraces). */
export function fitLines(lines: string[], width = WIDTH): string[] {
  const out: string[] = [];
  for (const line of lines) {
    if (visibleLength(line) <= width) {
      out.push(line);
      continue;
    }
    const lead = /^ */.exec(line.replace(ANSI, ''))![0].length;
    const words = line.trimStart().split(' ');
    let cur = ' '.repeat(lead);
    let curLen = lead;
    let first = true;
    const flush = () => {
      out.push(cur);
      cur = ' '.repeat(lead + 2);
      curLen = lead + 2;
      first = true;
    };
    for (const w of words) {
      let word = w;
      while (visibleLength(word) > width - lead - 2) {
        // a word longer than a line: break it
        if (!first) flush();
        const room = width - curLen;
        out.push(cur + word.slice(0, room));
        word = word.slice(room);
        cur = ' '.repeat(lead + 2);
        curLen = lead + 2;
      }
      const wl = visibleLength(word);
      if (!first && curLen + 1 + wl > width) flush();
      cur += (first ? '' : ' ') + word;
      curLen += (first ? 0 : 1) + wl;
      first = false;
    }
    out.push(cur);
  }
  return out;
}
