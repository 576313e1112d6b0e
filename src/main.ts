// `npm start`: serve both APIs and refresh feeds on schedule until SIGINT/SIGTERM.
import { loadConfig, ConfigError } from './config/config.ts';
import { createApp } from './app.ts';
import { StoreUnavailableError } from './store/store.ts';
import { startServer } from './http/server.ts';
import { startScheduler } from './feeds/scheduler/scheduler.ts';

async function main(): Promise<void> {
  let config;
  try { config = loadConfig(); } catch (e) {
    if (e instanceof ConfigError) { console.error(`tidings: ${e.message}`); process.exit(2); }
    throw e;
  }
  let app;
  try { app = await createApp(config); } catch (e) {
    if (e instanceof StoreUnavailableError) { console.error(`tidings: ${e.message}`); process.exit(2); }
    throw e;
  }
  let url: string;
  try {
    ({ url } = await startServer(app));
  } catch (e) {
    const err = e as NodeJS.ErrnoException;
    if (err.code === 'EADDRINUSE' || err.code === 'EACCES') {
      console.error(`tidings: cannot listen on ${config.host}:${config.port} (${err.code}): choose another port with TIDINGS_PORT=<port> (or another address with TIDINGS_HOST)`);
      await app.close();
      process.exit(2);
    }
    throw e;
  }
  app.log.info({ url, dataDir: config.dataDir }, 'tidings is serving');
  if (config.schedulerEnabled) startScheduler(app);
  if ((await app.users.list()).length === 0) {
    app.log.warn('no users yet: create one with `npx tidings user add <name> --password <password>`, then subscribe with `npx tidings feed add <name> <url>`');
  }
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
