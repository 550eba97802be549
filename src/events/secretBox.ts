/**
 * Webhook signing secrets at rest. A secret must stay readable (the sender signs with it),
 * so it cannot be hashed like an API key; it is sealed with AES-256-GCM under a key kept
 * outside the store (SARWATCH_WEBHOOK_SECRET_KEY, or a key file in the data directory), so
 * a copy of the database alone does not reveal it. The sealed text names the key by a short
 * fingerprint, so a process holding another key says so instead of failing obscurely.
 */
import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';

export class SecretBoxError extends Error {}

export class SecretBox {
  private readonly fingerprint: string;

  constructor(private readonly key: Buffer) {
    if (key.length !== 32) throw new SecretBoxError('the webhook secret key must be 32 bytes (base64 of 32 random bytes)');
    this.fingerprint = createHash('sha256').update(key).digest('hex').slice(0, 8);
  }

  seal(plain: string): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv);
    const body = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
    return ['v1', this.fingerprint, iv.toString('base64url'), body.toString('base64url'), cipher.getAuthTag().toString('base64url')].join('.');
  }

  open(sealed: string): string {
    const [version, fingerprint, iv, body, tag] = sealed.split('.');
    if (version !== 'v1' || !iv || body === undefined || !tag) throw new SecretBoxError('not a sealed webhook secret');
    if (fingerprint !== this.fingerprint) {
      throw new SecretBoxError(`this webhook secret was sealed with key ${fingerprint}, this process has key ${this.fingerprint}: give every process the same SARWATCH_WEBHOOK_SECRET_KEY`);
    }
    const decipher = createDecipheriv('aes-256-gcm', this.key, Buffer.from(iv, 'base64url'));
    decipher.setAuthTag(Buffer.from(tag, 'base64url'));
    return Buffer.concat([decipher.update(Buffer.from(body, 'base64url')), decipher.final()]).toString('utf8');
  }
}
