/**
 * The demo archive (seed 20240613, full scale: what `npm start` writes), made once per machine
 * and shared by the test files that run on it (issue 19 §3). test/globalSetup.ts generates it
 * before a run into <tmp>/sarwatch-test-cache, in a folder keyed by DEMO_ARCHIVE_VERSION and a
 * hash of the generator's sources (src/synth), so a changed generator makes a new one; each
 * test links it into its own archive folder and only reads it. test/cli/cli.test.ts still
 * generates its own: the first `npm start` doing so is what it checks.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { DEMO_ARCHIVE_VERSION, generateDemoArchive, type DemoArchiveResult } from '../../src/synth/index.ts';

/** The seed `sarwatch serve` uses (src/cli/main.ts). */
export const DEMO_SEED = 20240613;

function generatorHash(): string {
  const root = path.resolve(import.meta.dirname, '../../src/synth');
  const hash = createHash('sha256');
  const files = (fs.readdirSync(root, { recursive: true }) as string[]).filter((f) => f.endsWith('.ts')).sort();
  for (const f of files) hash.update(f).update('\0').update(fs.readFileSync(path.join(root, f))).update('\0');
  return hash.digest('hex').slice(0, 12);
}

export const DEMO_CACHE_DIR = path.join(os.tmpdir(), 'sarwatch-test-cache', `demo-v${DEMO_ARCHIVE_VERSION}-seed${DEMO_SEED}-${generatorHash()}`);

/** Generates the cached demo archive unless it is there already (globalSetup; one process). */
export function ensureDemoArchiveCache(): Promise<DemoArchiveResult> {
  return generateDemoArchive(DEMO_CACHE_DIR, { seed: DEMO_SEED });
}

/** Links the cached demo archive in as `<archiveDir>/demo`; its products and truth files. */
export async function linkDemoArchive(archiveDir: string): Promise<DemoArchiveResult> {
  fs.mkdirSync(archiveDir, { recursive: true });
  const link = path.join(archiveDir, 'demo');
  fs.symlinkSync(DEMO_CACHE_DIR, link, 'dir');
  const demo = await generateDemoArchive(link, { seed: DEMO_SEED });
  if (demo.generated) throw new Error(`the demo archive was not in ${DEMO_CACHE_DIR}: test/globalSetup.ts makes it before a run`);
  return demo;
}

/**
 * Areas of the demo port scene (src/synth/demo.ts; 2024-06-13 and 2024-06-25, 40 × 40 km).
 * A job's CPU grows with its area (measured in-process with warm pool threads: a ship job 5.2
 * CPU s on the port box, 1.9 on the anchorage; an oil-slick job 8.5 on the port box, 2.2 on
 * the slick's area), so a test whose rule does not need the whole box runs on the part that
 * holds what it checks.
 */
/** The port box `npm start` prints in its curl example (about 450 km²). */
export const DEMO_PORT = 'POLYGON ((4.2 52.38, 4.5 52.38, 4.5 52.58, 4.2 52.58, 4.2 52.38))';
/** The anchorage (a third of the port box): the six anchored ships of 2024-06-13 (120–300 m), five of 2024-06-25. */
export const DEMO_ANCHORAGE = 'POLYGON ((4.2 52.48, 4.4 52.48, 4.4 52.58, 4.2 52.58, 4.2 52.48))';
/** The oil slick of 2024-06-13 whole, behind its polluter (a sixth of the port box). */
export const DEMO_SLICK_AREA = 'POLYGON ((4.22 52.355, 4.36 52.355, 4.36 52.42, 4.22 52.42, 4.22 52.355))';
