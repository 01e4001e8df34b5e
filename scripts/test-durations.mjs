// A `node --test` reporter that writes where a layer's time went: each file's time (the sum of the
// top-level suites and tests it defines, hooks included; a helper that defines suites, such as
// test/fuzz.ts, counts as its own file), the slowest first, and the total.
// scripts/run-tests.mjs adds it beside the usual reporter and prints what it wrote after the
// layer, so that CI's log, which keeps only its end, says which files to make faster.
const SHOWN = 12;

export default async function* durations(source) {
  const byFile = new Map();
  for await (const event of source) {
    if ((event.type !== 'test:pass' && event.type !== 'test:fail') || event.data.nesting !== 0) continue;
    const file = (event.data.file ?? '?').replace(/^.*\/dist\//, '');
    byFile.set(file, (byFile.get(file) ?? 0) + (event.data.details?.duration_ms ?? 0) / 1000);
  }
  const files = [...byFile].sort((a, b) => b[1] - a[1]);
  const total = files.reduce((sum, [, s]) => sum + s, 0);
  yield `${files.length} files, ${Math.round(total)} s of tests; the slowest:\n`;
  for (const [file, s] of files.slice(0, SHOWN)) yield `${String(Math.round(s)).padStart(6)} s  ${file}\n`;
}
