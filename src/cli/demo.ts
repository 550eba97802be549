/**
 * The demo account of the embedded mode: created on first start with credits, and its key
 * kept in `<data>/demo-api-key` (mode 0600) so every start can print a working key. Only
 * this convenience key is stored in plain text; every other key exists only as a hash.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Db } from '../store/index.ts';
import { authenticate, createAccount, createApiKey } from '../jobs/accounts.ts';

export async function ensureDemoAccount(db: Db, dataDir: string, credits: number): Promise<{ apiKey: string; accountId: string; created: boolean }> {
  const file = path.join(dataDir, 'demo-api-key');
  if (fs.existsSync(file)) {
    const apiKey = fs.readFileSync(file, 'utf8').trim();
    const principal = await authenticate(db, apiKey);
    if (principal) return { apiKey, accountId: principal.accountId, created: false };
  }
  const { accountId } = await createAccount(db, { name: 'demo', credits });
  const { apiKey } = await createApiKey(db, { accountId, label: 'demo key printed at start' });
  fs.writeFileSync(file, `${apiKey}\n`, { mode: 0o600 });
  return { apiKey, accountId, created: true };
}
