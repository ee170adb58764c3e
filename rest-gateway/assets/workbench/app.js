// The workbench: sign-in, the header with the account and its balance, and
// the hash router over the pages. Everything it shows of an operation comes
// from the catalogs (spec 2.2-2.4); adding an operation to the proto adds
// it here with no UI code.

import { h, replace } from 'wb/dom.js';
import { session, refreshBalance } from 'wb/api.js';
import { catalog, forget } from 'wb/catalog.js';
import { signInPage } from 'wb/pages/signin.js';
import { homePage } from 'wb/pages/home.js';
import { operationPage } from 'wb/pages/operation.js';
import { editorPage } from 'wb/pages/editor.js';
import { charterPage } from 'wb/pages/charter.js';
import { usagePage } from 'wb/pages/usage.js';
import { accountPage } from 'wb/pages/account.js';
import { codeText, detail } from 'wb/messages.js';

const main = document.getElementById('main');
const accountBox = document.getElementById('account');
let lastBalance = null;

document.addEventListener('mediaops:balance', (event) => {
  lastBalance = event.detail.points;
  replace(accountBox,
    h('span', { class: 'account-id' }, `账户 ${event.detail.accountId}`),
    h('span', { class: 'balance', id: 'balance', dataset: { points: String(event.detail.points) } }, `余额 ${event.detail.points} 点`),
    h('button', { type: 'button', class: 'link', onclick: () => session.signOut() }, '退出'));
});

document.addEventListener('mediaops:signed-out', () => {
  forget();
  lastBalance = null;
  accountBox.replaceChildren();
  route();
});

async function route() {
  if (!session.key()) {
    document.body.classList.add('signed-out');
    return signInPage(main, { onSignedIn: (balance) => {
      document.dispatchEvent(new CustomEvent('mediaops:balance', { detail: balance }));
      route();
    } });
  }
  document.body.classList.remove('signed-out');
  if (lastBalance === null) refreshBalance();
  const hash = decodeURIComponent(location.hash.replace(/^#/, '')) || '/';
  main.setAttribute('aria-busy', 'true');
  let loaded;
  try {
    loaded = await catalog();
  } catch (failure) {
    main.removeAttribute('aria-busy');
    replace(main, h('h1', {}, '无法读取目录'), h('p', { class: 'error-box', role: 'alert' },
      failure.error ? `${codeText(failure.error.code)}。${detail(failure.error)}` : String(failure)));
    return;
  }
  const context = { ...loaded, balance: () => lastBalance };
  const [, page, arg, arg2] = hash.split('/');
  highlightNav(page || '');
  if (!page) homePage(main, context);
  else if (page === 'op' && loaded.byKey.has(arg)) operationPage(main, loaded.byKey.get(arg), context);
  else if (page === 'editor') await editorPage(main, context);
  else if (page === 'charter') charterPage(main, context);
  else if (page === 'usage') await usagePage(main, context);
  else if (page === 'account' && arg && arg2) await accountPage(main, context, arg, arg2);
  else replace(main, h('h1', {}, '找不到页面'), h('p', {}, h('a', { href: '#/' }, '回到首页')));
  main.removeAttribute('aria-busy');
  const heading = main.querySelector('h1');
  document.title = `${heading ? heading.textContent : '工作台'} · mediaops`;
  main.focus({ preventScroll: true });
}

function highlightNav(page) {
  for (const link of document.querySelectorAll('nav.top-nav a[data-page]')) {
    if (link.dataset.page === page) link.setAttribute('aria-current', 'page');
    else link.removeAttribute('aria-current');
  }
}

window.addEventListener('hashchange', route);
route();
