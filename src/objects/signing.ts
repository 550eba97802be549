/**
 * HMAC-signed object URLs for the local object store. The signature covers the key, the
 * expiry, the download filename and the content type, so none of them can be altered.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';

export interface SignedParams {
  expires: number;
  filename: string;
  type: string;
}

function mac(secret: Buffer, key: string, p: SignedParams): Buffer {
  return createHmac('sha256', secret).update(`${key}\n${p.expires}\n${p.filename}\n${p.type}`).digest();
}

export function signObjectUrl(basePath: string, secret: Buffer, key: string, p: SignedParams): string {
  const q = new URLSearchParams({
    expires: String(p.expires),
    filename: p.filename,
    type: p.type,
    sig: mac(secret, key, p).toString('base64url'),
  });
  return `${basePath}/${key.split('/').map(encodeURIComponent).join('/')}?${q.toString()}`;
}

export type SignatureCheck = { ok: true; params: SignedParams } | { ok: false; reason: 'invalid' | 'expired' };

export function verifyObjectSignature(secret: Buffer, key: string, query: Record<string, unknown>, nowSeconds = Date.now() / 1000): SignatureCheck {
  const { expires, filename, type, sig } = query as Record<string, string | undefined>;
  if (typeof expires !== 'string' || typeof filename !== 'string' || typeof type !== 'string' || typeof sig !== 'string') {
    return { ok: false, reason: 'invalid' };
  }
  const params = { expires: Number(expires), filename, type };
  if (!Number.isInteger(params.expires)) return { ok: false, reason: 'invalid' };
  const expected = mac(secret, key, params);
  const given = Buffer.from(sig, 'base64url');
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return { ok: false, reason: 'invalid' };
  if (params.expires < nowSeconds) return { ok: false, reason: 'expired' };
  return { ok: true, params };
}
