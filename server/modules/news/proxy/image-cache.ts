import { createHash } from 'node:crypto';
import { mkdir, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';

export interface CachedImage {
  contentType: string;
  body: Buffer;
}

interface Entry {
  size: number;
  storedAt: number;
}

/**
 * Proxied images on disk (`DATA_DIR/image-cache`), one file per URL named by its SHA-256: the first
 * line is the content type, the rest the bytes. The total size is bounded: the least recently used
 * files go first. Entries older than `ttlMs` are fetched again.
 */
export class ImageCache {
  /** Insertion order is recency order: a hit moves the entry to the end. */
  private readonly entries = new Map<string, Entry>();
  private total = 0;

  constructor(
    private readonly dir: string,
    private readonly maxBytes: number,
    private readonly ttlMs: number,
    private readonly now: () => number,
  ) {}

  /** Creates the folder and counts what an earlier run left there (oldest first). */
  async open(): Promise<void> {
    await mkdir(this.dir, { recursive: true });
    const found: { key: string; size: number; mtime: number }[] = [];
    for (const name of await readdir(this.dir)) {
      if (!/^[0-9a-f]{64}$/.test(name)) continue;
      const s = await stat(path.join(this.dir, name)).catch(() => null);
      if (s !== null) found.push({ key: name, size: s.size, mtime: s.mtimeMs });
    }
    found.sort((a, b) => a.mtime - b.mtime);
    for (const f of found) this.remember(f.key, { size: f.size, storedAt: f.mtime });
    await this.evict();
  }

  get bytes(): number {
    return this.total;
  }

  private static key(url: string): string {
    return createHash('sha256').update(url).digest('hex');
  }

  private remember(key: string, entry: Entry): void {
    const old = this.entries.get(key);
    if (old !== undefined) this.total -= old.size;
    this.entries.delete(key);
    this.entries.set(key, entry);
    this.total += entry.size;
  }

  async get(url: string): Promise<CachedImage | null> {
    const key = ImageCache.key(url);
    const entry = this.entries.get(key);
    if (entry === undefined) return null;
    if (this.now() - entry.storedAt > this.ttlMs) {
      await this.drop(key);
      return null;
    }
    const file = await readFile(path.join(this.dir, key)).catch(() => null);
    if (file === null) {
      await this.drop(key);
      return null;
    }
    const nl = file.indexOf(10);
    this.remember(key, entry);
    return { contentType: file.subarray(0, nl).toString('utf8'), body: file.subarray(nl + 1) };
  }

  async put(url: string, image: CachedImage): Promise<void> {
    const key = ImageCache.key(url);
    const data = Buffer.concat([Buffer.from(`${image.contentType}\n`), image.body]);
    if (data.length > this.maxBytes) return;
    await writeFile(path.join(this.dir, key), data);
    this.remember(key, { size: data.length, storedAt: this.now() });
    await this.evict();
  }

  private async drop(key: string): Promise<void> {
    const entry = this.entries.get(key);
    if (entry === undefined) return;
    this.entries.delete(key);
    this.total -= entry.size;
    await rm(path.join(this.dir, key), { force: true });
  }

  private async evict(): Promise<void> {
    for (const key of this.entries.keys()) {
      if (this.total <= this.maxBytes) return;
      await this.drop(key);
    }
  }
}
