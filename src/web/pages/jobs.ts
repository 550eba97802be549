/**
 * Jobs: the list with GET /api/v1/jobs's filters (status, endpoint, limit), refreshed every
 * few seconds while any job is pending or processing, with each running job's progress.
 */
import { api, ApiError } from '../api.ts';
import { append, clear, el, field, message } from '../dom.ts';
import { fmtNumber, fmtTime, fmtValue } from '../format.ts';
import { ENDPOINT_IDS, JOB_STATUSES, type JobListItem } from '../types.ts';
import type { Cleanup } from '../router.ts';

const POLL_MS = 3000;

/** A job's input in one line: scene, date(s), or where the AOI came from. */
export function inputSummary(p: Record<string, unknown> | null): string {
  if (!p) return '—';
  const parts: string[] = [];
  if (typeof p.scene_id === 'string') parts.push(`scene ${fmtValue(p.scene_id, 80)}`);
  if (typeof p.tif_id === 'string') parts.push(`image ${fmtValue(p.tif_id, 40)}`);
  if (typeof p.polygon_id === 'string') parts.push(`upload ${fmtValue(p.polygon_id, 40)}`);
  if (typeof p.polygon === 'string') parts.push('drawn AOI');
  if (typeof p.date === 'string') parts.push(fmtValue(p.date, 20));
  if (typeof p.date_start === 'string' || typeof p.date_end === 'string') parts.push(`${fmtValue(p.date_start, 20)} → ${fmtValue(p.date_end, 20)}`);
  return parts.join(' · ') || '—';
}

export function statusBadge(status: string, progress?: number | null): HTMLElement {
  const badge = el('span', { class: `badge status-${status.replace(/[^a-z]/g, '')}` }, status);
  if (status === 'processing' && typeof progress === 'number') {
    return el('span', { class: 'progress-cell' }, badge, el('progress', { max: 100, value: progress, 'aria-label': `progress ${progress} %` }), `${progress} %`);
  }
  return badge;
}

export async function jobsPage(main: HTMLElement): Promise<Cleanup> {
  const params = new URLSearchParams(location.hash.split('?')[1] ?? '');
  const statusBoxes = JOB_STATUSES.map((s) => el('input', { type: 'checkbox', name: 'status', value: s, checked: (params.get('status') ?? '').split(',').includes(s) }));
  const endpointBoxes = ENDPOINT_IDS.map((id) => el('input', { type: 'checkbox', name: 'endpoint_id', value: id, checked: (params.get('endpoint_id') ?? '').split(',').includes(id) }));
  const limit = el('input', { type: 'number', min: 1, max: 30, value: params.get('limit') ?? '30', name: 'limit' });
  const group = (legend: string, boxes: HTMLInputElement[]) =>
    el('fieldset', { class: 'checks' }, el('legend', {}, legend), ...boxes.map((b) => el('label', {}, b, ` ${b.value}`)));
  const filters = el('form', { class: 'filters', 'aria-label': 'Filter jobs' }, group('Status', statusBoxes), group('Endpoint', endpointBoxes), field('Limit (1–30)', limit), el('button', { type: 'submit' }, 'Apply'));
  const status = el('div', { class: 'status', 'aria-live': 'polite' });
  const tableWrap = el('div', { class: 'table-wrap' });
  append(main, el('div', { class: 'page-head' }, el('h1', {}, 'Jobs'), el('a', { href: '#/new', class: 'button' }, 'New job')), filters, status, tableWrap);

  const query = (): URLSearchParams => {
    const q = new URLSearchParams();
    const st = statusBoxes.filter((b) => b.checked).map((b) => b.value);
    const ep = endpointBoxes.filter((b) => b.checked).map((b) => b.value);
    if (st.length) q.set('status', st.join(','));
    if (ep.length) q.set('endpoint_id', ep.join(','));
    if (limit.value && limit.value !== '30') q.set('limit', limit.value);
    return q;
  };
  filters.addEventListener('submit', (e) => {
    e.preventDefault();
    const q = query().toString();
    history.replaceState(null, '', `#/jobs${q ? `?${q}` : ''}`);
    void refresh();
  });

  let timer: number | undefined;
  let stopped = false;
  const progress = new Map<string, number | null>();
  async function refresh(): Promise<void> {
    window.clearTimeout(timer);
    try {
      const { jobs } = await api.jobs(query());
      const active = jobs.filter((j) => j.status === 'pending' || j.status === 'processing');
      // The list carries no progress: ask each running job (at most 30).
      await Promise.all(active.filter((j) => j.status === 'processing').map(async (j) => progress.set(j.job_id, (await api.job(j.job_id)).progress)));
      if (stopped) return;
      clear(status);
      renderTable(tableWrap, jobs, progress);
      if (active.length) timer = window.setTimeout(() => void refresh(), POLL_MS);
      else timer = window.setTimeout(() => void refresh(), POLL_MS * 5);
    } catch (err) {
      if (stopped) return;
      clear(status);
      append(status, message('error', err instanceof ApiError ? `${err.code}: ${err.message}` : 'The service did not answer; retrying.'));
      timer = window.setTimeout(() => void refresh(), POLL_MS * 3);
    }
  }
  await refresh();
  return () => {
    stopped = true;
    window.clearTimeout(timer);
  };
}

function renderTable(wrap: HTMLElement, jobs: JobListItem[], progress: Map<string, number | null>): void {
  clear(wrap);
  if (jobs.length === 0) {
    append(wrap, el('p', {}, 'No jobs match. ', el('a', { href: '#/new' }, 'Submit one.')));
    return;
  }
  const head = el('tr', {}, ...['Created (UTC)', 'Endpoint', 'Status', 'Input', 'Area km²', 'Credits', 'Job'].map((h) => el('th', { scope: 'col' }, h)));
  const body = el('tbody');
  for (const j of jobs) {
    body.appendChild(
      el(
        'tr',
        { 'data-job-id': j.job_id, 'data-status': j.status },
        el('td', {}, fmtTime(j.created_at)),
        el('td', {}, j.endpoint_id),
        el('td', {}, statusBadge(j.status, progress.get(j.job_id)), j.error_code ? el('span', { class: 'error-code' }, ` ${j.error_code}`) : null),
        el('td', { class: 'input' }, inputSummary(j.request_params)),
        el('td', { class: 'num' }, fmtNumber(j.area_sqkm, 3)),
        el('td', { class: 'num' }, fmtNumber(j.credits_used, 4)),
        el('td', {}, el('a', { href: `#/jobs/${encodeURIComponent(j.job_id)}`, 'aria-label': `Open ${j.endpoint_id} job of ${fmtTime(j.created_at)}` }, 'Open')),
      ),
    );
  }
  append(wrap, el('table', { class: 'jobs' }, el('caption', { class: 'visually-hidden' }, 'Jobs, newest first'), el('thead', {}, head), body));
}
