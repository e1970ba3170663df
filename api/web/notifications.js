// Notifications: on the account page, the e-mail address (given, confirmed through the
// link of a mail, stopped when its mail server refuses it for good) and what the player
// hears of each kind of notice by e-mail and push, with quiet hours, the time zone and the
// digest's hour; on a game's page, muting that game.
import { h, api, fmtTime } from './core.js';

/** The kinds of notice, as the API names them, with their title and what they are. */
export const KINDS = [
  ['your_turn', 'Your turn', 'It is your move in a game.'],
  ['invited', 'Challenges and invitations', 'A player invites you to a game, or declines your invitation.'],
  ['game_finished', 'Finished games', 'A game of yours ended.'],
  ['message', 'Messages', 'An opponent wrote in the chat of a game of yours.'],
  ['clock_reminder', 'Clock reminders', 'Your time to move in a game is running out.'],
];

/** How a kind of notice may come by e-mail. */
const EMAIL_CHOICES = [['now', 'At once'], ['digest', 'Daily digest'], ['off', 'Off']];

/** The server's refusal in its own words (its problem's `detail`), else the client's. */
function refusal(e) {
  if (!e.detail) return e.message;
  const d = e.detail.replace(/\.$/, '');
  return `${d[0].toUpperCase()}${d.slice(1)}.`;
}

/** What an action did (said politely) or why it failed (an alert). */
function feedback() {
  const ok = h('p', { class: 'ok', role: 'status' });
  const bad = h('p', { class: 'error', role: 'alert' });
  const show = (okText, badText) => { ok.textContent = okText; bad.textContent = badText; };
  return { nodes: [ok, bad], done: (t) => show(t, ''), failed: (t) => show('', t), clear: () => show('', '') };
}

/** A card of the account page, its heading focusable (the focus goes there after a removal). */
function card(id, title, ...children) {
  const heading = h('h2', { id: `${id}-h`, tabindex: -1 }, title);
  return { heading, el: h('section', { class: 'card', id, 'aria-labelledby': `${id}-h` }, heading, ...children) };
}

/** The two sections of the account page: the e-mail address, and what comes how. */
export function notificationSections() {
  return [emailSection(), preferencesSection()];
}

// ---------------------------------------------------------------- the e-mail address

