#!/usr/bin/env node
// Entry point: the compiled CLI lives in dist/ (npm run build).
import { main } from '../dist/src/cli/main.js';

process.exitCode = await main(process.argv.slice(2));
