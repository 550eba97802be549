/**
 * Issue 21 §2, the rules of webhook delivery one by one: the Standard Webhooks test vector,
 * the SSRF guard, backoff with jitter, sealed secrets, and the 24 h limits (retries end,
 * a webhook failing for 24 h is disabled and says why) with time injected, never slept.
 */
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signatureHeader, webhookHeaders } from '../../src/events/signing.ts';
import { checkWebhookUrl, isForbiddenAddress, resolveTarget } from '../../src/events/ssrf.ts';
import { retryDelayMs, RETRY_WINDOW_MS } from '../../src/events/backoff.ts';
import { SecretBox } from '../../src/events/secretBox.ts';
import { openStore, type Db } from '../../src/store/index.ts';
import { createAccount } from '../../src/jobs/accounts.ts';
import { recordEvent } from '../../src/jobs/outbox.ts';
import { fanOutEvent } from '../../src/events/transitions/fanOut.ts';
import { claimDelivery } from '../../src/events/transitions/claimDelivery.ts';
import { finishAttempt } from '../../src/events/transitions/finishAttempt.ts';
import { sendWebhook } from '../../src/events/send.ts';
import { dropTestStore, testStoreEnv } from '../helpers/services.ts';
import { tempDataDir } from '../helpers/service.ts';

describe('Standard Webhooks signing', () => {
  it("matches the specification's published test vector", () => {
    // standard-webhooks spec / reference libraries: this secret, id, timestamp and payload sign to this value.
    const sig = signatureHeader(['whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw'], 'msg_p5jXN8AQM9LWM0D4loKWxJek', new Date(1614265330_000), '{"test": 2432232314}');
    expect(sig).toBe('v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=');
  });

  it('sends one signature per secret in force, space-separated, and the headers the spec names', () => {
    const h = webhookHeaders(['whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw', 'whsec_' + Buffer.alloc(32, 1).toString('base64')], 'evt_1', new Date(1614265330_000), '{}');
    expect(h['webhook-id']).toBe('evt_1');
    expect(h['webhook-timestamp']).toBe('1614265330');
    expect(h['webhook-signature']!.split(' ')).toHaveLength(2);
    expect(h['webhook-signature']!.split(' ').every((s) => s.startsWith('v1,'))).toBe(true);
  });
});

describe('SSRF guard', () => {
  it('refuses loopback, private, link-local/metadata, shared, multicast and reserved addresses (IPv4, IPv6, IPv4-mapped)', () => {
    for (const a of ['127.0.0.1', '10.1.2.3', '172.16.0.1', '172.31.255.255', '192.168.1.1', '169.254.169.254', '100.64.0.1', '0.0.0.0', '224.0.0.1', '255.255.255.255', '::1', '::', 'fe80::1', 'fd00:ec2::254', 'fc00::1', '::ffff:127.0.0.1', '::ffff:10.0.0.1', 'ff02::1']) {
      expect(isForbiddenAddress(a), a).toBe(true);
    }
    for (const a of ['8.8.8.8', '1.1.1.1', '172.32.0.1', '2606:4700:4700::1111', '::ffff:8.8.8.8']) expect(isForbiddenAddress(a), a).toBe(false);
  });

  it('a webhook URL must be https, without credentials, not a private literal nor a local name — unless private targets are allowed', () => {
    expect(() => checkWebhookUrl('http://example.com/hook', false)).toThrow(/https/);
    expect(() => checkWebhookUrl('https://user:pw@example.com/hook', false)).toThrow(/credentials/);
    expect(() => checkWebhookUrl('https://127.0.0.1/hook', false)).toThrow(/loopback/);
    expect(() => checkWebhookUrl('https://[::1]:8443/hook', false)).toThrow(/loopback/);
    expect(() => checkWebhookUrl('https://169.254.169.254/latest', false)).toThrow(/link-local/);
    expect(() => checkWebhookUrl('https://localhost/hook', false)).toThrow(/local host/);
    expect(() => checkWebhookUrl('ftp://example.com/', false)).toThrow(/https/);
    expect(checkWebhookUrl('https://hooks.example.com/x?y=1', false).hostname).toBe('hooks.example.com');
    expect(checkWebhookUrl('http://127.0.0.1:9/hook', true).port).toBe('9');
  });

  it('the address is checked after DNS resolution: a name resolving to loopback is refused at send time, and nothing is sent', async () => {
    await expect(resolveTarget('localhost', false)).rejects.toThrow(/loopback/);
    expect((await resolveTarget('localhost', true)).address).toMatch(/^(127\.0\.0\.1|::1)$/);
    const out = await sendWebhook({ url: 'https://localhost:1/hook', headers: {}, body: '{}', timeoutMs: 1000, allowPrivate: false });
    expect(out).toMatchObject({ ok: false, statusCode: null });
    expect(out.error).toMatch(/resolves to a loopback/);
  });
});