function emailSection() {
  const r = feedback();
  const state = h('div', { id: 'email-state', 'aria-live': 'polite' }, h('p', { class: 'muted' }, 'Loading…'));
  const input = h('input', { id: 'email-address', type: 'email', autocomplete: 'email', maxlength: 254, spellcheck: 'false',
    'aria-describedby': 'email-help' });
  const save = h('button', { type: 'submit', id: 'save-email' }, 'Send me the link');
  const formTitle = h('h3', { id: 'email-form-h' }, 'Give your address');
  const remove = h('button', { type: 'button', class: 'danger', id: 'remove-email', hidden: true, onclick: removeAddress }, 'Remove the address');
  const form = h('form', { id: 'email-form', novalidate: true, 'aria-labelledby': 'email-form-h', onsubmit: (ev) => {
    ev.preventDefault();
    const address = input.value.trim();
    if (!address) { r.failed('Type your e-mail address.'); input.focus(); return; }
    give(address, save);
  } },
  formTitle,
  h('label', { for: 'email-address' }, 'E-mail address'),
  h('p', { class: 'help', id: 'email-help' }, 'Worp mails it a link to confirm that it is yours, and sends it nothing else until you open it.'),
  input, h('p', {}, save));
  const { el, heading } = card('email-section', 'E-mail',
    h('p', { class: 'help' }, 'Hear about your games by e-mail: at once, or in one mail a day (choose below, under Notifications).'),
    state, ...r.nodes, form, h('p', {}, remove));

  /** Gives `address` (again): the server mails it a new link. */
  async function give(address, button) {
    r.clear();
    button.disabled = true;
    try {
      const view = await api('PUT', '/v1/players/me/email', { body: { address } });
      draw(view);
      form.reset();
      r.done(`We sent a link to ${view.address}: open it to confirm the address.`);
      // The button pressed was drawn anew: the focus goes to its successor.
      if (button !== save) state.querySelector('#resend-email')?.focus();
    } catch (e) {
      r.failed(`Not sent: ${refusal(e)}`);
      if (button === save) input.focus();
    } finally { button.disabled = false; }
  }

  async function removeAddress() {
    const address = state.dataset.address;
    if (!confirm(`Remove ${address}? Worp sends it no more mail.`)) return;
    r.clear();
    remove.disabled = true;
    try {
      await api('DELETE', '/v1/players/me/email');
      draw(null);
      r.done(`${address} is removed: Worp sends you no mail.`);
      heading.focus();
    } catch (e) {
      if (e.status === 404) { draw(null); heading.focus(); } else r.failed(refusal(e));
    } finally { remove.disabled = false; }
  }

  /** Shows the address `view` (`null`: none given) and its state, in words. */
  function draw(view) {
    remove.hidden = !view;
    formTitle.textContent = view ? 'Give another address' : 'Give your address';
    if (!view) {
      delete state.dataset.address;
      state.dataset.state = 'none';
      state.replaceChildren(h('p', { id: 'email-none' }, 'You have given no e-mail address: Worp sends you no mail.'));
      return;
    }
    state.dataset.address = view.address;
    const addr = h('strong', { class: 'mono' }, view.address);
    if (view.disabled_at) {
      state.dataset.state = 'disabled';
      state.replaceChildren(h('div', { class: 'warning', id: 'email-disabled', role: 'alert' },
        h('p', {}, h('strong', {}, 'Mail to this address has stopped. '), 'The mail server of ', addr,
          ` refused it for good (${fmtTime(view.disabled_at)})${view.disabled_reason ? ', saying:' : '.'}`),
        view.disabled_reason ? h('p', { class: 'mono', id: 'email-disabled-reason' }, view.disabled_reason) : null,
        h('p', {}, 'Worp sends it nothing until you give it again: once it works, give it again with a new link, or give another address below.'),
        h('p', {}, h('button', { type: 'button', id: 'give-email-again', onclick: (ev) => give(view.address, ev.currentTarget) },
          `Give ${view.address} again`))));
    } else if (!view.confirmed) {
      state.dataset.state = 'unconfirmed';
      state.replaceChildren(h('p', { id: 'email-unconfirmed' }, h('span', { class: 'badge' }, 'Not confirmed yet'), ' We sent a link to ', addr,
        ' — open it to confirm. ', view.confirmation_expires_at ? `It works until ${fmtTime(view.confirmation_expires_at)}; ` : '',
        'until then the address gets no other mail.'),
      h('p', {}, h('button', { type: 'button', class: 'secondary', id: 'resend-email', onclick: (ev) => give(view.address, ev.currentTarget) },
        'Send the link again')));
    } else {
      state.dataset.state = 'confirmed';
      state.replaceChildren(h('p', { id: 'email-confirmed' }, h('span', { class: 'badge' }, 'Confirmed'), ' ', addr,
        ' gets the mails you choose below.'));
    }
  }

  (async () => {
    try {
      draw(await api('GET', '/v1/players/me/email'));
    } catch (e) {
      if (e.status === 404) draw(null);
      else { state.replaceChildren(); r.failed(refusal(e)); }
    }
  })();
  return el;
}

// ---------------------------------------------------------------- what comes how

/** This browser's time zone (an IANA name), if it says one. */
function browserZone() {
  try { return Intl.DateTimeFormat().resolvedOptions().timeZone || null; } catch { return null; }
}

/** The IANA time zones this browser knows, for the time zone's suggestions. */
function knownZones() {
  try { return typeof Intl.supportedValuesOf === 'function' ? Intl.supportedValuesOf('timeZone') : []; } catch { return []; }
}

const hh = (n) => String(n).padStart(2, '0');

