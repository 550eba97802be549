/** Running `bin/sarwatch.js` as a user does, for the CLI tests: exit code, stdout and stderr. */
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { expect } from 'vitest';

const run = promisify(execFile);
export const REPO_ROOT = path.resolve(import.meta.dirname, '../..');
export const SARWATCH_BIN = path.join(REPO_ROOT, 'bin/sarwatch.js');

export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

/** `sarwatch ARGS…` with SARWATCH_DATA_DIR = dataDir, from the repository root; never throws on a non-zero exit. */
export function runSarwatch(dataDir: string, ...args: string[]): Promise<CliRun> {
  return runSarwatchWithEnv({}, dataDir, ...args);
}

/** The same with more environment (e.g. the test store's DATABASE_URL). */
export async function runSarwatchWithEnv(env: Record<string, string>, dataDir: string, ...args: string[]): Promise<CliRun> {
  try {
    const { stdout, stderr } = await run(process.execPath, [SARWATCH_BIN, ...args], {
      env: { ...process.env, ...env, SARWATCH_DATA_DIR: dataDir },
      cwd: REPO_ROOT,
      maxBuffer: 64 << 20,
    });
    return { code: 0, stdout, stderr };
  } catch (e) {
    const err = e as { code: number; stdout: string; stderr: string };
    return { code: err.code, stdout: err.stdout, stderr: err.stderr };
  }
}

/**
 * The same command run in this process (src/cli/main.ts runCli, what bin/sarwatch.js calls): the
 * exit code it would exit with, and what it would write. For the usage checks and refusals that
 * need no process of their own: a `sarwatch` process costs its start-up (node, the command's
 * modules: ~0.3 CPU s for `--help`, ~1.3 for a command that opens the store, more under load) each
 * time, this process only once. A role that keeps running (serve, api, worker) needs a process.
 */
export async function runSarwatchInProcess(env: Record<string, string>, dataDir: string, ...args: string[]): Promise<CliRun> {
  const { runCli } = await import('../../src/cli/main.ts');
  let stdout = '';
  let stderr = '';
  const code = await runCli(args, {
    env: { ...process.env, ...env, SARWATCH_DATA_DIR: dataDir },
    stdout: (text) => void (stdout += text),
    stderr: (text) => void (stderr += text),
  });
  if (code < 0) throw new Error(`sarwatch ${args.join(' ')} keeps running: start it as a process`);
  return { code, stdout, stderr };
}

/**
 * `sarwatch analyze`'s usage refusal checked without a process: `attempt` (a runAnalyze call)
 * rejects with an error of class `usageError` — the one main() exits 2 with — whose message
 * matches `pattern`. One call: a refusal found only after reading the input (units from the
 * values, bands) costs a read each time.
 */
export async function expectRefused(attempt: () => Promise<unknown>, usageError: abstract new (...args: never[]) => Error, pattern: RegExp): Promise<void> {
  const error = await attempt().then(
    (value) => {
      throw new Error(`expected a refusal matching ${pattern}, got ${JSON.stringify(value)}`);
    },
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(usageError);
  expect((error as Error).message).toMatch(pattern);
}
