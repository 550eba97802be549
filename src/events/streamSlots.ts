/**
 * The event-stream limit's port: how many streams each API key holds open. One backend per
 * file: this process's memory here (the embedded mode), Redis in redisStreamSlots.ts (scaled
 * out: one count for every API process of the deployment).
 */
export interface StreamSlots {
  readonly perKey: number;
  /** Takes one of the key's slots: a function that gives it back (once, however often called), or null when all are taken. */
  acquire(keyId: string): Promise<(() => void) | null>;
  close(): Promise<void>;
}

export class MemoryStreamSlots implements StreamSlots {
  private readonly open = new Map<string, number>();

  constructor(readonly perKey: number) {}

  async acquire(keyId: string): Promise<(() => void) | null> {
    const n = this.open.get(keyId) ?? 0;
    if (n >= this.perKey) return null;
    this.open.set(keyId, n + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const left = (this.open.get(keyId) ?? 1) - 1;
      if (left > 0) this.open.set(keyId, left);
      else this.open.delete(keyId);
    };
  }

  async close(): Promise<void> {}
}
