// binary-parser 2.3 ships its types next to the CommonJS build only: its "exports" give the
// ES module no "types" entry, so TypeScript (NodeNext) is pointed at the same declarations here.
declare module 'binary-parser' {
  export { Parser } from 'binary-parser/dist/binary_parser.js';
}
