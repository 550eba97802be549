/**
 * Standard Webhooks signing (https://www.standardwebhooks.com): `webhook-id`,
 * `webhook-timestamp` (Unix seconds) and `webhook-signature`, a space-separated list of
 * `v1,<base64 HMAC-SHA256 of "id.timestamp.body">`, one per secret in force — two during
 * the 24 h after a rotation, so a receiver holding either secret verifies the delivery.
 * The signing itself is the specification's own library (`standardwebhooks`).
 */
import { randomBytes } from 'node:crypto';
import { Webhook } from 'standardwebhooks';

export const SECRET_PREFIX = 'whsec_';

/** A new signing secret: `whsec_` + base64 of 32 random bytes (shown to the account once). */
export function newWebhookSecret(): string {
  return SECRET_PREFIX + randomBytes(32).toString('base64');
}

export function signatureHeader(secrets: readonly string[], eventId: string, timestamp: Date, body: string): string {
  return secrets.map((s) => new Webhook(s).sign(eventId, timestamp, body)).join(' ');
}

export function webhookHeaders(secrets: readonly string[], eventId: string, timestamp: Date, body: string): Record<string, string> {
  return {
    'content-type': 'application/json',
    'user-agent': 'sarwatch-webhooks',
    'webhook-id': eventId,
    'webhook-timestamp': String(Math.floor(timestamp.getTime() / 1000)),
    'webhook-signature': signatureHeader(secrets, eventId, timestamp, body),
  };
}
