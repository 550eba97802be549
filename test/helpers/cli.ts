/** Running `bin/sarwatch.js` as a user does, for the CLI tests: exit code, stdout and stderr. */
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';

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