describe('backoff', () => {
  it('doubles from the base with jitter in [0.5, 1), capped at an hour', () => {
    expect(retryDelayMs(1, 5000, () => 0)).toBe(2500);
    expect(retryDelayMs(1, 5000, () => 0.999999)).toBe(5000);
    expect(retryDelayMs(3, 5000, () => 0)).toBe(10_000);
    expect(retryDelayMs(4, 5000, () => 0.5)).toBe(30_000);
    expect(retryDelayMs(30, 5000, () => 0.999999)).toBeGreaterThan(3599_990);
    expect(retryDelayMs(30, 5000, () => 0.999999)).toBeLessThanOrEqual(3600_000);
    const spread = new Set(Array.from({ length: 50 }, () => retryDelayMs(5, 5000)));
    expect(spread.size).toBeGreaterThan(40);
  });
});

describe('sealed secrets', () => {
  it('round-trips; another key refuses with a message naming both key fingerprints; tampering is detected', () => {
    const a = new SecretBox(Buffer.alloc(32, 1));
    const sealed = a.seal('whsec_abc');
    expect(sealed).not.toContain('abc');
    expect(a.open(sealed)).toBe('whsec_abc');
    expect(() => new SecretBox(Buffer.alloc(32, 2)).open(sealed)).toThrow(/sealed with key [0-9a-f]{8}, this process has key [0-9a-f]{8}/);
    const parts = sealed.split('.');
    parts[3] = Buffer.from('whsec_abd').toString('base64url');
    expect(() => a.open(parts.join('.'))).toThrow();
  });
});

