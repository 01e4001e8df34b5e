// src/report/ansi.ts writes what chalk (level 2) writes, for every kind of text it may be given.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Chalk } from 'chalk';
import { bgAnsi256, bold, green, red, yellow } from '../src/report/ansi.js';

const chalk = new Chalk({ level: 2 });
const texts = [
  '',
  'x',
  'site 1  MPI_Send',
  'two\nlines',
  'crlf\r\nend\n',
  '\n',
  'in \u001B[1mbold\u001B[22m here',
  'yellow \u001B[33minside\u001B[39m and \u001B[39m twice',
  `${'\u001B[48;5;196m  \u001B[49m'}\nnext`,
  '✔ ünïcödé ←',
];

describe('ansi: the bytes chalk writes', () => {
  it('bold, yellow, green, red and 256-colour backgrounds', () => {
    for (const s of texts) {
      assert.equal(bold(s), chalk.bold(s), JSON.stringify(s));
      assert.equal(yellow(s), chalk.yellow(s), JSON.stringify(s));
      assert.equal(green(s), chalk.green(s), JSON.stringify(s));
      assert.equal(red(s), chalk.red(s), JSON.stringify(s));
      for (const n of [0, 166, 196, 236, 240]) assert.equal(bgAnsi256(n)(s), chalk.bgAnsi256(n)(s), `${n} ${JSON.stringify(s)}`);
    }
    assert.equal(bold('a\nb'), '\u001B[1ma\u001B[22m\n\u001B[1mb\u001B[22m');
  });
});
