/**
 * Hash routes (#/jobs, #/jobs/ID, #/new, #/uploads, #/signin): the server serves one page, so
 * no route needs a server-side fallback. A page is a function that fills <main> and may
 * return a cleanup (stop polling, remove the map).
 */
export type Cleanup = () => void;
export type Page = (main: HTMLElement, params: Record<string, string>) => Promise<Cleanup | void> | Cleanup | void;

interface Route {
  pattern: RegExp;
  names: string[];
  page: Page;
  title: string;
}

export class Router {
  private routes: Route[] = [];
  private cleanup: Cleanup | null = null;
  private generation = 0;

  constructor(
    private readonly main: HTMLElement,
    private readonly guard: (path: string) => string | null,
    private readonly onNavigate: (path: string) => void,
  ) {}

  add(path: string, title: string, page: Page): this {
    const names: string[] = [];
    const pattern = new RegExp(`^${path.replace(/:([a-z_]+)/g, (_m, n: string) => (names.push(n), '([^/]+)'))}$`);
    this.routes.push({ pattern, names, page, title });
    return this;
  }

  start(): void {
    window.addEventListener('hashchange', () => void this.render());
    void this.render();
  }

  async render(): Promise<void> {
    const path = location.hash.replace(/^#/, '').split('?')[0] || '/jobs';
    const redirect = this.guard(path);
    if (redirect && redirect !== path) {
      location.hash = `#${redirect}`;
      return;
    }
    const gen = ++this.generation;
    // Where a page's timings start when it is reached within the app (the dashboard bench).
    performance.mark('sarwatch:navigate');
    this.cleanup?.();
    this.cleanup = null;
    while (this.main.firstChild) this.main.removeChild(this.main.firstChild);
    const route = this.routes.find((r) => r.pattern.test(path)) ?? this.routes[0]!;
    const m = route.pattern.exec(path);
    const params = Object.fromEntries(route.names.map((n, i) => [n, decodeURIComponent(m?.[i + 1] ?? '')]));
    document.title = `${route.title} · sarwatch`;
    this.onNavigate(path);
    const cleanup = await route.page(this.main, params);
    if (gen !== this.generation) cleanup?.(); // navigated away while the page was loading
    else this.cleanup = cleanup ?? null;
  }
}