describe('24 h limits (time injected)', () => {
  let db: Db;
  let dataDir: string;
  let accountId: string;
  beforeAll(async () => {
    dataDir = tempDataDir();
    const env = await testStoreEnv(dataDir);
    db = await openStore(env.DATABASE_URL ?? `sqlite:${path.join(dataDir, 'sw.db')}`);
    ({ accountId } = await createAccount(db, { name: 'rules', credits: 0 }));
  });
  afterAll(async () => {
    await db?.destroy();
    await dropTestStore(dataDir);
  });

  async function hookAndDelivery(t0: Date) {
    const id = randomUUID();
    const at = t0.toISOString();
    await db.insertInto('webhooks').values({ id, account_id: accountId, url: 'https://example.com/h', events: '["job.failed"]', secret: 'x', created_at: at, updated_at: at }).execute();
    const eventId = await recordEvent(db, { accountId, type: 'job.failed', data: { job_id: 'j' }, now: at });
    // Earlier tests' webhooks of the account are subscribed too: one delivery each.
    const ids = await fanOutEvent(db, { id: eventId, account_id: accountId, type: 'job.failed', created_at: at }, t0);
    // The fan-out is idempotent: a second pass (another process) creates nothing.
    expect(await fanOutEvent(db, { id: eventId, account_id: accountId, type: 'job.failed', created_at: at }, t0)).toEqual([]);
    const mine = await db.selectFrom('webhook_deliveries').select('id').where('webhook_id', '=', id).where('event_id', '=', eventId).executeTakeFirstOrThrow();
    expect(ids).toContain(mine.id);
    return { hookId: id, deliveryId: mine.id };
  }
  const fail = { ok: false, statusCode: 500, error: 'HTTP 500', body: 'no' };

  it('a delivery is claimed once at a time; retries end when the next try would pass 24 h after the event', async () => {
    const t0 = new Date('2026-01-01T00:00:00Z');
    const { deliveryId } = await hookAndDelivery(t0);
    const d = await claimDelivery(db, deliveryId, 'a', t0, 60_000);
    expect(d).not.toBeNull();
    expect(await claimDelivery(db, deliveryId, 'b', t0, 60_000)).toBeNull();
    const t1 = new Date(t0.getTime() + 1000);
    const r1 = await finishAttempt(db, d!, 'a', fail, t1, new Date(t1.getTime() + 5000));
    expect(r1!.delivery).toMatchObject({ status: 'pending', next_attempt_at: new Date(t1.getTime() + 5000).toISOString(), last_status_code: 500 });
    // Not due yet; then due.
    expect(await claimDelivery(db, deliveryId, 'a', t1, 60_000)).toBeNull();
    const late = new Date(t0.getTime() + RETRY_WINDOW_MS - 60_000);
    const d2 = await claimDelivery(db, deliveryId, 'a', late, 60_000);
    const r2 = await finishAttempt(db, d2!, 'a', fail, late, new Date(late.getTime() + 120_000));
    expect(r2!.delivery).toMatchObject({ status: 'failed', next_attempt_at: null, attempts: 2 });
  });

  it('a webhook whose deliveries fail for 24 h is disabled, with the reason on the webhook; a success before that ends the streak', async () => {
    const t0 = new Date('2026-02-01T00:00:00Z');
    const { hookId, deliveryId } = await hookAndDelivery(t0);
    let d = await claimDelivery(db, deliveryId, 'a', t0, 60_000);
    await finishAttempt(db, d!, 'a', fail, t0, new Date(t0.getTime() + 1000));
    expect((await db.selectFrom('webhooks').selectAll().where('id', '=', hookId).executeTakeFirstOrThrow()).failing_since).toBe(t0.toISOString());
    const t1 = new Date(t0.getTime() + RETRY_WINDOW_MS - 1000);
    d = await claimDelivery(db, deliveryId, 'a', t1, 60_000);
    const notYet = await finishAttempt(db, d!, 'a', fail, t1, new Date(t1.getTime() + 500));
    expect(notYet!.disabled).toBe(false);
    const t2 = new Date(t0.getTime() + RETRY_WINDOW_MS);
    d = await claimDelivery(db, deliveryId, 'a', t2, 60_000);
    const r = await finishAttempt(db, d!, 'a', { ok: false, statusCode: null, error: 'connection failed (ECONNREFUSED)', body: null }, t2, new Date(t2.getTime() + 500));
    expect(r!.disabled).toBe(true);
    const hook = await db.selectFrom('webhooks').selectAll().where('id', '=', hookId).executeTakeFirstOrThrow();
    expect(hook.disabled_at).toBe(t2.toISOString());
    expect(hook.disabled_reason).toMatch(/^every delivery failed for 24 hours \(last attempt .*: connection failed \(ECONNREFUSED\)\)/);

    const s0 = new Date('2026-03-01T00:00:00Z');
    const other = await hookAndDelivery(s0);
    d = await claimDelivery(db, other.deliveryId, 'a', s0, 60_000);
    await finishAttempt(db, d!, 'a', fail, s0, new Date(s0.getTime() + 1000));
    const s1 = new Date(s0.getTime() + 2000);
    d = await claimDelivery(db, other.deliveryId, 'a', s1, 60_000);
    await finishAttempt(db, d!, 'a', { ok: true, statusCode: 204, error: null, body: '' }, s1, s1);
    expect((await db.selectFrom('webhooks').selectAll().where('id', '=', other.hookId).executeTakeFirstOrThrow()).failing_since).toBeNull();
  });
});
