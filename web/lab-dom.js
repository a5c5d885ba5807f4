// Small DOM helpers shared by the attention lab's views.

export const $ = (id) => document.getElementById(id);

export const fmt = (v, digits = 4) => (Number.isFinite(v) ? v.toFixed(digits) : String(v));

// The number in an <input>, checked against its min/max (and whole numbers for step="1"); marks the input
// aria-invalid and throws a message naming it otherwise.
export function readNumber(input, name) {
  const text = input.value.trim();
  const v = Number(text);
  const min = input.min === '' ? -Infinity : Number(input.min);
  const max = input.max === '' ? Infinity : Number(input.max);
  const whole = input.step === '1';
  const ok = text !== '' && Number.isFinite(v) && v >= min && v <= max && (!whole || Number.isInteger(v));
  input.setAttribute('aria-invalid', String(!ok));
  if (!ok) {
    const range = Number.isFinite(min) && Number.isFinite(max) ? ` from ${min} to ${max}` : '';
    throw new Error(`${name}: “${text}” is not ${whole ? 'a whole number' : 'a number'}${range}`);
  }
  return v;
}

// Shows (or, with an empty message, hides) a view's error line.
export function showError(element, message = '') {
  element.textContent = message;
  element.hidden = !message;
}

// A table from a header row and body rows; a cell is a string or { text, className, header }.
export function fillTable(table, head, rows) {
  const cell = (c, tag) => {
    const el = document.createElement(c?.header ? 'th' : tag);
    if (c?.header || tag === 'th') el.scope = tag === 'th' && !c?.header ? 'col' : 'row';
    el.textContent = typeof c === 'object' && c !== null ? c.text : String(c);
    if (c?.className) el.className = c.className;
    return el;
  };
  const thead = document.createElement('thead');
  const hr = document.createElement('tr');
  hr.append(...head.map((c) => cell(c, 'th')));
  thead.append(hr);
  const tbody = document.createElement('tbody');
  const names = head.map((c) => (typeof c === 'object' && c !== null ? c.text : String(c)));
  for (const r of rows) {
    const tr = document.createElement('tr');
    // Each cell carries its column's name: on a narrow screen (lab.css) a row is shown as name: value pairs.
    tr.append(...r.map((c) => cell(c, 'td')));
    for (const [i, el] of [...tr.children].entries()) if (names[i]) el.dataset.label = names[i];
    tbody.append(tr);
  }
  table.replaceChildren(thead, tbody);
}
