// `chart` sections (ours, docs/catalog.md "Chart sections"): a line chart
// of the elements of `collectionPath`, x from `xPath` (a `YYYY-MM-DD` day,
// Asia/Shanghai), one series per section field (its `path` and `label`).
// Drawn with uPlot (MIT, vendored in vendor/uplot/, version 1.6.32), whose
// script is loaded the first time a chart is shown.

import { h } from 'wb/dom.js';
import { getPath } from 'wb/form.js';

const COLORS = ['#1f6feb', '#d1242f', '#1a7f37', '#9a6700', '#8250df', '#bf3989'];
/** Asia/Shanghai is UTC+8 all year. */
const SHANGHAI_OFFSET = 8 * 3600;

let loading = null;

/** The uPlot constructor, loading its script once. */
function uplot() {
  if (window.uPlot) return Promise.resolve(window.uPlot);
  if (!loading) {
    loading = new Promise((resolve, reject) => {
      const script = document.createElement('script');
      script.src = import.meta.resolve('wb/vendor/uplot/uPlot.iife.min.js');
      script.onload = () => resolve(window.uPlot);
      script.onerror = () => { loading = null; reject(new Error('uPlot did not load')); };
      document.head.append(script);
    });
  }
  return loading;
}

/** `YYYY-MM-DD` → seconds at 00:00 Asia/Shanghai; null when not a day. */
function daySeconds(text) {
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(String(text || ''));
  if (!match) return null;
  return Date.UTC(Number(match[1]), Number(match[2]) - 1, Number(match[3])) / 1000 - SHANGHAI_OFFSET;
}

/** Seconds → `YYYY-MM-DD` (or `MM-DD` when `short`) in Asia/Shanghai. */
function dayText(seconds, short) {
  const text = new Date((seconds + SHANGHAI_OFFSET) * 1000).toISOString().slice(0, 10);
  return short ? text.slice(5) : text;
}

/** Whether a series is a rank (drawn with 1 at the top). */
function isRank(field) {
  return /rank$/i.test(field.path || '');
}

function number(value) {
  return typeof value === 'number' && Number.isFinite(value) ? value : null;
}

/**
 * The chart of `section` for `data`: a node that fills in once uPlot has
 * loaded. `data-series` holds the number of series, `data-points` the
 * number of days drawn.
 */
export function chartSection(section, data) {
  const items = getPath(data, section.collectionPath);
  const fields = section.fields || [];
  const rows = (Array.isArray(items) ? items : [])
    .map((item) => ({ x: daySeconds(getPath(item, section.xPath)), item }))
    .filter((row) => row.x !== null)
    .sort((a, b) => a.x - b.x);
  if (!rows.length) return h('p', { class: 'empty' }, section.emptyText || '暂无数据');
  const box = h('div', { class: 'chart', role: 'img', 'aria-label': `${section.label || '走势'}：${fields.map((f) => f.label).join('、')}`,
    dataset: { series: String(fields.length), points: String(rows.length) } });
  const columns = [rows.map((row) => row.x), ...fields.map((f) => rows.map((row) => number(getPath(row.item, f.path))))];
  uplot().then((UPlot) => draw(UPlot, box, fields, columns)).catch((error) => {
    box.replaceChildren(h('p', { class: 'error-box' }, `无法绘制图表：${error.message}`));
  });
  return box;
}

function draw(UPlot, box, fields, columns) {
  const width = Math.max(280, Math.min(box.clientWidth || 760, 960));
  // Each series on its own scale (fans and works differ by orders of
  // magnitude); the first two get an axis, left and right.
  const scales = { x: { time: true } };
  const series = [{ label: '日期', value: (u, v) => (v == null ? '—' : dayText(v)) }];
  const axes = [{ values: (u, splits) => splits.map((v) => dayText(v, true)), space: 60 }];
  fields.forEach((field, i) => {
    const scale = `s${i}`;
    scales[scale] = isRank(field) ? { dir: -1, range: (u, min, max) => [Math.max(0, min - 1), max + 1] } : {};
    const stroke = COLORS[i % COLORS.length];
    series.push({
      label: field.label || field.path,
      scale,
      stroke,
      width: 2,
      spanGaps: true,
      points: { show: true, size: 6 },
      value: (u, v) => (v == null ? '—' : v.toLocaleString('zh-CN')),
    });
    if (i < 2) {
      axes.push({ scale, side: i === 0 ? 3 : 1, stroke, grid: { show: i === 0 }, size: 70,
        values: (u, splits) => splits.map((v) => compact(v)) });
    }
  });
  const options = { width, height: 320, scales, series, axes, legend: { live: true },
    cursor: { points: { size: 8 } },
    // Days split at Asia/Shanghai midnight, whatever the browser's zone.
    tzDate: (ts) => UPlot.tzDate(new Date(ts * 1000), 'Asia/Shanghai') };
  box.replaceChildren();
  new UPlot(options, columns, box);
  box.dataset.drawn = 'true';
}

/** An axis value: 12,345 or 1.2万 / 3.4亿. */
function compact(value) {
  const abs = Math.abs(value);
  if (abs >= 1e8) return `${+(value / 1e8).toFixed(1)}亿`;
  if (abs >= 1e4) return `${+(value / 1e4).toFixed(1)}万`;
  return Number.isInteger(value) ? value.toLocaleString('zh-CN') : value.toFixed(1);
}

