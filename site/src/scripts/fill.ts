/**
 * Fills markup made at build time with values in the browser. Elements say what they show:
 * `data-field` (text), `data-href`, `data-datetime`, `data-value` (attributes), `data-show`
 * (shown when truthy), `data-class` (class name). Only textContent and attributes are ever set, never HTML,
 * so names and descriptions stay text whatever they contain.
 */
/** Any object; fields are looked up by the names the markup gives. */
export type Model = object;

export function fill(root: ParentNode, values: Model): void {
  const model = values as Record<string, unknown>;
  const own = (el: Element) => !el.parentElement?.closest('[data-list]') || !root.contains(el.parentElement.closest('[data-list]'));
  for (const el of root.querySelectorAll<HTMLElement>('[data-field]')) if (own(el)) el.textContent = text(model[el.dataset.field!]);
  for (const el of root.querySelectorAll<HTMLElement>('[data-href]')) if (own(el)) setAttribute(el, 'href', model[el.dataset.href!]);
  for (const el of root.querySelectorAll<HTMLElement>('[data-datetime]')) if (own(el)) setAttribute(el, 'datetime', model[el.dataset.datetime!]);
  for (const el of root.querySelectorAll<HTMLElement>('[data-value]')) if (own(el)) setAttribute(el, 'value', model[el.dataset.value!]);
  for (const el of root.querySelectorAll<HTMLElement>('[data-show]')) if (own(el)) el.hidden = !truthy(model[el.dataset.show!]);
  for (const el of root.querySelectorAll<HTMLElement>('[data-class]')) if (own(el)) el.className = text(model[el.dataset.class!]);
}

/** Replaces the rows of `[data-list=name]` with one clone of `template[data-template=…]` per item. */
export function renderList(root: ParentNode, name: string, items: readonly Model[], template = name): void {
  const list = root.querySelector(`[data-list="${name}"]`);
  const tpl = root.querySelector<HTMLTemplateElement>(`template[data-template="${template}"]`);
  if (!list || !tpl) return;
  list.replaceChildren(...items.map((item) => row(tpl, item)));
}

export function row(tpl: HTMLTemplateElement, item: Model): DocumentFragment {
  const fragment = tpl.content.cloneNode(true) as DocumentFragment;
  fill(fragment, item);
  return fragment;
}

function text(value: unknown): string {
  return value === undefined || value === null ? '' : String(value);
}

function truthy(value: unknown): boolean {
  return Array.isArray(value) ? value.length > 0 : Boolean(value);
}

function setAttribute(el: Element, name: string, value: unknown): void {
  if (value === undefined || value === null || value === '') el.removeAttribute(name);
  else el.setAttribute(name, String(value));
}
