#!/usr/bin/env node
// Thin launcher: checks the Node version, then hands over to the TypeScript CLI,
// which Node 24 runs directly (type stripping), so there is no build step.
import '../scripts/check-node.js';
const { main } = await import('../src/cli/main.ts');
await main(process.argv);
