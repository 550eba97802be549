/** Minimal zip access for indexing: the entry names and the text of a few small entries. */
import yauzl from 'yauzl';

export interface ZipListing {
  entries: string[];
  /** Text of the entries whose names `want` accepted (decoded as UTF-8). */
  texts: Map<string, string>;
}

const MAX_TEXT_ENTRY = 16 * 1024 * 1024;

export function readZipListing(zipPath: string, want: (name: string) => boolean): Promise<ZipListing> {
  return new Promise((resolve, reject) => {
    yauzl.open(zipPath, { lazyEntries: true, autoClose: false }, (err, zip) => {
      if (err || !zip) {
        reject(err ?? new Error(`cannot open zip ${zipPath}`));
        return;
      }
      const entries: string[] = [];
      const texts = new Map<string, string>();
      let settled = false;
      const fail = (e: Error) => {
        if (settled) return;
        settled = true;
        zip.close();
        reject(e);
      };
      zip.on('error', fail);
      zip.on('end', () => {
        if (settled) return;
        settled = true;
        zip.close();
        resolve({ entries, texts });
      });
      zip.on('entry', (entry: yauzl.Entry) => {
        const name = entry.fileName;
        if (name.endsWith('/')) {
          zip.readEntry();
          return;
        }
        entries.push(name);
        if (!want(name) || entry.uncompressedSize > MAX_TEXT_ENTRY) {
          zip.readEntry();
          return;
        }
        zip.openReadStream(entry, (e2, stream) => {
          if (e2 || !stream) {
            fail(e2 ?? new Error(`cannot read ${name} in ${zipPath}`));
            return;
          }
          const chunks: Buffer[] = [];
          stream.on('data', (c: Buffer) => chunks.push(c));
          stream.on('error', fail);
          stream.on('end', () => {
            texts.set(name, Buffer.concat(chunks).toString('utf8'));
            zip.readEntry();
          });
        });
      });
      zip.readEntry();
    });
  });
}
