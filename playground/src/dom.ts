/** Small DOM helpers. */

/** The element with `id`, which the page must have. */
export function byId<T extends HTMLElement = HTMLElement>(id: string): T {
  const el = document.getElementById(id);
  if (el === null) throw new Error(`playground: no element #${id}`);
  return el as T;
}

type Attrs = Record<string, string | number | boolean | undefined>;

/** A new element: `h('td', { class: 'value' }, 'I32(3)')`. */
export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attrs: Attrs = {},
  ...children: Array<Node | string>
): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) {
    if (value === undefined || value === false) continue;
    el.setAttribute(name, value === true ? '' : String(value));
  }
  el.append(...children);
  return el;
}

/** `0x4d` as disassembly and backtraces write offsets (at least two hex digits). */
export function hex(n: number, digits = 2): string {
  return `0x${n.toString(16).padStart(digits, '0')}`;
}
