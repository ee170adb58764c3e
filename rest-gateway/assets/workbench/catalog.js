// The catalogs (spec 2.2-2.4) merged into one list of operations, plus the
// REST route and gRPC method of each (`GET /workbench/routes.json`).

import { request } from 'wb/api.js';

/** Task families of spec 2.4, in home-page order, with their UI names. */
export const FAMILIES = [
  ['find_trends', '找趋势'],
  ['search_content', '搜内容'],
  ['create_media', '做素材'],
  ['write_content', '写内容'],
  ['analyze_account', '分析账号'],
  ['publish_sync', '发布同步'],
];

let loaded = null;

/**
 * Loads once per sign-in: `{operations: [op], byKey: Map}`. An op is the
 * catalog entry (data API or skill) plus `kind` (`api`/`skill`) and
 * `route` (`{method, path, bodyField, pathParams, grpcMethod}` or null).
 * Throws `{status, error}` when a catalog cannot be read.
 */
export async function catalog() {
  if (!loaded) {
    loaded = load().catch((error) => {
      loaded = null;
      throw error;
    });
  }
  return loaded;
}

/** Forgets the loaded catalog (after sign-out). */
export function forget() {
  loaded = null;
}

async function load() {
  const [apis, skills, routes] = await Promise.all([
    request('GET', '/api/apis'),
    request('GET', '/api/skills'),
    request('GET', '/workbench/routes.json'),
  ]);
  for (const answer of [apis, skills]) {
    if (!answer.envelope.success) throw { status: answer.status, error: answer.envelope.error };
  }
  const routeOf = routes.status === 200 ? routes.envelope.routes || {} : {};
  const operations = [];
  const byKey = new Map();
  const add = (entry, kind) => {
    if (byKey.has(entry.operationKey)) return;
    const op = { ...entry, kind, route: routeOf[entry.operationKey] || null };
    operations.push(op);
    byKey.set(op.operationKey, op);
  };
  apis.envelope.data.items.forEach((entry) => add(entry, 'api'));
  skills.envelope.data.items.forEach((entry) => add(entry, 'skill'));
  return { operations, byKey };
}

/** Whether an operation can be called now, and the note when not. */
export function availability(op) {
  if (op.availability && op.availability.status) {
    return { callable: false, note: op.availability.note || '维护中' };
  }
  if (!op.execution || op.execution.mode === 'unavailable' || !op.route) {
    return { callable: false, note: '暂不可用' };
  }
  return { callable: true, note: '' };
}

/** `N 点` or `免费`. */
export function priceText(op) {
  return op.unitPrice > 0 ? `${op.unitPrice} 点` : '免费';
}

/** Home order: `featuredRank` first (ascending), then the catalog order. */
export function byFeaturedRank(a, b) {
  const ra = a.taskUi && Number.isInteger(a.taskUi.featuredRank) ? a.taskUi.featuredRank : Infinity;
  const rb = b.taskUi && Number.isInteger(b.taskUi.featuredRank) ? b.taskUi.featuredRank : Infinity;
  return ra === rb ? 0 : ra < rb ? -1 : 1;
}
