// Kept for `node src/main.ts` from older instructions: the same as `tidings serve [flags]`.
import '../scripts/check-node.js';
import { setUpProcess } from '../scripts/process-setup.js';

setUpProcess(process.argv, { serve: true });
const { main } = await import('./cli/main.ts');
await main([process.argv[0], process.argv[1], 'serve', ...process.argv.slice(2)], 'serve');
