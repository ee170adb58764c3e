// Links from result rows to an account's page (`#/account/<platform>/<id>`,
// pages/account.js): a row names an account when it (or its `item`, on a
// `{rank, item}` board) carries one of the account id fields below, on a
// platform whose accounts the store keeps (the row's `platform` token, or
// the operation's).

import { h } from 'wb/dom.js';

/** Platform tokens whose accounts the store keeps (docs/history.md). */
export const ACCOUNT_PLATFORMS = ['lifestyle', 'shortvideo', 'articles', 'videosite', 'intlshort', 'channels', 'clipapp', 'microblog'];

/** Account id fields of the responses, most specific first. */
const ID_FIELDS = ['accountId', 'authorId', 'userId', 'uid', 'mid', 'secUid', 'redId', 'userid'];

function idOf(row) {
  if (!row || typeof row !== 'object') return null;
  for (const name of ID_FIELDS) {
    const value = row[name];
    if ((typeof value === 'string' && value.trim()) || (typeof value === 'number' && value > 0)) return String(value).trim();
  }
  return null;
}

/** `{platform, id}` of the account a result row names, or null. */
export function accountOf(row, platform) {
  const inner = row && typeof row.item === 'object' ? row.item : null;
  const id = idOf(row) || idOf(inner);
  const token = [row && row.platform, inner && inner.platform, platform].find((p) => ACCOUNT_PLATFORMS.includes(p));
  return id && token ? { platform: token, id } : null;
}

/** The hash of an account's page. */
export function accountHref({ platform, id }) {
  return `#/account/${encodeURIComponent(platform)}/${encodeURIComponent(id)}`;
}

/** A "走势" link to the account's page. */
export function accountLink(account) {
  return h('a', { href: accountHref(account), class: 'account-link', title: `${account.platform} 账号 ${account.id} 的数据走势` }, '走势');
}
