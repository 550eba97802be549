#!/usr/bin/env node
// `npm test`: the type checks (tsc on the sources, then on src/web) and the test files (vitest,
// arguments passed on) side by side, not one after the other. tsc runs on one core and vitest
// leaves part of the second idle (tests that wait on leases, timers and child processes), so
// the type checks run at a lower priority in that idle time instead of before every test. The
// exit code is non-zero when either fails; tsc's report is printed when it ends.
import { spawn } from 'node:child_process';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const bin = (name) => path.join(root, 'node_modules', '.bin', name);

/** Runs a command to its end: its exit code (1 when it could not start or was killed), and its output when `capture`. */
function run(command, args, { capture = false, priority = 0 } = {}) {
  return new Promise((resolve) => {
    const child = spawn(command, args, { cwd: root, stdio: capture ? ['ignore', 'pipe', 'pipe'] : 'inherit' });
    if (priority) {
      try {
        os.setPriority(child.pid, priority);
      } catch {
        // not allowed here: it runs at the same priority
      }
    }
    let output = '';
    if (capture) {
      child.stdout.on('data', (d) => (output += d));
      child.stderr.on('data', (d) => (output += d));
    }
    child.on('error', (err) => resolve({ code: 1, output: `${output}${err.message}\n` }));
    child.on('close', (code) => resolve({ code: code ?? 1, output }));
  });
}

async function typecheck() {
  const started = Date.now();
  for (const args of [['--noEmit'], ['--noEmit', '-p', 'src/web']]) {
    const { code, output } = await run(bin('tsc'), args, { capture: true, priority: 10 });
    if (code !== 0) return { ok: false, report: `tsc ${args.join(' ')} failed:\n${output}` };
  }
  return { ok: true, report: `tsc: no type errors (sources and src/web, ${((Date.now() - started) / 1000).toFixed(1)} s beside the tests)` };
}

const [types, tests] = await Promise.all([typecheck(), run(bin('vitest'), ['run', ...process.argv.slice(2)])]);
console.log(`\n${types.report.trimEnd()}`);
process.exit(types.ok && tests.code === 0 ? 0 : 1);
