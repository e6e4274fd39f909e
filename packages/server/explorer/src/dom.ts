/** A tiny element factory: `h('button', { class: 'x', 'data-testid': 'y' }, 'text', child)`. */
export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attrs: Record<string, string | undefined> = {},
  ...children: (Node | string)[]
): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) if (value !== undefined) el.setAttribute(name, value);
  el.append(...children);
  return el;
}