function preferencesSection() {
  const r = feedback();
  const kinds = KINDS.map(([kind, title, what]) => {
    const email = h('select', { id: `notify-${kind}-email`, 'aria-describedby': `notify-${kind}-what` },
      ...EMAIL_CHOICES.map(([v, text]) => h('option', { value: v }, text)));
    const push = h('input', { type: 'checkbox', id: `notify-${kind}-push`, 'aria-describedby': `notify-${kind}-what` });
    const set = h('fieldset', { class: 'notify-kind', 'data-kind': kind }, h('legend', {}, title),
      h('p', { class: 'help', id: `notify-${kind}-what` }, what),
      h('div', { class: 'row' },
        h('div', {}, h('label', { for: `notify-${kind}-email` }, 'By e-mail'), email),
        h('label', { class: 'inline', for: `notify-${kind}-push` }, push, 'Push to my devices')));
    return { kind, email, push, set };
  });

  const quiet = h('input', { type: 'checkbox', id: 'quiet-hours-on', 'aria-controls': 'quiet-hours-times', onchange: () => showQuiet() });
  const start = h('input', { type: 'time', id: 'quiet-start', step: 60 });
  const end = h('input', { type: 'time', id: 'quiet-end', step: 60 });
  const times = h('div', { class: 'row', id: 'quiet-hours-times' },
    h('div', {}, h('label', { for: 'quiet-start' }, 'From'), start),
    h('div', {}, h('label', { for: 'quiet-end' }, 'Until'), end));
  const showQuiet = () => {
    times.hidden = !quiet.checked;
    if (quiet.checked && !start.value) start.value = '22:00';
    if (quiet.checked && !end.value) end.value = '07:00';
  };

  const zone = h('input', { id: 'time-zone', list: 'time-zones', autocomplete: 'off', spellcheck: 'false', maxlength: 64,
    'aria-describedby': 'time-zone-help time-zone-guess' });
  const zoneGuess = h('p', { class: 'help', id: 'time-zone-guess' });
  const digest = h('select', { id: 'digest-hour', 'aria-describedby': 'digest-hour-help' },
    ...Array.from({ length: 24 }, (_, n) => h('option', { value: n }, `${hh(n)}:00`)));

  const save = h('button', { type: 'submit', id: 'save-notifications', disabled: true }, 'Save');
  let stored = null;
  const form = h('form', { id: 'notifications-form', novalidate: true, 'aria-label': 'Notifications', onsubmit: async (ev) => {
    ev.preventDefault();
    r.clear();
    if (quiet.checked && (!start.value || !end.value)) { r.failed('Give the start and the end of your quiet hours.'); (start.value ? end : start).focus(); return; }
    if (!zone.value.trim()) { r.failed('Give your time zone, such as Europe/Amsterdam.'); zone.focus(); return; }
    const body = { ...stored, time_zone: zone.value.trim(), digest_hour: Number(digest.value),
      quiet_hours: quiet.checked ? { start: start.value.slice(0, 5), end: end.value.slice(0, 5) } : null };
    for (const k of kinds) body[k.kind] = { email: k.email.value, push: k.push.checked };
    save.disabled = true;
    try {
      fill(await api('PUT', '/v1/players/me/notifications', { body }));
      r.done('Saved: your notifications come as chosen here.');
    } catch (e) {
      r.failed(`Not saved: ${refusal(e)}`);
      if (e.status === 400 && /zone/.test(e.detail || '')) zone.focus();
    } finally { save.disabled = false; }
  } },
  h('div', { class: 'notify-kinds' }, ...kinds.map((k) => k.set)),
  h('fieldset', { id: 'quiet-hours' }, h('legend', {}, 'Quiet hours'),
    h('p', { class: 'help', id: 'quiet-hours-help' }, 'No push and no mail in these hours (the daily digest excepted): what comes meanwhile waits for their end. A start later than the end spans midnight.'),
    h('label', { class: 'inline', for: 'quiet-hours-on' }, quiet, 'Keep quiet hours'), times),
  h('label', { for: 'time-zone' }, 'Time zone'),
  h('p', { class: 'help', id: 'time-zone-help' }, 'Of your quiet hours and your digest: a name such as Europe/Amsterdam or America/New_York.'),
  zone, h('datalist', { id: 'time-zones' }, ...knownZones().map((z) => h('option', { value: z }))), zoneGuess,
  h('label', { for: 'digest-hour' }, 'Daily digest at'),
  h('p', { class: 'help', id: 'digest-hour-help' }, 'The hour of the day, in your time zone, the digest is mailed (only on days with something in it).'),
  digest,
  h('p', {}, save), ...r.nodes);

  /** Shows the preferences `p` as the server keeps them. */
  function fill(p) {
    stored = p;
    for (const k of kinds) {
      k.email.value = p[k.kind]?.email || 'off';
      k.push.checked = !!p[k.kind]?.push;
    }
    quiet.checked = !!p.quiet_hours;
    start.value = p.quiet_hours ? p.quiet_hours.start : '';
    end.value = p.quiet_hours ? p.quiet_hours.end : '';
    showQuiet();
    digest.value = String(p.digest_hour);
    // "UTC" is the server's default: this browser's zone is the better guess until saved.
    const here = browserZone();
    if (p.time_zone === 'UTC' && here && !/^(Etc\/)?(UTC|GMT)$/.test(here)) {
      zone.value = here;
      zoneGuess.textContent = `Filled in from this browser (${here}): Save to keep it.`;
    } else {
      zone.value = p.time_zone;
      zoneGuess.textContent = '';
    }
  }

  const { el } = card('notifications-section', 'Notifications',
    h('p', { class: 'help' }, 'For each kind of notice: whether it comes by e-mail (at once, or in one mail a day) and whether it is pushed to the devices where you turned on notifications. E-mail goes only to a confirmed address.'),
    form);
  (async () => {
    try {
      fill(await api('GET', '/v1/players/me/notifications'));
      save.disabled = false;
    } catch (e) { r.failed(refusal(e)); }
  })();
  return el;
}

