#!/usr/bin/env node
// Entry point: the compiled CLI lives in dist/ (npm run build).
import module from 'node:module';

// Node 22.1+ keeps V8's compiled code of mpii's modules between runs (a faster start); Node 20
// has no such cache and skips this. Before the import below, so that it covers every module.
module.enableCompileCache?.();
// A reader that stops early (`mpii report DIR | head`) closes the pipe: stop quietly, as other
// command-line programs do on SIGPIPE, instead of a stack trace for the EPIPE of the next write.
for (const out of [process.stdout, process.stderr]) {
  out.on('error', (e) => {
    if (e.code === 'EPIPE') process.exit(0);
    throw e;
  });
}
const { main } = await import('../dist/src/cli/main.js');

process.exitCode = await main(process.argv.slice(2));
