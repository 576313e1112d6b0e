// `npm start`: serve both APIs and refresh feeds on schedule until SIGINT/SIGTERM.
import { loadConfig, ConfigError } from './config/config.ts';
import { createApp } from './app.ts';
import { startServer } from './http/server.ts';
import { startScheduler } from './feeds/scheduler/scheduler.ts';

async function main(): Promise<void> {
  let config;
  try { config = loadConfig(); } catch (e) {
    if (e instanceof ConfigError) { console.error(`tidings: ${e.message}`); process.exit(2); }
    throw e;
  }
  const app = createApp(config);
  const { url } = await startServer(app);
  app.log.info({ url, dataDir: config.dataDir }, 'tidings is serving');
  if (config.schedulerEnabled) startScheduler(app);
  let closing = false;
  const stop = async (signal: string) => {
    if (closing) return;
    closing = true;
    app.log.info({ signal }, 'shutting down');
    await app.close();
    process.exit(0);
  };
  process.on('SIGINT', () => void stop('SIGINT'));
  process.on('SIGTERM', () => void stop('SIGTERM'));
}

await main();
