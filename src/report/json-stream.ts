// `mpii report --json` written piece by piece: a big job's per-rank rows (the monitor's peers of
// every rank) are made one rank at a time and written out, never held as one string (V8's
// longest is 512 MiB) or as one tree of objects.
import { writeSync } from 'node:fs';

/** An array whose items are made when it is written (writeJson), one at a time. Anything else
 *  that serialises it (JSON.stringify) gets the whole array. */
export class JsonStream {
  constructor(readonly items: () => Iterable<unknown>) {}

  toJSON(): unknown {
    return placeholder ?? [...this.items()];
  }
}

/** While writeJson serialises the rest: what a JsonStream stands as, found again in the text. */
let placeholder: string | undefined;

/** Writes `value` as JSON.stringify(value, null, indent ? 2 : undefined) would, plus a newline,
 *  in pieces through `write`; a JsonStream's items are made and written one at a time. */
export function writeJson(value: unknown, write: (s: string) => void, indent: boolean): void {
  const streams: JsonStream[] = [];
  const token = `@@mpii-json-stream-${process.pid}-${Math.random().toString(36).slice(2)}@@`;
  placeholder = token;
  let text: string;
  try {
    // the rest is small: the native serialiser, with each stream standing as a numbered string
    text =
      JSON.stringify(
        value,
        function (this: Record<string, unknown>, key: string, v: unknown) {
          if (this[key] instanceof JsonStream) return `${token}${streams.push(this[key] as JsonStream) - 1}`;
          return v;
        },
        indent ? 2 : undefined,
      ) ?? 'undefined';
  } finally {
    placeholder = undefined;
  }
  const at = new RegExp(`"${token}(\\d+)"`, 'g');
  let from = 0;
  for (let m = at.exec(text); m; m = at.exec(text)) {
    write(text.slice(from, m.index));
    // the stream's depth: the indent of the line it is on
    const line = text.lastIndexOf('\n', m.index) + 1;
    const pad = indent ? text.slice(line, line + /^ */.exec(text.slice(line, m.index))![0].length) : '';
    let n = 0;
    for (const item of streams[Number(m[1])].items()) {
      const s = JSON.stringify(item, null, indent ? 2 : undefined) ?? 'null';
      write(`${n++ ? ',' : '['}${indent ? `\n${pad}  ${s.replaceAll('\n', `\n${pad}  `)}` : s}`);
    }
    write(n ? `${indent ? `\n${pad}` : ''}]` : '[]');
    from = m.index + m[0].length;
  }
  write(`${text.slice(from)}\n`);
}

/** A writer to a file descriptor (stdout: 1) that writes in blocks of about a MiB. */
export function blockWriter(fd: number): { write: (s: string) => void; end: () => void } {
  let parts: string[] = [];
  let size = 0;
  const flush = () => {
    const buf = Buffer.from(parts.join(''));
    parts = [];
    size = 0;
    for (let off = 0; off < buf.length;) {
      try {
        off += writeSync(fd, buf, off);
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code !== 'EAGAIN') throw e;
        Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 1); // a non-blocking pipe that is full: wait for the reader
      }
    }
  };
  return {
    write: (s) => {
      parts.push(s);
      size += s.length;
      if (size >= 1 << 20) flush();
    },
    end: () => {
      if (size) flush();
    },
  };
}
