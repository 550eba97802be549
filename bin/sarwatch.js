#!/usr/bin/env node
// The sarwatch command. It runs the sources precompiled into build/ (bin/build-src.js, made by
// `npm install`), after checking them against src/: a source edited since is rebuilt first (only
// what changed), so the command always runs the code in src/. When build/ cannot be brought up to
// date (no esbuild, a read-only install), or with SARWATCH_PRECOMPILED=0, the sources run through
// tsx's loader instead. Importing cli/main runs nothing: its runCli runs the command line and
// gives the exit code (−1: a role that keeps running until a signal).
import { freshBuild } from './build-src.js';

const { url, note } = process.env.SARWATCH_PRECOMPILED === '0' ? { url: null, note: null } : await freshBuild();
let cli;
if (url) {
  // build/'s source maps: an error's stack names the src/ .ts file and line, not build/'s .js.
  process.setSourceMapsEnabled(true);
  cli = await import(new URL('cli/main.js', url).href);
} else {
  if (note) console.error(`sarwatch: running the TypeScript sources through tsx: ${note}`);
  const { register } = await import('tsx/esm/api');
  register();
  cli = await import('../src/cli/main.ts');
}
const code = await cli.runCli(process.argv.slice(2));
if (code >= 0) process.exitCode = code;
