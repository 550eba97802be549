/**
 * The API key lives in sessionStorage only: it goes when the tab closes or on sign-out, and
 * is never written to localStorage, a cookie or the URL.
 */
const KEY = 'sarwatch.apiKey';

export const session = {
  key(): string | null {
    return sessionStorage.getItem(KEY);
  },
  signIn(apiKey: string): void {
    sessionStorage.setItem(KEY, apiKey);
  },
  signOut(): void {
    sessionStorage.removeItem(KEY);
  },
};
