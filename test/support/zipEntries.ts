import * as yauzl from 'yauzl';

export interface ZipEntry {
  path: string;
  /** Uncompressed size in bytes. */
  size: number;
}

/** The entries of a zip file (a .vsix), read from its central directory with yauzl. */
export function zipEntries(file: string): Promise<ZipEntry[]> {
  return new Promise((resolve, reject) => {
    yauzl.open(file, { lazyEntries: true, autoClose: true }, (err, zip) => {
      if (err || !zip) return reject(err ?? new Error(`cannot open ${file}`));
      const entries: ZipEntry[] = [];
      zip.on('entry', (e: yauzl.Entry) => {
        entries.push({ path: e.fileName, size: e.uncompressedSize });
        zip.readEntry();
      });
      zip.once('end', () => resolve(entries));
      zip.once('error', reject);
      zip.readEntry();
    });
  });
}

/** One entry's content as UTF-8 text. */
export function readZipEntry(file: string, path: string): Promise<string> {
  return new Promise((resolve, reject) => {
    yauzl.open(file, { lazyEntries: true, autoClose: true }, (err, zip) => {
      if (err || !zip) return reject(err ?? new Error(`cannot open ${file}`));
      zip.on('entry', (e: yauzl.Entry) => {
        if (e.fileName !== path) return zip.readEntry();
        zip.openReadStream(e, (streamErr, stream) => {
          if (streamErr || !stream) return reject(streamErr ?? new Error(`cannot read ${path} in ${file}`));
          const chunks: Buffer[] = [];
          stream.on('data', (c: Buffer) => chunks.push(c));
          stream.once('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
          stream.once('error', reject);
        });
      });
      zip.once('end', () => reject(new Error(`${path} is not in ${file}`)));
      zip.once('error', reject);
      zip.readEntry();
    });
  });
}
