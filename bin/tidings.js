#!/usr/bin/env node
// Thin launcher: checks the Node version, then hands over to the CLI. In a checkout Node 24 runs
// the TypeScript sources directly (type stripping); an installed package (npm pack, npm install -g)
// ships the JavaScript compiled by `prepack` in dist/, because Node does not strip types of files
// under node_modules.
import '../scripts/check-node.js';
import { commandOf, setUpProcess } from '../scripts/process-setup.js';
import { existsSync } from 'node:fs';

setUpProcess(process.argv);

const source = new URL('../src/cli/main.ts', import.meta.url);
const installed = import.meta.url.includes('/node_modules/') || !existsSync(source);
const { main } = await import(installed ? '../dist/src/cli/main.js' : source.href);
// The subcommand, so that the CLI loads only its code (src/cli/main.ts, COMMAND_MODULES).
await main(process.argv, commandOf(process.argv.slice(2)));
