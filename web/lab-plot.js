// Small line and scatter plots on a canvas for the attention lab (the seeds' matplotlib figures): axes with
// ticks, axis captions, a legend above the plot, and series drawn as lines, dashed lines or points.

const FONT = '12px system-ui, -apple-system, "Segoe UI", sans-serif';
export const PALETTE = ['#1f77b4', '#d62728', '#2ca02c', '#9467bd', '#ff7f0e', '#8c564b'];

function niceStep(span, count) {
  const raw = span / Math.max(1, count);
  const p = 10 ** Math.floor(Math.log10(raw));
  const f = raw / p;
  return (f < 1.5 ? 1 : f < 3.5 ? 2 : f < 7.5 ? 5 : 10) * p;
}

function extent(values, pad) {
  let lo = Infinity, hi = -Infinity;
  for (const v of values) if (Number.isFinite(v)) { lo = Math.min(lo, v); hi = Math.max(hi, v); }
  if (!Number.isFinite(lo)) return [0, 1];
  if (hi === lo) { lo -= 0.5; hi += 0.5; }
  const m = (hi - lo) * pad;
  return [lo - m, hi + m];
}

// The canvas sized to width x height CSS pixels at the screen's pixel density, cleared to white; its 2D context.
function whiteCanvas(canvas, width, height) {
  const dpr = window.devicePixelRatio || 1;
  canvas.width = Math.round(width * dpr);
  canvas.height = Math.round(height * dpr);
  canvas.style.width = `${width}px`;
  canvas.style.height = `${height}px`;
  const ctx = canvas.getContext('2d');
  ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
  ctx.fillStyle = '#fff';
  ctx.fillRect(0, 0, width, height);
  return ctx;
}

// series: [{ label, x, y, style: 'line' | 'dashed' | 'points', color }]; options: { xLabel, yLabel, xRange,
// yRange, height, title, integerX (whole-number ticks on x) }.
export function drawPlot(canvas, series, { xLabel = '', yLabel = '', xRange, yRange, height = 260, title = 'plot',
  integerX = false } = {}) {
  const width = Math.max(240, Math.min(720, canvas.parentElement?.clientWidth || 480));
  const ctx = whiteCanvas(canvas, width, height);

  const [x0, x1] = xRange ?? extent(series.flatMap((s) => Array.from(s.x)), 0);
  const [y0, y1] = yRange ?? extent(series.flatMap((s) => Array.from(s.y)), 0.06);
  // The legend gets a band of its own above the plot (laid out first), so that it never covers a curve.
  ctx.font = FONT;
  const items = [];
  let ix = 50, iy = 10;
  for (const [i, s] of series.entries()) {
    const w = 28 + ctx.measureText(s.label).width + 14;
    if (ix + w > width - 12 && ix > 50) { ix = 50; iy += 16; }
    items.push({ s, i, x: ix, y: iy });
    ix += w;
  }
  const legendBottom = series.length ? iy + 8 : 0;
  // The left margin fits the widest y tick label beside the y caption.
  const ys = niceStep(y1 - y0, Math.floor((height - 50 - legendBottom) / 40));
  const yTicks = [];
  for (let t = Math.ceil(y0 / ys) * ys; t <= y1 + 1e-9; t += ys) yTicks.push([t, String(+t.toFixed(6))]);
  const left = Math.max(50, Math.ceil(Math.max(0, ...yTicks.map(([, s]) => ctx.measureText(s).width))) + 30);
  const L = { left, right: width - 12, top: legendBottom + 8, bottom: height - 42 };
  const px = (x) => L.left + ((x - x0) / (x1 - x0)) * (L.right - L.left);
  const py = (y) => L.bottom - ((y - y0) / (y1 - y0)) * (L.bottom - L.top);

  // Grid, ticks and captions.
  ctx.font = FONT;
  ctx.strokeStyle = '#e5e7eb';
  ctx.fillStyle = '#1f2328';
  ctx.lineWidth = 1;
  const xStep = niceStep(x1 - x0, Math.floor((L.right - L.left) / 70));
  const xs = integerX ? Math.max(1, Math.round(xStep)) : xStep;
  ctx.textAlign = 'center';
  ctx.textBaseline = 'top';
  for (let t = Math.ceil(x0 / xs) * xs; t <= x1 + 1e-9; t += xs) {
    ctx.beginPath(); ctx.moveTo(px(t), L.top); ctx.lineTo(px(t), L.bottom); ctx.stroke();
    ctx.fillText(String(+t.toFixed(6)), px(t), L.bottom + 4);
  }
  ctx.textAlign = 'right';
  ctx.textBaseline = 'middle';
  for (const [t, label] of yTicks) {
    ctx.beginPath(); ctx.moveTo(L.left, py(t)); ctx.lineTo(L.right, py(t)); ctx.stroke();
    ctx.fillText(label, L.left - 5, py(t));
  }
  ctx.strokeStyle = '#59636e';
  ctx.strokeRect(L.left, L.top, L.right - L.left, L.bottom - L.top);
  ctx.fillStyle = '#59636e';
  ctx.textAlign = 'center';
  ctx.textBaseline = 'bottom';
  ctx.fillText(xLabel, (L.left + L.right) / 2, height - 2);
  ctx.save();
  ctx.translate(12, (L.top + L.bottom) / 2);
  ctx.rotate(-Math.PI / 2);
  ctx.textBaseline = 'middle';
  ctx.fillText(yLabel, 0, 0);
  ctx.restore();

  // The series, clipped to the plot area.
  ctx.save();
  ctx.beginPath();
  ctx.rect(L.left, L.top, L.right - L.left, L.bottom - L.top);
  ctx.clip();
  series.forEach((s, i) => {
    const color = s.color ?? PALETTE[i % PALETTE.length];
    ctx.strokeStyle = color;
    ctx.fillStyle = color;
    ctx.lineWidth = 2;
    if (s.style === 'points') {
      for (let k = 0; k < s.x.length; k++) {
        ctx.beginPath();
        ctx.arc(px(s.x[k]), py(s.y[k]), 3, 0, 2 * Math.PI);
        ctx.globalAlpha = 0.55;
        ctx.fill();
        ctx.globalAlpha = 1;
      }
      return;
    }
    ctx.setLineDash(s.style === 'dashed' ? [6, 4] : []);
    ctx.beginPath();
    for (let k = 0; k < s.x.length; k++) {
      if (k === 0) ctx.moveTo(px(s.x[k]), py(s.y[k])); else ctx.lineTo(px(s.x[k]), py(s.y[k]));
    }
    ctx.stroke();
    if (s.markers) for (let k = 0; k < s.x.length; k++) ctx.fillRect(px(s.x[k]) - 3, py(s.y[k]) - 3, 6, 6);
    ctx.setLineDash([]);
  });
  ctx.restore();

  // Legend, in its band above the plot.
  ctx.textAlign = 'left';
  ctx.textBaseline = 'middle';
  for (const { s, i, x: lx, y } of items) {
    const color = s.color ?? PALETTE[i % PALETTE.length];
    ctx.strokeStyle = color;
    ctx.fillStyle = color;
    ctx.lineWidth = 2;
    if (s.style === 'points') {
      ctx.beginPath(); ctx.arc(lx + 10, y, 3, 0, 2 * Math.PI); ctx.fill();
    } else {
      ctx.setLineDash(s.style === 'dashed' ? [6, 4] : []);
      ctx.beginPath(); ctx.moveTo(lx, y); ctx.lineTo(lx + 22, y); ctx.stroke();
      ctx.setLineDash([]);
    }
    ctx.fillStyle = '#1f2328';
    ctx.fillText(s.label, lx + 28, y);
  }
  Object.assign(canvas.dataset, { legendBottom, plotTop: L.top });
  canvas.dataset.series = series.length;
  canvas.setAttribute('aria-label', `${title}: ${series.map((s) => s.label).join(', ')}`);
}

