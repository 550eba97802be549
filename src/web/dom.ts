/**
 * Element building that cannot interpret markup: children given as strings become text
 * nodes, attributes are set one by one. Every string from the API (request_params, feature
 * properties, upload errors) is untrusted, so nothing here touches innerHTML.
 */
export type Child = Node | string | number | null | undefined | false;

export function el<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attrs: Record<string, string | number | boolean | null | undefined> = {},
  ...children: Child[]
): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) {
    if (value === null || value === undefined || value === false) continue;
    if (/^on/i.test(name)) throw new Error(`event handler attribute ${name}: use addEventListener`);
    node.setAttribute(name, value === true ? '' : String(value));
  }
  append(node, ...children);
  return node;
}

export function append(parent: Node, ...children: Child[]): void {
  for (const c of children) {
    if (c === null || c === undefined || c === false) continue;
    parent.appendChild(typeof c === 'string' || typeof c === 'number' ? document.createTextNode(String(c)) : c);
  }
}

export function clear(node: Node): void {
  while (node.firstChild) node.removeChild(node.firstChild);
}

/** A definition list of label → value rows; values rendered as text. */
export function definitions(rows: Array<[string, Child]>, attrs: Record<string, string> = {}): HTMLDListElement {
  const dl = el('dl', { class: 'fields', ...attrs });
  for (const [k, v] of rows) append(dl, el('dt', {}, k), el('dd', {}, v ?? '—'));
  return dl;
}

export function button(label: string, onClick: (e: MouseEvent) => void, attrs: Record<string, string> = {}): HTMLButtonElement {
  const b = el('button', { type: 'button', ...attrs }, label);
  b.addEventListener('click', onClick);
  return b;
}

/** A labelled form control: <label for> and the control, wrapped. */
export function field(label: string, control: HTMLElement, hint?: string): HTMLDivElement {
  if (!control.id) control.id = `f-${Math.random().toString(36).slice(2, 10)}`;
  const wrap = el('div', { class: 'field' }, el('label', { for: control.id }, label), control);
  if (hint) {
    const hintId = `${control.id}-hint`;
    control.setAttribute('aria-describedby', hintId);
    append(wrap, el('small', { id: hintId, class: 'hint' }, hint));
  }
  return wrap;
}

/** A status line that screen readers announce (role=status) — errors get role=alert. */
export function message(kind: 'error' | 'info', text: string): HTMLParagraphElement {
  return el('p', { class: `message ${kind}`, role: kind === 'error' ? 'alert' : 'status' }, text);
}
