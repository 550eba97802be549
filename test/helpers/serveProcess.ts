/**
 * `sarwatch serve` as `npm start` runs it (`node bin/sarwatch.js serve`), in a child process of
 * its own: a fresh data directory with the once-per-run demo archive linked in first (the
 * child finds it complete and generates nothing), a free port on loopback, the URL and demo key
 * read from what it prints — the text a newcomer reads —, and a stop by SIGTERM that waits for
 * the exit (SIGKILL to its process group on timeout).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { freePort } from '../../bench/freePort.ts';
import { REPO_ROOT, SARWATCH_BIN } from './cli.ts';
import { linkDemoArchive } from './demoArchive.ts';
import { httpCaller, tempDataDir, type HttpCall } from './service.ts';
import { dropTestStore, testStoreEnv } from './services.ts';

export interface ServeProcess {
  child: ChildProcess;
  dataDir: string;
  /** The URL it printed ("is running at …"). */
  url: string;
  /** The key it printed ("Demo API key: …"). */
  demoKey: string;
  /** Everything written to stdout and stderr so far. */
  output(): string;
  /** Raw HTTP with the demo key unless `key` is given (null: no Authorization header); as TestService.http. */
  http: HttpCall;
  /** SIGTERM, then waits for the exit (SIGKILL to the group after `timeoutMs`); removes the data directory. */
  stop(timeoutMs?: number): Promise<{ code: number | null; signal: NodeJS.Signals | null; killed: boolean; cpuS: number | null }>;
}

/** What the service reads from its environment (src/config.ts): never inherited from the test run's own. */
const SERVICE_ENV = /^(SARWATCH_|HOST$|PORT$|DATABASE_URL$|REDIS_URL$|STORAGE_URL$|S3_|CATALOG_|CDSE_|PC_)/;

/** user + system CPU seconds of a running process and the children it has waited for (/proc; Linux). */
function cpuSecondsOf(pid: number): number | null {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return fields.slice(11, 15).reduce((s, f) => s + Number(f), 0) / 100;
  } catch {
    return null;
  }
}

function exited(child: ChildProcess): Promise<void> {
  return child.exitCode !== null || child.signalCode !== null ? Promise.resolve() : new Promise((r) => child.once('exit', () => r()));
}

/**
 * Starts `node bin/sarwatch.js serve` with `env` on top of the data directory, host, port and
 * the inherited environment (PATH, HOME…). A port taken between its choice and the child's
 * listen (EADDRINUSE) is retried with another, at most 3 times.
 */
export async function startServeProcess(env: Record<string, string> = {}, timeoutMs = 180_000): Promise<ServeProcess> {
  const dataDir = tempDataDir();
  try {
    await linkDemoArchive(path.join(dataDir, 'archive'));
    const inherited = Object.fromEntries(Object.entries(process.env).filter(([k]) => !SERVICE_ENV.test(k)));
    // SARWATCH_TEST_STORE=postgres: the child uses a PostgreSQL database made for its data directory.
    const storeEnv = await testStoreEnv(dataDir);
    for (let attempt = 1; ; attempt++) {
      const port = await freePort();
      const child = spawn(process.execPath, [SARWATCH_BIN, 'serve'], {
        cwd: REPO_ROOT,
        env: { ...inherited, ...storeEnv, SARWATCH_DATA_DIR: dataDir, HOST: '127.0.0.1', PORT: String(port), LOG_LEVEL: 'warn', ...env },
        stdio: ['ignore', 'pipe', 'pipe'],
        // Its own process group: a kill on timeout reaches whatever it started.
        detached: true,
      });
      let out = '';
      child.stdout!.on('data', (d) => (out += String(d)));
      child.stderr!.on('data', (d) => (out += String(d)));
      const deadline = Date.now() + timeoutMs;
      while (!/Demo API key: (\S+)/.test(out) && child.exitCode === null && child.signalCode === null && Date.now() < deadline) {
        await new Promise((r) => setTimeout(r, 100));
      }
      const key = /Demo API key: (\S+)/.exec(out)?.[1];
      if (!key) {
        if (child.exitCode === null && child.signalCode === null) {
          process.kill(-child.pid!, 'SIGKILL');
          await exited(child);
        } else if (/EADDRINUSE/.test(out) && attempt < 3) continue;
        throw new Error(`sarwatch serve printed no demo key (exit ${child.exitCode ?? child.signalCode ?? 'none, killed'}):\n${out}`);
      }
      const url = /is running at (http:\/\/\S+)/.exec(out)?.[1];
      // The linked archive is complete: a "Generated N demo products" line would mean it wrote into the shared cache.
      const wrong = url !== `http://127.0.0.1:${port}` ? `printed ${url ?? 'no URL'}, not http://127.0.0.1:${port}` : /Generated \d+ demo products/.test(out) ? 'generated the demo archive again' : '';
      if (wrong) {
        process.kill(-child.pid!, 'SIGKILL');
        await exited(child);
        throw new Error(`sarwatch serve ${wrong}:\n${out}`);
      }
      return {
        child,
        dataDir,
        url: `http://127.0.0.1:${port}`, // what it printed (checked above)
        demoKey: key,
        output: () => out,
        http: httpCaller(`http://127.0.0.1:${port}`, key), // = the printed URL (checked above)
        async stop(stopTimeoutMs = 45_000) {
          let killed = false;
          let cpuS: number | null = null;
          if (child.exitCode === null && child.signalCode === null) {
            cpuS = cpuSecondsOf(child.pid!);
            const done = exited(child);
            child.kill('SIGTERM');
            const timer = new Promise<'timeout'>((r) => setTimeout(() => r('timeout'), stopTimeoutMs).unref());
            if ((await Promise.race([done, timer])) === 'timeout') {
              killed = true;
              process.kill(-child.pid!, 'SIGKILL');
              await done;
            }
          }
          await dropTestStore(dataDir);
          fs.rmSync(dataDir, { recursive: true, force: true });
          return { code: child.exitCode, signal: child.signalCode, killed, cpuS };
        },
      };
    }
  } catch (e) {
    await dropTestStore(dataDir);
    fs.rmSync(dataDir, { recursive: true, force: true });
    throw e;
  }
}
