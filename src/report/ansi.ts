// The few colours the terminal report uses, written as chalk (level 2, 256 colours) writes them:
// the same bytes, without loading chalk (four modules and its terminal detection: about 10 ms of
// the start of `mpii report`, which is mostly a start). test/ansi.unit.test.ts holds them to chalk.

/** One style: `open` + text + `close`, as chalk's applyStyle does it for a single style: a close
 *  code already inside re-opens the style after it, and each line break closes and re-opens it. */
function style(open: string, close: string): (s: string) => string {
  return (s) => {
    if (!s) return s;
    if (s.includes('\u001B')) s = s.split(close).join(close + open);
    if (s.includes('\n')) s = s.replace(/\r?\n/g, (lf) => close + lf + open);
    return open + s + close;
  };
}

export const bold = style('\u001B[1m', '\u001B[22m');
export const yellow = style('\u001B[33m', '\u001B[39m');
export const green = style('\u001B[32m', '\u001B[39m');
export const red = style('\u001B[31m', '\u001B[39m');
/** background colour `n` of the 256 */
export const bgAnsi256 = (n: number) => style(`\u001B[48;5;${n}m`, '\u001B[49m');
