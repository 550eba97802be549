/**
 * Parsed SAFE XML (annotation, calibration, noise) kept once per machine: every analysis thread
 * of every worker process that runs a scene's tiles opens the product itself, and parsing its
 * XML cost each one ~0.6 s (issue 20 §2). What a parser gave is written v8-serialised (plain
 * data and typed arrays) into a folder under the OS temp folder, named by a digest of the XML
 * text, of the parsers' own source and of the installed fast-xml-parser's version, so a changed
 * file, a changed parser or an updated XML library is a miss, never a stale hit. The first thread to parse writes it (aside, then renamed: a reader never sees half
 * a file); the others read it back in a few ms. At most MAX_FILES stay (oldest removed first);
 * a folder that cannot be written, or is not this user's own and private, only costs the parse.
 */
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, statSync, unlinkSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import v8 from 'node:v8';
import { MACHINE_CACHE_DIR, ownPrivateDir, writeAside } from '../../privateFiles.ts';

// A full scene keeps 6 (3 kinds × 2 bands), ≤ 0.5 MB each: ≤ ~50 MB in all.
const MAX_FILES = 120;

let defaultDir = path.join(MACHINE_CACHE_DIR, 'safe-xml');

/** Where parsed XML is kept ('' = nowhere: every open parses). Tests point it at their own folder. */
export function setParseCacheDir(dir: string): void {
  defaultDir = dir;
}

let codeDigest: string | null | undefined;
/** Folders checked to be this user's own (ownPrivateDir), by path. */
const trusted = new Map<string, boolean>();

/** The XML library the parsers stand on (src/imagery/xml.ts): its output is theirs. */
const XML_LIBRARY = 'fast-xml-parser';

/**
 * The version of the installed package `name`, read from its package.json (found above the file
 * it resolves to, as its `exports` do not list package.json); null when it cannot be read.
 */
export function installedVersion(name: string): string | null {
  try {
    let dir = path.dirname(createRequire(import.meta.url).resolve(name));
    for (;;) {
      try {
        const pkg = JSON.parse(readFileSync(path.join(dir, 'package.json'), 'utf8')) as { name?: unknown; version?: unknown };
        if (pkg.name === name && typeof pkg.version === 'string') return pkg.version;
      } catch {
        // no package.json here (or not JSON): look further up
      }
      const up = path.dirname(dir);
      if (up === dir) return null;
      dir = up;
    }
  } catch {
    return null;
  }
}

/**
 * A digest of the parsers' source (this folder's parser modules and the XML helpers they use) and
 * of the XML library's version (`xmlLibraryVersion`, by default the installed one), the default
 * read once: null when any of them cannot be read, and then nothing is cached.
 */
export function parsersDigest(xmlLibraryVersion?: string | null): string | null {
  const installed = xmlLibraryVersion === undefined;
  if (installed && codeDigest !== undefined) return codeDigest;
  const version = installed ? installedVersion(XML_LIBRARY) : xmlLibraryVersion;
  const ext = path.extname(fileURLToPath(import.meta.url));
  const files = ['./annotation', './calibration', './noise', '../xml'].map((f) => fileURLToPath(new URL(`${f}${ext}`, import.meta.url)));
  let digest: string | null = null;
  if (version) {
    try {
      const hash = createHash('sha256');
      for (const f of files) hash.update(readFileSync(f));
      hash.update(`\0${XML_LIBRARY}@${version}`);
      digest = hash.digest('hex').slice(0, 16);
    } catch {
      digest = null;
    }
  }
  if (installed) codeDigest = digest;
  return digest;
}

/** The name a parse is kept under: the parsers' digest, the kind of XML and the XML text. */
export function parseCacheKey(code: string, kind: string, xml: string): string {
  return createHash('sha256').update(code).update('\0').update(kind).update('\0').update(xml).digest('hex');
}

/** `parse(xml)`, or what it gave for the same XML and parser before (on any thread or process of this machine). */
export function cachedParse<T>(kind: string, xml: string, parse: (xml: string) => T): T {
  const dir = defaultDir;
  const code = dir ? parsersDigest() : null;
  if (!code) return parse(xml);
  if (!trusted.has(dir)) trusted.set(dir, ownPrivateDir(dir));
  if (!trusted.get(dir)) return parse(xml);
  const file = path.join(dir, `${kind}-${parseCacheKey(code, kind, xml)}.v8`);
  try {
    return v8.deserialize(readFileSync(file)) as T;
  } catch {
    // not kept yet (or unreadable): parsed below
  }
  const parsed = parse(xml);
  // Read-only or full: the next open parses again.
  if (writeAside(file, v8.serialize(parsed))) {
    try {
      trim(dir);
    } catch {
      // the folder went away meanwhile: trimmed by the next write
    }
  }
  return parsed;
}

/** Keeps the folder to MAX_FILES kept parses, removing the oldest. */
function trim(dir: string): void {
  const names = readdirSync(dir).filter((n) => n.endsWith('.v8'));
  if (names.length <= MAX_FILES) return;
  const aged = names
    .map((n) => {
      try {
        return { n, t: statSync(path.join(dir, n)).mtimeMs };
      } catch {
        return null;
      }
    })
    .filter((x): x is { n: string; t: number } => x !== null)
    .sort((a, b) => a.t - b.t);
  for (const { n } of aged.slice(0, aged.length - MAX_FILES)) {
    try {
      unlinkSync(path.join(dir, n));
    } catch {
      // removed by another process meanwhile
    }
  }
}
