// The new-game form: the game, who sits where (me, an open seat, a bot, or a challenged
// player), the clock, rated or not, who reads the messages, and the game's options.
import { h, api, account, variants, bots, botTitle } from './core.js';
import { optionField, OPTION_WORDS } from './options.js';

/** The bots offered where the server's list cannot be read: those every server has, for every game. */
const FALLBACK_BOTS = ['random', 'greedy', 'expectimax'].map((name) => ({ name, variants: null }));

export async function newGameView(main, { accountForm }) {
  const [vs, offered] = await Promise.all([variants(), bots()]);
  const botList = offered || FALLBACK_BOTS;
  // The bots that play a variant (all of them when the list did not say).
  const botsFor = (variant) => botList.filter((b) => !b.variants || b.variants.includes(variant));
  const me = account();
  if (!me) { main.append(accountForm({ title: 'Sign in to start a game' })); return; }
  const pre = new URLSearchParams(location.hash.split('?')[1] || '');
  // A challenge from a player's page: that player is invited to seat 1.
  let opponent = null;
  if (pre.get('invite')) {
    try { opponent = await api('GET', `/v1/players/${encodeURIComponent(pre.get('invite'))}`, { auth: false }); } catch { opponent = null; }
  }
  const variantSel = h('select', { id: 'variant', name: 'variant' },
    ...vs.map((v) => h('option', { value: v.name, selected: v.name === pre.get('variant') }, v.title)));
  const seatCount = h('select', { id: 'seat-count', name: 'seats' });
  const seatsBox = h('div', { id: 'seats' });
  const optsBox = h('div', { id: 'options' });
  const clock = h('select', { id: 'days-per-move', name: 'days_per_move', 'aria-describedby': 'clock-help' },
    h('option', { value: '' }, 'No clock'),
    ...[1, 2, 3, 5, 7, 10, 14].map((d) => h('option', { value: d }, `${d} day${d > 1 ? 's' : ''} per move`)));
  const rated = h('select', { id: 'rated', name: 'rated', 'aria-describedby': 'rated-help' },
    h('option', { value: '' }, 'Rated (unless a bot plays)'),
    h('option', { value: 'false' }, 'Not rated (a friendly game)'));
  const publicChat = h('input', { type: 'checkbox', id: 'public-chat', name: 'public_chat', 'aria-describedby': 'chat-help' });
  const err = h('p', { class: 'error', role: 'alert' });
  let fields = [];
  const seatChoice = (i) => h('div', { class: 'field' }, h('label', { for: `seat-${i}` }, `Player ${i + 1}`),
    h('select', { id: `seat-${i}`, name: `seat-${i}` },
      h('option', { value: 'me', selected: i === 0 }, 'Me'),
      h('option', { value: 'open', selected: i > 0 && !(opponent && i === 1) }, 'Open seat (anyone may join)'),
      opponent ? h('option', { value: `invite:${opponent.id}`, selected: i === 1 }, `Challenge ${opponent.name}`) : null,
      ...botsFor(variantSel.value).map((b) => h('option', { value: `bot:${b.name}` }, `Computer: ${botTitle(b.name)}`))));
  const context = () => {
    const options = {};
    for (const [k, f] of fields) {
      try { const v = f.read(); if (v !== undefined) options[k] = v; } catch { /* shown on submit */ }
    }
    return { seats: Number(seatCount.value), options };
  };
  const updateFields = () => { const ctx = context(); for (const [, f] of fields) if (f.update) f.update(ctx); };
  const drawSeats = () => {
    const n = Number(seatCount.value);
    const old = [...seatsBox.querySelectorAll('select')].map((s) => s.value);
    seatsBox.replaceChildren(...Array.from({ length: n }, (_, i) => seatChoice(i)));
    // A seat keeps its choice where the new list has it (a bot of another game has gone).
    old.slice(0, n).forEach((v, i) => {
      const s = seatsBox.querySelectorAll('select')[i];
      if ([...s.options].some((o) => o.value === v)) s.value = v;
    });
    updateFields();
  };
  const drawVariant = () => {
    const v = vs.find((x) => x.name === variantSel.value);
    seatCount.replaceChildren(...Array.from({ length: v.max_seats - v.min_seats + 1 }, (_, i) => {
      const n = v.min_seats + i;
      return h('option', { value: n }, `${n} players`);
    }));
    const props = v.options_schema.properties || {};
    // The options in the order of the words' table (backgammon's match length first), then the rest.
    const known = Object.keys(OPTION_WORDS[v.name] || {});
    const rank = (k) => (known.includes(k) ? known.indexOf(k) : known.length);
    fields = Object.keys(props).sort((a, b) => rank(a) - rank(b)).map((k) => [k, optionField(v.name, k, props[k], v.options_schema, (v.default_options || {})[k])]);
    optsBox.replaceChildren(...(fields.length ? fields.map(([, f]) => f.wrap) : [h('p', { class: 'muted' }, 'This game has no options.')]));
    drawSeats();
  };
  variantSel.addEventListener('change', drawVariant);
  seatCount.addEventListener('change', drawSeats);
  optsBox.addEventListener('change', (ev) => { if (!ev.target.closest('fieldset.colours')) updateFields(); });
  const form = h('form', { class: 'card', id: 'new-game', novalidate: true, onsubmit: async (ev) => {
    ev.preventDefault();
    err.textContent = '';
    try {
      const options = {};
      for (const [k, f] of fields) {
        const val = f.read();
        if (val !== undefined) options[k] = val;
      }
      const seats = [...seatsBox.querySelectorAll('select')].map((s) => {
        if (s.value === 'me') return me.id;
        if (s.value === 'open') return null;
        if (s.value.startsWith('invite:')) return s.value.slice(7);
        return { bot: s.value.slice(4) };
      });
      const body = { variant: variantSel.value, options, seats };
      if (clock.value) body.days_per_move = Number(clock.value);
      if (rated.value === 'false') body.rated = false;
      if (publicChat.checked) body.public_chat = true;
      const g = await api('POST', '/v1/games', { body });
      location.hash = `#/game/${g.id}`;
    } catch (e) { err.textContent = e.message; }
  } },
  h('h1', {}, 'New game'),
  h('label', { for: 'variant' }, 'Game'), variantSel,
  h('label', { for: 'seat-count' }, 'Players'), seatCount,
  seatsBox,
  h('h2', {}, 'Options'), optsBox,
  h('h2', {}, 'Play'),
  h('label', { for: 'days-per-move' }, 'Clock'), clock,
  h('p', { class: 'help', id: 'clock-help' }, 'A player who runs out of time leaves the game (with two players the other wins).'),
  h('label', { for: 'rated' }, 'Rating'), rated,
  h('p', { class: 'help', id: 'rated-help' }, 'A rated game changes both players\' ratings; a game with a computer player never does.'),
  h('div', { class: 'field' }, h('label', { class: 'inline', for: 'public-chat' }, publicChat, 'Anyone may read the messages'),
    h('p', { class: 'help', id: 'chat-help' }, 'Otherwise only the players read what they write in the game.')),
  h('p', {}, h('button', { type: 'submit', id: 'create-game' }, 'Create game')), err);
  main.append(form);
  drawVariant();
}
