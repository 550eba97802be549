/**
 * `sarwatch api` and `sarwatch worker` processes of a scaled-out test, as an operator starts
 * them: each one's combined output, waiting for a line, and ending them all after the test.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import { REPO_ROOT, SARWATCH_BIN } from './cli.ts';
import { tempDataDir } from './service.ts';

export interface RoleProcess {
  role: 'api' | 'worker';
  child: ChildProcess;
  /** Everything written to stdout and stderr so far. */
  output(): string;
}

export interface RoleProcessOptions {
  /** Each process gets a data directory of its own (secrets only; the state is in PostgreSQL and S3). Default: the env's SARWATCH_DATA_DIR. */
  ownDataDir?: boolean;
  /** LOG_LEVEL per role (default info). */
  logLevel?: (role: 'api' | 'worker') => string;
}

export class RoleProcesses {
  /** Every process started, replacements included, in start order. */
  readonly started: RoleProcess[] = [];
  private readonly dirs: string[] = [];

  /** `env`: read at each start (a test's env is usually made in its beforeAll). */
  constructor(
    private readonly env: () => Record<string, string>,
    private readonly options: RoleProcessOptions = {},
  ) {}

  start(role: 'api' | 'worker'): RoleProcess {
    let out = '';
    const own: Record<string, string> = {};
    if (this.options.ownDataDir) {
      own.SARWATCH_DATA_DIR = tempDataDir();
      this.dirs.push(own.SARWATCH_DATA_DIR);
    }
    const child = spawn(process.execPath, [SARWATCH_BIN, role], {
      cwd: REPO_ROOT,
      env: { ...process.env, ...this.env(), ...own, LOG_LEVEL: this.options.logLevel?.(role) ?? 'info' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stdout!.on('data', (d) => (out += String(d)));
    child.stderr!.on('data', (d) => (out += String(d)));
    const proc = { role, child, output: () => out };
    this.started.push(proc);
    return proc;
  }

  /** Signals every process still running, waits for all to exit, removes their own data directories. */
  async stopAll(signal: NodeJS.Signals = 'SIGKILL'): Promise<void> {
    const running = this.started.map((p) => p.child).filter((c) => c.exitCode === null && c.signalCode === null);
    const exited = running.map((c) => new Promise((r) => c.once('exit', r)));
    for (const c of running) c.kill(signal);
    await Promise.all(exited);
    for (const dir of this.dirs) fs.rmSync(dir, { recursive: true, force: true });
  }
}

/** Waits until the process's output matches `pattern`; fails when it exits first or the time runs out, showing the output. */
export async function waitForOutput(p: RoleProcess, pattern: RegExp, timeoutMs = 600_000): Promise<RegExpExecArray> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const m = pattern.exec(p.output());
    if (m) return m;
    if (Date.now() > end || p.child.exitCode !== null) throw new Error(`no ${pattern} in:\n${p.output()}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}