// A bar chart of one probability per label (a language model's next-character distribution): bars on a 0 to max
// scale with their labels below, the bar at `marked` drawn in the accent colour with its value above it.
export function drawBars(canvas, labels, values, { marked = -1, height = 220, title = 'bar chart', yLabel = '' } = {}) {
  const width = Math.max(240, Math.min(900, canvas.parentElement?.clientWidth || 480));
  const ctx = whiteCanvas(canvas, width, height);
  ctx.font = FONT;
  const top = Math.max(1e-9, ...values);
  const step = niceStep(top, 4);
  const yMax = Math.ceil(top / step - 1e-9) * step;
  const ticks = [];
  for (let t = 0; t <= yMax + 1e-9; t += step) ticks.push([t, String(+t.toFixed(6))]);
  const left = Math.ceil(Math.max(...ticks.map(([, s]) => ctx.measureText(s).width))) + (yLabel ? 26 : 10);
  const L = { left, right: width - 6, top: 20, bottom: height - 22 };
  const py = (v) => L.bottom - (v / yMax) * (L.bottom - L.top);
  ctx.strokeStyle = '#e5e7eb';
  ctx.fillStyle = '#1f2328';
  ctx.textAlign = 'right';
  ctx.textBaseline = 'middle';
  for (const [t, label] of ticks) {
    ctx.beginPath(); ctx.moveTo(L.left, py(t)); ctx.lineTo(L.right, py(t)); ctx.stroke();
    ctx.fillText(label, L.left - 4, py(t));
  }
  if (yLabel) {
    ctx.save();
    ctx.translate(10, (L.top + L.bottom) / 2);
    ctx.rotate(-Math.PI / 2);
    ctx.textAlign = 'center';
    ctx.fillStyle = '#59636e';
    ctx.fillText(yLabel, 0, 0);
    ctx.restore();
  }
  const slot = (L.right - L.left) / Math.max(1, values.length);
  const barW = Math.max(2, slot * 0.72);
  ctx.textAlign = 'center';
  values.forEach((v, i) => {
    const x = L.left + slot * i + (slot - barW) / 2;
    ctx.fillStyle = i === marked ? PALETTE[1] : '#8aa4c8';
    ctx.fillRect(x, py(v), barW, L.bottom - py(v));
    ctx.fillStyle = i === marked ? PALETTE[1] : '#1f2328';
    ctx.font = i === marked ? `bold ${FONT}` : FONT;
    ctx.textBaseline = 'top';
    ctx.fillText(labels[i], x + barW / 2, L.bottom + 4);
    if (i === marked) {
      ctx.textBaseline = 'bottom';
      const text = v.toFixed(3);
      const tx = Math.min(L.right - ctx.measureText(text).width / 2, Math.max(L.left + ctx.measureText(text).width / 2, x + barW / 2));
      ctx.fillText(text, tx, Math.max(L.top, py(v)) - 2);
    }
  });
  ctx.font = FONT;
  ctx.strokeStyle = '#59636e';
  ctx.beginPath(); ctx.moveTo(L.left, L.bottom); ctx.lineTo(L.right, L.bottom); ctx.stroke();
  Object.assign(canvas.dataset, { bars: values.length, marked, slot: slot.toFixed(2) });
  canvas.setAttribute('aria-label', title);
}
