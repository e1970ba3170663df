// OAuth's consent screen. A third-party front-end sends the player's browser to
// /oauth/authorize?...; the server checks the request and answers with this client, which
// shows who asks (the client_id and, prominently, the origin the browser goes back to)
// and what for (the scopes), once the player is signed in with a session: a token kept in
// the browser cannot consent. "Authorise" or "Deny" posts the answer, and the browser goes
// where the server says (the app's redirect URI with a code, or with an error).
import { h, api, account } from './core.js';

function refused(main, title, text) {
  const heading = h('h1', { id: 'consent-h', tabindex: -1 }, title);
  main.append(h('section', { class: 'card', id: 'consent-refused', 'aria-labelledby': 'consent-h' },
    heading, h('p', { class: 'error', role: 'alert' }, text),
    h('p', {}, h('a', { href: '/#/' }, 'Go to Worp'))));
  heading.focus();
}

export async function consentView(main, { accountForm }) {
  // Inside another site's frame, "Authorise" could be clicked through a disguise.
  if (window.top !== window.self) {
    refused(main, 'Authorise an app', 'This page cannot be used inside another site\'s frame: open it in its own tab.');
    return;
  }
  const params = Object.fromEntries(new URLSearchParams(location.search));
  let ask;
  try {
    ask = await api('GET', `/v1/oauth/authorize${location.search}`, { auth: false });
  } catch (e) {
    refused(main, 'This authorisation request cannot be answered', `${e.detail || e.message}. Tell the app that sent you here.`);
    return;
  }
  const me = account();
  const heading = h('h1', { id: 'consent-h', tabindex: -1 }, 'Authorise an app?');
  const who = h('div', { class: 'consent-app' },
    h('p', {}, h('strong', { id: 'consent-client', class: 'mono' }, ask.client_id), ' asks to use your Worp account.'),
    h('p', {}, 'Answering sends you back to ', h('strong', { id: 'consent-origin', class: 'mono' }, ask.redirect_origin), '.'));
  const card = h('section', { class: 'card consent', id: 'consent', 'aria-labelledby': 'consent-h' }, heading, who);
  main.append(card);

  if (!me || !me.session) {
    card.append(h('p', { id: 'consent-sign-in' }, me
      ? `This browser keeps the token of ${me.name}, which cannot authorise apps: sign in with your name and password (no password yet? set one on `
      : 'Sign in to answer (no account yet? create your player below, or ',
    h('a', { href: '/#/account' }, me ? 'your account page' : 'go to Worp'), ').'));
    main.append(accountForm({ signUp: !me, token: false }));
    heading.focus();
    return;
  }

  const err = h('p', { class: 'error', role: 'alert', id: 'consent-error' });
  const answer = async (approve) => {
    err.textContent = '';
    for (const b of buttons) b.disabled = true;
    try {
      const { redirect_uri: to } = await api('POST', '/v1/oauth/authorize', { body: { ...params, approve } });
      card.setAttribute('aria-busy', 'true');
      location.assign(to);
    } catch (e) {
      err.textContent = e.message;
      for (const b of buttons) b.disabled = false;
    }
  };
  const buttons = [
    h('button', { type: 'button', id: 'authorise', onclick: () => answer(true) }, 'Authorise'),
    h('button', { type: 'button', class: 'secondary', id: 'deny', onclick: () => answer(false) }, 'Deny'),
  ];
  card.append(
    h('p', {}, 'Signed in as ', h('strong', { id: 'consent-player' }, me.name), '.'),
    h('h2', { id: 'consent-scopes-h' }, 'It will be able to'),
    h('ul', { id: 'consent-scopes', class: 'scope-list', 'aria-labelledby': 'consent-scopes-h' },
      ...(ask.scopes.length ? ask.scopes.map((s) => h('li', { 'data-scope': s.scope }, h('span', {}, s.description), ' ', h('code', {}, s.scope)))
        : [h('li', {}, 'Know your player\'s name, and nothing more')])),
    h('p', { class: 'help' }, 'Authorise only an app you trust. You can revoke it at any time on your ',
      h('a', { href: '/#/account' }, 'account page'), '.'),
    h('div', { class: 'row' }, ...buttons), err);
  heading.focus();
}
