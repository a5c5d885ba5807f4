// Keeping what the page shows: every attention map of a translation as JSON in the schema of
// `attend translate --attention` (native/cli/cmd_translate.cpp), and one map as SVG or PNG.
import { Heatmap, colour, maxOf } from './heatmap.js';

const NOTE = 'maps are [layers, heads, rows, cols]; cross rows = target tokens, cols = source tokens';

// A map as the native program writes it; a model without that kind of map gets an empty one, as natively.
function mapsJson(maps) {
  if (!maps || !Array.isArray(maps.shape)) return { layers: 0, heads: 0, rows: 0, cols: 0, data: [] };
  const [layers, heads, rows, cols] = maps.shape;
  // Nine significant digits give back every float32 exactly, in about half the characters of a double.
  return { layers, heads, rows, cols, data: Array.from(maps.data, (v) => Number(v.toPrecision(9))) };
}

// results: translations as the translator returns them (text, sourceTokens, targetTokens, attention; a document's
// sentences also carry their 0-based line, written 1-based as natively).
export function attentionJson(results) {
  return {
    format: 'attend-attention',
    note: NOTE,
    sentences: results.map((r) => ({
      line: (r.line ?? 0) + 1, text: r.text, source_tokens: r.sourceTokens, target_tokens: r.targetTokens,
      cross: mapsJson(r.attention?.cross), encoder_self: mapsJson(r.attention?.encoderSelf),
      decoder_self: mapsJson(r.attention?.decoderSelf),
    })),
  };
}

const xml = (s) => String(s).replace(/[<>&"']/g, (c) => ({ '<': '&lt;', '>': '&gt;', '&': '&amp;', '"': '&quot;', "'": '&#39;' })[c]);

// map: { values, rows, cols, rowLabels, colLabels, title } as the heatmap draws it. A standalone SVG picture:
// one square per weight on the page's colour scale, the labels as text, and a colour bar.
export function heatmapSvg(map) {
  const cell = 22;
  const charWidth = 7.2;  // 12 px sans-serif, generously
  const left = Math.ceil(Math.max(...map.rowLabels.map((s) => s.length), 1) * charWidth) + 14;
  const top = Math.ceil(Math.max(...map.colLabels.map((s) => s.length), 1) * charWidth) + 34;
  const width = Math.max(left + map.cols * cell + 10, 260);
  const height = top + map.rows * cell + 56;
  const max = maxOf(map.values);
  const rgb = (v) => `rgb(${colour(v / max).join(',')})`;
  const out = [`<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="system-ui, &quot;Noto Sans CJK SC&quot;, &quot;PingFang SC&quot;, &quot;Microsoft YaHei&quot;, sans-serif" font-size="12">`,
    `<title>${xml(map.title ?? 'attention')}</title>`,
    `<rect width="${width}" height="${height}" fill="#fff"/>`,
    `<text x="4" y="16" font-weight="bold">${xml(map.title ?? 'attention')}</text>`];
  for (let r = 0; r < map.rows; r++) {
    for (let k = 0; k < map.cols; k++) {
      const v = map.values[r * map.cols + k];
      out.push(`<rect x="${left + k * cell}" y="${top + r * cell}" width="${cell}" height="${cell}" fill="${rgb(v)}"><title>${xml(`${map.rowLabels[r]} → ${map.colLabels[k]}: ${v.toFixed(3)}`)}</title></rect>`);
    }
    out.push(`<text x="${left - 6}" y="${top + (r + 0.5) * cell}" text-anchor="end" dominant-baseline="middle">${xml(map.rowLabels[r])}</text>`);
  }
  for (let k = 0; k < map.cols; k++) {
    const x = left + (k + 0.5) * cell;
    out.push(`<text transform="translate(${x} ${top - 6}) rotate(-90)" dominant-baseline="middle">${xml(map.colLabels[k])}</text>`);
  }
  const barY = top + map.rows * cell + 16;
  const stops = Array.from({ length: 11 }, (_, i) => `<stop offset="${i * 10}%" stop-color="rgb(${colour(i / 10).join(',')})"/>`).join('');
  out.push(`<defs><linearGradient id="scale">${stops}</linearGradient></defs>`,
    `<rect x="${left}" y="${barY}" width="200" height="10" fill="url(#scale)" stroke="#d0d7de"/>`,
    `<text x="${left}" y="${barY + 24}">0</text>`,
    `<text x="${left + 200}" y="${barY + 24}" text-anchor="end">${max.toFixed(3)}</text>`,
    `<text x="${left + 100}" y="${barY + 24}" text-anchor="middle">attention weight</text>`, '</svg>');
  return out.join('\n');
}

// The same map drawn by the page's heatmap on a canvas of its own (no pick or highlight on it), as a PNG.
export function heatmapPng(map) {
  const canvas = document.createElement('canvas');
  new Heatmap(canvas).set(map);
  return new Promise((resolve, reject) => canvas.toBlob((b) => (b ? resolve(b) : reject(new Error('the PNG could not be made'))), 'image/png'));
}
