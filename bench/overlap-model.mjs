#!/usr/bin/env node
// bench/overlap-model.mjs - where Natvig's sync-to-async method pays, on paper (issue 22, item 5).
//
// A model of one red-black SOR iteration (the thesis's benchmark, bench/sor.c) on P ranks in a
// sqrt(P) x sqrt(P) grid, n x n points, fed with figures measured on this machine (the method's
// cost per message, the compute per point) and a link (rate, latency). Per colour phase an interior
// rank exchanges k = 4 halos of b = 4n/sqrt(P) bytes (one colour of an edge) and updates half its
// (n/sqrt(P))^2 points:
//   Sendrecv   k (L + b/R) + C/2            4 exchanges one after the other, each a latency
//   Isend      L + k b/R + C/2               all in flight at once: one latency, the NIC still
//                                            sends the k halos one after the other
//   automatic  Isend + k (o + 2b/M)          paging: per received message a fault, two mprotect and
//                                            the private-buffer copies (pack and unpack at M B/s)
//   adaptive   min(Sendrecv, automatic)      what adaptive converges to per call site
// with C = c (n/sqrt(P))^2. Gain = Sendrecv / adaptive. It ignores compute/communication overlap
// (the thesis's SOR has none in its Sendrecv code) and contention beyond one NIC per rank.
//
//   node bench/overlap-model.mjs [--o-us 8] [--c-ns 2.5] [--copy-gbs 5] [--svg docs/overlap-model.svg]
// Prints the predictions next to the thesis's Table 6.2 and writes the plot (SVG, no dependencies).
import { writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';

const { values: v } = parseArgs({
  options: {
    'o-us': { type: 'string', default: '8' }, // method cost per message, µs (measured: docs/overlap.md)
    'c-ns': { type: 'string', default: '2.5' }, // SOR update per point, ns (measured: sor -np 1)
    'copy-gbs': { type: 'string', default: '5' }, // pack/unpack copy bandwidth, GB/s
    svg: { type: 'string', default: 'docs/overlap-model.svg' },
  },
});
const O = Number(v['o-us']) * 1e-6,
  C_POINT = Number(v['c-ns']) * 1e-9,
  COPY = Number(v['copy-gbs']) * 1e9;
for (const [k, x] of [
  ['o-us', O],
  ['c-ns', C_POINT],
  ['copy-gbs', COPY],
]) {
  if (!(x > 0)) {
    console.error(`overlap-model.mjs: --${k} wants a positive number`);
    process.exit(2);
  }
}

/** Milliseconds per iteration of each variant. link: { rate: bit/s, lat: s }. */
export function model(n, P, link, o = O, c = C_POINT, copy = COPY) {
  const side = n / Math.sqrt(P),
    k = 4,
    b = 4 * side,
    R = link.rate / 8;
  const half = (c * side * side) / 2;
  const sendrecv = k * (link.lat + b / R) + half;
  const isend = link.lat + (k * b) / R + half;
  const auto = isend + k * (o + (2 * b) / copy);
  const adaptive = Math.min(sendrecv, auto);
  const ms = (t) => 2 * t * 1e3; // two colour phases
  return { sendrecv: ms(sendrecv), isend: ms(isend), auto: ms(auto), adaptive: ms(adaptive) };
}

// The thesis's Norgrid (Table 6.2): Gigabit Ethernet, 16 ranks. Its latency per exchange, from
// Table 3.1: Sendrecv at n=128 spends 1.12 ms communicating in 8 exchanges = 140 µs each.
const LINKS = {
  'this testbed (20 Mbit/s, 60 µs)': { rate: 20e6, lat: 60e-6 },
  'Gigabit Ethernet (thesis, 140 µs)': { rate: 1e9, lat: 140e-6 },
  'InfiniBand-class (100 Gbit/s, 1.5 µs)': { rate: 100e9, lat: 1.5e-6 },
};
const NS = [128, 256, 512, 1024, 2048, 4096];
const TABLE_6_2 = {
  sendrecv: [1.14, 3.01, 3.01, 3.49, 6.05, 16.98],
  isend: [0.36, 0.99, 1.0, 1.97, 4.48, 14.09],
  paging: [0.92, 1.13, 1.32, 2.94, 6.34, 22.01],
  chaining: [0.43, 1.07, 1.06, 2.04, 4.55, 14.17],
};

console.log(
  `model inputs: method cost ${(O * 1e6).toFixed(1)} µs per message, SOR ${(C_POINT * 1e9).toFixed(2)} ns per point, copies ${(COPY / 1e9).toFixed(1)} GB/s`,
);
console.log('predicted gain Sendrecv / adaptive (and Sendrecv / Isend) for 16 ranks, per n:');
for (const [name, link] of Object.entries(LINKS)) {
  const cells = NS.map((n) => {
    const m = model(n, 16, link);
    return `${(m.sendrecv / m.adaptive).toFixed(2)} (${(m.sendrecv / m.isend).toFixed(2)})`;
  });
  console.log(`  ${name.padEnd(40)} ${cells.join('  ')}`);
}
const t = TABLE_6_2;
console.log(`  ${'thesis Table 6.2, Sendrecv / paging'.padEnd(40)} ${NS.map((_, i) => (t.sendrecv[i] / t.paging[i]).toFixed(2)).join('         ')}`);
console.log(`  ${'thesis Table 6.2, Sendrecv / chaining'.padEnd(40)} ${NS.map((_, i) => (t.sendrecv[i] / t.chaining[i]).toFixed(2)).join('         ')}`);
console.log(`  ${'thesis Table 6.2, Sendrecv / Isend'.padEnd(40)} ${NS.map((_, i) => (t.sendrecv[i] / t.isend[i]).toFixed(2)).join('         ')}`);

// ---- the plot: gain against n per link (left), regime map rate x latency at n=1024 (right) ----
const W = 980,
  H = 420,
  colors = ['#1b9e77', '#d95f02', '#7570b3'];
const out = [
  `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}" font-family="sans-serif" font-size="12">`,
  `<rect width="${W}" height="${H}" fill="white"/>`,
];
// left panel
const L0 = { x: 60, y: 40, w: 400, h: 300 };
const xs = (n) => L0.x + (Math.log2(n / 128) / 5) * L0.w;
const yMax = 3.5,
  ys = (g) => L0.y + L0.h - (g / yMax) * L0.h;
out.push(`<text x="${L0.x}" y="24" font-weight="bold">Gain of adaptive over Sendrecv, SOR on 16 ranks (model)</text>`);
out.push(`<rect x="${L0.x}" y="${L0.y}" width="${L0.w}" height="${L0.h}" fill="none" stroke="#888"/>`);
for (let g = 0; g <= yMax; g += 0.5)
  out.push(
    `<line x1="${L0.x}" x2="${L0.x + L0.w}" y1="${ys(g)}" y2="${ys(g)}" stroke="${g === 1 ? '#000' : '#eee'}"/><text x="${L0.x - 8}" y="${ys(g) + 4}" text-anchor="end">${g.toFixed(1)}</text>`,
  );
for (const n of NS) out.push(`<text x="${xs(n)}" y="${L0.y + L0.h + 16}" text-anchor="middle">${n}</text>`);
out.push(`<text x="${L0.x + L0.w / 2}" y="${L0.y + L0.h + 34}" text-anchor="middle">grid size n (n x n points)</text>`);
Object.entries(LINKS).forEach(([name, link], i) => {
  const pts = NS.map((n) => {
    const m = model(n, 16, link);
    return `${xs(n)},${ys(m.sendrecv / m.adaptive)}`;
  });
  const ptsI = NS.map((n) => {
    const m = model(n, 16, link);
    return `${xs(n)},${ys(m.sendrecv / m.isend)}`;
  });
  out.push(`<polyline points="${pts.join(' ')}" fill="none" stroke="${colors[i]}" stroke-width="2.5"/>`);
  out.push(`<polyline points="${ptsI.join(' ')}" fill="none" stroke="${colors[i]}" stroke-width="1" stroke-dasharray="4 3"/>`);
  out.push(`<text x="${L0.x + 8}" y="${L0.y + 16 + i * 16}" fill="${colors[i]}">${name}</text>`);
});
NS.forEach((n, i) => {
  out.push(`<circle cx="${xs(n)}" cy="${ys(t.sendrecv[i] / t.paging[i])}" r="4" fill="none" stroke="#000"/>`);
  out.push(`<rect x="${xs(n) - 3.5}" y="${ys(t.sendrecv[i] / t.chaining[i]) - 3.5}" width="7" height="7" fill="#000"/>`);
});
out.push(`<text x="${L0.x + 8}" y="${L0.y + 68}">solid: adaptive; dashed: hand-written Isend</text>`);
out.push(`<text x="${L0.x + 8}" y="${L0.y + 84}">○ thesis paging, ■ thesis chaining (Norgrid, GigE)</text>`);
// right panel: regime map at n = 1024, 16 ranks
const R0 = { x: 560, y: 40, w: 360, h: 300 };
const rates = [1e7, 1e8, 1e9, 1e10, 1e11],
  lats = [1e-6, 1e-5, 1e-4, 1e-3];
out.push(`<text x="${R0.x}" y="24" font-weight="bold">Where it pays (n = 1024, 16 ranks): Sendrecv / adaptive</text>`);
const NX = 40,
  NY = 30;
for (let i = 0; i < NX; i++) {
  for (let j = 0; j < NY; j++) {
    const rate = 10 ** (7 + (4 * (i + 0.5)) / NX),
      lat = 10 ** (-6 + (3 * (j + 0.5)) / NY);
    const m = model(1024, 16, { rate, lat });
    const g = m.sendrecv / m.adaptive;
    const shade = g < 1.05 ? '#f2f2f2' : g < 1.2 ? '#c7e9c0' : g < 1.5 ? '#74c476' : g < 2 ? '#31a354' : '#006d2c';
    out.push(
      `<rect x="${(R0.x + (i * R0.w) / NX).toFixed(1)}" y="${(R0.y + R0.h - ((j + 1) * R0.h) / NY).toFixed(1)}" width="${(R0.w / NX + 0.5).toFixed(1)}" height="${(R0.h / NY + 0.5).toFixed(1)}" fill="${shade}"/>`,
    );
  }
}
out.push(`<rect x="${R0.x}" y="${R0.y}" width="${R0.w}" height="${R0.h}" fill="none" stroke="#888"/>`);
rates.forEach((r, i) =>
  out.push(`<text x="${R0.x + (i * R0.w) / 4}" y="${R0.y + R0.h + 16}" text-anchor="middle">${r >= 1e9 ? `${r / 1e9}G` : `${r / 1e6}M`}</text>`),
);
lats.forEach((l, j) => out.push(`<text x="${R0.x - 6}" y="${R0.y + R0.h - (j * R0.h) / 3 + 4}" text-anchor="end">${l * 1e6} µs</text>`));
out.push(`<text x="${R0.x + R0.w / 2}" y="${R0.y + R0.h + 34}" text-anchor="middle">link rate (bit/s)</text>`);
const mark = (name, link, dy) => {
  const x = R0.x + ((Math.log10(link.rate) - 7) / 4) * R0.w,
    y = R0.y + R0.h - ((Math.log10(link.lat) + 6) / 3) * R0.h;
  out.push(`<circle cx="${x}" cy="${y}" r="4" fill="#d95f02"/><text x="${x + 6}" y="${y + dy}">${name}</text>`);
};
mark('GigE (thesis)', LINKS['Gigabit Ethernet (thesis, 140 µs)'], 4);
mark('InfiniBand', LINKS['InfiniBand-class (100 Gbit/s, 1.5 µs)'], -6);
mark('testbed', LINKS['this testbed (20 Mbit/s, 60 µs)'], 4);
const legend = [
  ['&lt; 1.05 (adaptive stays plain)', '#f2f2f2'],
  ['1.05-1.2', '#c7e9c0'],
  ['1.2-1.5', '#74c476'],
  ['1.5-2', '#31a354'],
  ['&gt; 2', '#006d2c'],
];
legend.forEach(([label, c], i) =>
  out.push(
    `<rect x="${R0.x + (i % 3) * 125}" y="${R0.y + R0.h + 46 + Math.floor(i / 3) * 16}" width="10" height="10" fill="${c}" stroke="#888"/><text x="${R0.x + 14 + (i % 3) * 125}" y="${R0.y + R0.h + 55 + Math.floor(i / 3) * 16}">${label}</text>`,
  ),
);
out.push(
  `<text x="10" y="${H - 8}" fill="#555">bench/overlap-model.mjs --o-us ${v['o-us']} --c-ns ${v['c-ns']} --copy-gbs ${v['copy-gbs']} (method cost and compute measured on the 2-core test machine)</text>`,
);
out.push('</svg>');
writeFileSync(v.svg, out.join('\n') + '\n');
console.log(`plot: ${v.svg}`);