// ---------------------------------------------------------------- muting a game

/**
 * The toggle of a game's page that mutes it (no mail, no push about it): `el` to place in
 * the page, `update(game)` whenever the game is shown. It shows only to a player who sits
 * in the game or is invited to it.
 */
export function muteToggle(id, me) {
  const button = h('button', { type: 'button', class: 'secondary', id: 'mute-game', 'aria-pressed': 'false',
    'aria-describedby': 'mute-state', disabled: true, onclick: toggle }, 'Mute notifications for this game');
  const state = h('p', { class: 'help', id: 'mute-state' });
  const err = h('p', { class: 'error', role: 'alert', id: 'mute-error' });
  const el = h('section', { class: 'card', id: 'mute-box', 'aria-labelledby': 'mute-h', hidden: true },
    h('h2', { id: 'mute-h' }, 'Notifications'), h('p', {}, button), state, err);
  let loaded = false;

  function set(muted) {
    button.setAttribute('aria-pressed', muted ? 'true' : 'false');
    state.replaceChildren(...(muted
      ? ['Muted: no e-mail and no push about this game.']
      : ['Notices of this game come as chosen on ', h('a', { href: '#/account' }, 'your account page'), '.']));
  }

  async function toggle() {
    const muted = button.getAttribute('aria-pressed') !== 'true';
    err.textContent = '';
    button.disabled = true;
    try {
      await api(muted ? 'PUT' : 'DELETE', `/v1/players/me/muted-games/${encodeURIComponent(id)}`);
      set(muted);
    } catch (e) { err.textContent = refusal(e); } finally { button.disabled = false; }
  }

  async function load() {
    loaded = true;
    try {
      const ids = await api('GET', '/v1/players/me/muted-games');
      set((ids || []).includes(id));
      button.disabled = false;
    } catch (e) { loaded = false; err.textContent = refusal(e); }
  }

  function update(g) {
    const mine = !!me && !!g && g.seats.some((s) => s.player_id === me.id || s.invited === me.id);
    el.hidden = !mine;
    if (mine && !loaded) load();
  }
  return { el, update };
}
