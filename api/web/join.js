// Before taking a seat from an invitation or join link: which game, who invited, its
// options and clock; then Take seat, Decline (an invitation addressed to me) or Cancel.
import { h, api, toast, account, variants, titleOf, playerLink } from './core.js';
import { describeOptions } from './options.js';
import { notFound } from './gamepanels.js';

export async function joinView(main, id, seat, { accountForm }) {
  await variants();
  const me = account();
  let g;
  try {
    g = await api('GET', `/v1/games/${encodeURIComponent(id)}`, { auth: false });
  } catch (e) {
    if (e.status === 404 || e.status === 400) { notFound(main); return; }
    throw e;
  }
  const s = g.seats[seat];
  if (!s) { notFound(main); return; }
  let creator = null;
  try {
    const ev = await api('GET', `/v1/games/${g.id}/events?limit=1`, { auth: false });
    creator = ev.events[0] && ev.events[0].payload.created_by;
  } catch { /* only to name who invited */ }
  const creatorSeat = g.seats.find((x) => x.player_id && x.player_id === creator);
  const forMe = me && s.invited === me.id;
  const forOther = s.invited && !forMe;
  const free = g.status === 'waiting' && !s.player_id && !s.bot && !forOther;
  const others = g.seats.filter((x) => x.seat !== seat).map((x) => h('li', {}, `Player ${x.seat + 1}: `,
    x.player_id ? playerLink(x.player_id, x.name) : x.bot ? `computer (${x.bot})` : x.invited ? [playerLink(x.invited, x.invited_name), ' (invited)'] : 'open'));
  const card = h('section', { class: 'card', id: 'join', 'aria-labelledby': 'join-h' },
    h('h1', { id: 'join-h' }, forMe ? `A challenge: ${titleOf(g.variant)}` : `Join a game of ${titleOf(g.variant)}`),
    h('p', { id: 'join-invited-by' }, creatorSeat ? [playerLink(creatorSeat.player_id, creatorSeat.name), forMe ? ' challenges you' : ' invites you', ` to play as player ${seat + 1}.`]
      : `You are invited to play as player ${seat + 1}.`),
    h('dl', { class: 'facts' },
      h('dt', {}, 'Options'), h('dd', { id: 'join-options' }, describeOptions(g.variant, g.options) || 'the usual rules'),
      h('dt', {}, 'Clock'), h('dd', {}, g.days_per_move ? `${g.days_per_move} days per move` : 'none'),
      h('dt', {}, 'Rated'), h('dd', {}, g.rated ? 'yes' : 'no'),
      h('dt', {}, 'The other seats'), h('dd', {}, h('ul', { class: 'plain' }, ...others))));
  main.append(card);
  if (!me) {
    card.append(h('p', {}, 'To sit down, sign in or create your player first.'));
    main.append(accountForm());
    return;
  }
  if (!free) {
    card.append(h('p', { class: 'error', id: 'join-unavailable' },
      forOther ? 'This seat is reserved for another player.' : g.status !== 'waiting' ? 'This game has already started.' : 'This seat is taken.'),
    h('p', {}, h('a', { class: 'button', href: `#/game/${g.id}` }, 'Watch the game')));
    return;
  }
  const take = h('button', { type: 'button', id: 'confirm-take', onclick: async () => {
    take.disabled = true;
    try {
      await api('POST', `/v1/games/${g.id}/seats/${seat}`, { body: {} });
      toast(`You joined as player ${seat + 1}.`);
      location.replace(`#/game/${g.id}`);
    } catch (e) { take.disabled = false; toast(`Could not take the seat: ${e.message}`, 6000); }
  } }, 'Take seat');
  const decline = forMe ? h('button', { type: 'button', class: 'secondary', id: 'decline', onclick: async () => {
    try {
      await api('POST', `/v1/games/${g.id}/seats/${seat}/decline`, { body: {} });
      toast('Challenge declined.');
      location.replace('#/');
    } catch (e) { toast(e.message, 6000); }
  } }, 'Decline') : null;
  const cancel = h('a', { class: 'button secondary', id: 'cancel-join', href: '#/' }, 'Cancel');
  card.append(h('div', { class: 'row' }, take, decline, cancel));
  take.focus();
}
