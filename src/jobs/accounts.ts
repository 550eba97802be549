/**
 * Accounts, API keys and scopes. Keys are random, shown once, stored as a SHA-256 hash,
 * looked up by their public id and compared in constant time.
 */
import { createHash, randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';
import type { Db } from '../store/index.ts';
import { SCOPES, SUBMITTABLE_ENDPOINTS, type Scope } from '../contract/enums.ts';
import { balanceMicros, fromMicros, moveCredits, toMicros } from './credits.ts';
import { isoNow } from '../time.ts';

export interface Principal {
  accountId: string;
  keyId: string;
  scopes: Set<Scope>;
  /** null: every endpoint. */
  endpoints: Set<string> | null;
}

const KEY_PATTERN = /^sw_([a-z0-9]{12})_([A-Za-z0-9_-]{43})$/;

function sha256Hex(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

function newKeyId(): string {
  const alphabet = 'abcdefghijklmnopqrstuvwxyz0123456789';
  const bytes = randomBytes(12);
  return Array.from(bytes, (b) => alphabet[b % alphabet.length]).join('');
}

export class AccountError extends Error {}

export function parseScopes(list: string[] | undefined): Scope[] {
  if (!list || list.length === 0) return [...SCOPES];
  for (const s of list) {
    if (!(SCOPES as readonly string[]).includes(s)) throw new AccountError(`unknown scope "${s}"; known: ${SCOPES.join(', ')}`);
  }
  return [...new Set(list)] as Scope[];
}

export function parseEndpointList(list: string[] | undefined): string[] | null {
  if (!list || list.length === 0) return null;
  for (const e of list) {
    if (!(SUBMITTABLE_ENDPOINTS as readonly string[]).includes(e)) {
      throw new AccountError(`unknown endpoint "${e}"; known: ${SUBMITTABLE_ENDPOINTS.join(', ')}`);
    }
  }
  return [...new Set(list)];
}

export async function createAccount(db: Db, input: { name: string; credits: number }): Promise<{ accountId: string }> {
  if (!input.name.trim()) throw new AccountError('account name must not be empty');
  if (!Number.isFinite(input.credits) || input.credits < 0) throw new AccountError('credits must be a non-negative number');
  const accountId = randomUUID();
  await db.transaction().execute(async (tx) => {
    await tx.insertInto('accounts').values({ id: accountId, name: input.name, balance_micros: 0, created_at: isoNow() }).execute();
    if (input.credits > 0) {
      await moveCredits(tx, { accountId, jobId: null, kind: 'grant', delta: toMicros(input.credits), note: 'initial credits' });
    }
  });
  return { accountId };
}

export async function createApiKey(
  db: Db,
  input: { accountId: string; scopes?: string[]; endpoints?: string[]; label?: string },
): Promise<{ keyId: string; apiKey: string }> {
  const account = await db.selectFrom('accounts').select('id').where('id', '=', input.accountId).executeTakeFirst();
  if (!account) throw new AccountError(`no account ${input.accountId}`);
  const scopes = parseScopes(input.scopes);
  const endpoints = parseEndpointList(input.endpoints);
  const keyId = newKeyId();
  const apiKey = `sw_${keyId}_${randomBytes(32).toString('base64url')}`;
  await db
    .insertInto('api_keys')
    .values({
      id: keyId,
      account_id: input.accountId,
      secret_hash: sha256Hex(apiKey),
      scopes: JSON.stringify(scopes),
      endpoints: endpoints ? JSON.stringify(endpoints) : null,
      label: input.label ?? null,
      created_at: isoNow(),
      revoked_at: null,
    })
    .execute();
  return { keyId, apiKey };
}

export async function revokeApiKey(db: Db, keyIdOrKey: string): Promise<boolean> {
  const keyId = KEY_PATTERN.exec(keyIdOrKey)?.[1] ?? keyIdOrKey;
  const res = await db
    .updateTable('api_keys')
    .set({ revoked_at: isoNow() })
    .where('id', '=', keyId)
    .where('revoked_at', 'is', null)
    .executeTakeFirst();
  return Number(res.numUpdatedRows) > 0;
}

/** Resolves an API key to its principal, or null. Never says which part was wrong. */
export async function authenticate(db: Db, apiKey: string): Promise<Principal | null> {
  const match = KEY_PATTERN.exec(apiKey);
  if (!match) return null;
  const row = await db.selectFrom('api_keys').selectAll().where('id', '=', match[1]).executeTakeFirst();
  if (!row || row.revoked_at) return null;
  const expected = Buffer.from(row.secret_hash, 'hex');
  const actual = createHash('sha256').update(apiKey).digest();
  if (expected.length !== actual.length || !timingSafeEqual(expected, actual)) return null;
  return {
    accountId: row.account_id,
    keyId: row.id,
    scopes: new Set(JSON.parse(row.scopes) as Scope[]),
    endpoints: row.endpoints ? new Set(JSON.parse(row.endpoints) as string[]) : null,
  };
}

export async function grantCredits(db: Db, accountId: string, credits: number, note?: string): Promise<number> {
  if (!Number.isFinite(credits) || credits === 0) throw new AccountError('credits must be a non-zero number');
  const after = await db.transaction().execute((tx) =>
    moveCredits(tx, { accountId, jobId: null, kind: 'grant', delta: toMicros(credits), note: note ?? 'grant' }),
  );
  if (after === null) {
    const exists = await balanceMicros(db, accountId);
    throw new AccountError(exists === null ? `no account ${accountId}` : 'the balance cannot go below zero');
  }
  return fromMicros(after);
}

export async function showCredits(db: Db, accountId: string) {
  const account = await db.selectFrom('accounts').selectAll().where('id', '=', accountId).executeTakeFirst();
  if (!account) throw new AccountError(`no account ${accountId}`);
  const ledger = await db
    .selectFrom('credit_ledger')
    .selectAll()
    .where('account_id', '=', accountId)
    .orderBy('created_at', 'desc')
    .limit(20)
    .execute();
  return {
    account_id: account.id,
    name: account.name,
    balance: fromMicros(account.balance_micros),
    recent: ledger.map((r) => ({
      at: r.created_at,
      kind: r.kind,
      job_id: r.job_id,
      amount: fromMicros(r.amount_micros),
      balance_after: fromMicros(r.balance_after_micros),
      note: r.note,
    })),
  };
}
