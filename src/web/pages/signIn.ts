/** Sign in with an API key: checked against /api/v1/account, then kept in sessionStorage. */
import { api, ApiError } from '../api.ts';
import { append, el, field, message } from '../dom.ts';
import { session } from '../session.ts';

export function signInPage(main: HTMLElement): void {
  const input = el('input', { type: 'password', name: 'api_key', autocomplete: 'off', spellcheck: 'false', required: true, placeholder: 'sw_…' });
  const status = el('div', { class: 'status' });
  const form = el(
    'form',
    { class: 'card narrow', 'aria-labelledby': 'signin-title' },
    el('h1', { id: 'signin-title' }, 'Sign in'),
    el('p', {}, 'Use an API key. `npm start` prints the demo key. The key is kept in this browser tab only and forgotten when you sign out or close the tab.'),
    field('API key', input),
    el('button', { type: 'submit' }, 'Sign in'),
    status,
  );
  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    status.replaceChildren();
    const key = input.value.trim();
    if (!key) return;
    try {
      await api.account(key);
      session.signIn(key);
      location.hash = '#/jobs';
    } catch (err) {
      const text = err instanceof ApiError ? (err.status === 401 ? 'This key is not valid (or was revoked).' : err.message) : 'The service did not answer.';
      append(status, message('error', text));
    }
  });
  append(main, form);
  input.focus();
}
