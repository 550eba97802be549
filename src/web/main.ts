// The dashboard (src/web): plain TypeScript + DOM bundled by Vite into dist/web; talks to the HTTP API only, never imports server code.
/**
 * The dashboard's entry: the header (navigation, credit balance, sign-out) and the routes.
 * Pages other than sign-in need a key in the session; a 401 from the API ends the session.
 */
import './styles.css';
import { api, setUnauthorizedHandler } from './api.ts';
import { append, button, clear, el } from './dom.ts';
import { fmtNumber } from './format.ts';
import { Router } from './router.ts';
import { session } from './session.ts';
import type { WebConfig } from './types.ts';
import { signInPage } from './pages/signIn.ts';
import { jobsPage } from './pages/jobs.ts';
import { jobPage } from './pages/job.ts';
import { newJobPage } from './pages/newJob.ts';
import { uploadsPage } from './pages/uploads.ts';

// The bundle is fetched, parsed and its modules evaluated: the app starts (the dashboard bench's breakdown).
performance.mark('sarwatch:app-start');
const main = document.getElementById('main')!;
const nav = document.getElementById('nav')!;
const balance = el('span', { class: 'balance', 'aria-live': 'polite' });

// Asked for at once, not awaited before the first page: the page's own requests go out beside it,
// and a map page reads it when it makes its map. The offline basemap needs no configuration.
const config: Promise<WebConfig> = api.webConfig().catch(() => ({ basemap_url: null }));

function signOut(): void {
  session.signOut();
  location.hash = '#/signin';
}
setUnauthorizedHandler(signOut);

// The skip link must not change the hash (that is the router's).
document.querySelector('a.skip')?.addEventListener('click', (e) => {
  e.preventDefault();
  main.focus();
});

async function refreshBalance(): Promise<void> {
  if (!session.key()) return;
  try {
    const account = await api.account();
    balance.textContent = `Credits: ${fmtNumber(account.credits.balance, 4)}`;
  } catch {
    balance.textContent = '';
  }
}

function renderNav(path: string): void {
  clear(nav);
  if (!session.key()) return;
  const link = (href: string, label: string, active: boolean) => el('a', { href, 'aria-current': active ? 'page' : null }, label);
  append(
    nav,
    el('ul', {}, el('li', {}, link('#/jobs', 'Jobs', path === '/jobs' || path.startsWith('/jobs/'))), el('li', {}, link('#/new', 'New job', path === '/new')), el('li', {}, link('#/uploads', 'Uploads', path === '/uploads'))),
    balance,
    button('Sign out', signOut, { class: 'signout' }),
  );
  void refreshBalance();
}

const router = new Router(
  main,
  (path) => (!session.key() && path !== '/signin' ? '/signin' : session.key() && path === '/signin' ? '/jobs' : null),
  renderNav,
)
  .add('/jobs', 'Jobs', (m) => jobsPage(m))
  .add('/jobs/:id', 'Job', (m, p) => jobPage(m, p, config))
  .add('/new', 'New job', (m) => newJobPage(m, config))
  .add('/uploads', 'Uploads', (m) => uploadsPage(m))
  .add('/signin', 'Sign in', (m) => signInPage(m));

router.start();
