// The lobby (games anyone may join), a player's page (ratings, record, recent games) and
// the leaderboard of a game.
import { h, api, account, variants, titleOf, fmtTime, playerLink } from './core.js';
import { describeOptions } from './options.js';
import { gameRow } from './home.js';

function variantFilter(id, vs, selected, { any = false } = {}) {
  return h('select', { id, name: 'variant' },
    any ? h('option', { value: '', selected: !selected }, 'All games') : null,
    ...vs.map((v) => h('option', { value: v.name, selected: v.name === selected }, v.title)));
}

const rating = (r) => String(Math.round(r));
const record = (r) => `${r.won}–${r.lost}–${r.drawn}`;

// ---------------------------------------------------------------- the lobby

export async function lobbyView(main, { setCleanup }) {
  const vs = await variants();
  const me = account();
  const pre = new URLSearchParams(location.hash.split('?')[1] || '');
  const filter = variantFilter('lobby-variant', vs, pre.get('variant'), { any: true });
  const list = h('ul', { class: 'list', id: 'lobby' });
  main.append(h('section', { class: 'card', 'aria-labelledby': 'lobby-h' },
    h('h1', { id: 'lobby-h' }, 'Lobby: games waiting for players'),
    h('div', { class: 'row' }, h('label', { for: 'lobby-variant', class: 'inline' }, 'Show'), filter,
      h('a', { class: 'button secondary', href: '#/new' }, 'Open a game of your own')),
    list));
  const load = async () => {
    const v = filter.value;
    const page = await api('GET', `/v1/lobby?limit=50${v ? `&variant=${encodeURIComponent(v)}` : ''}`, { auth: false });
    const games = page.games.filter((x) => !(me && x.game.seats.includes(me.id)));
    list.replaceChildren(...(games.length ? games.map((x) => {
      const g = x.game;
      const opts = describeOptions(g.variant, g.options);
      return h('li', { 'data-game': g.id },
        h('strong', {}, titleOf(g.variant)),
        h('span', {}, 'by ', playerLink(g.created_by, x.creator_name),
          x.creator_rating !== null && x.creator_rating !== undefined ? ` (rating ${rating(x.creator_rating)})` : ' (not rated yet)'),
        h('span', { class: 'muted' }, [opts, g.days_per_move ? `${g.days_per_move} days per move` : 'no clock',
          g.rated ? 'rated' : 'not rated'].filter(Boolean).join(' · ')),
        h('span', { class: 'row' }, ...(g.open_seats || []).map((s) => h('a', { class: 'button join-link', href: `#/join/${g.id}/${s}` },
          `Join as player ${s + 1}`))));
    }) : [h('li', { class: 'muted' }, 'No game is waiting for players. Open one yourself!')]));
  };
  filter.addEventListener('change', () => {
    history.replaceState(null, '', `#/lobby${filter.value ? `?variant=${filter.value}` : ''}`);
    load().catch(() => {});
  });
  await load();
  const timer = setInterval(() => load().catch(() => {}), 10000);
  setCleanup(() => clearInterval(timer));
}

// ---------------------------------------------------------------- a player's page

export async function playerView(main, id) {
  await variants();
  const me = account();
  let p;
  try {
    p = await api('GET', `/v1/players/${encodeURIComponent(id)}`, { auth: false });
  } catch (e) {
    if (e.status === 404 || e.status === 400) {
      main.append(h('section', { class: 'card', id: 'not-found' }, h('h1', {}, 'No such player'),
        h('p', {}, 'There is no player with that address.'), h('p', {}, h('a', { href: '#/' }, 'Back to your games'))));
      return;
    }
    throw e;
  }
  const itsMe = me && me.id === p.id;
  main.append(...[h('h1', { id: 'player-name' }, p.name, itsMe ? ' (you)' : ''),
    h('p', { class: 'muted' }, `Playing since ${fmtTime(p.joined)}.`),
    me && !itsMe ? h('p', {}, h('a', { class: 'button', id: 'challenge', href: `#/new?invite=${p.id}` }, `Challenge ${p.name}`)) : null,
    h('section', { class: 'card', 'aria-labelledby': 'ratings-h' }, h('h2', { id: 'ratings-h' }, 'Ratings'),
      p.ratings.length ? h('table', { class: 'table', id: 'ratings' },
        h('thead', {}, h('tr', {}, ...['Game', 'Rating', 'Games', 'Won–lost–drawn'].map((t) => h('th', { scope: 'col' }, t)))),
        h('tbody', {}, ...p.ratings.map((r) => h('tr', {},
          h('th', { scope: 'row' }, h('a', { href: `#/leaderboard?variant=${r.variant}` }, titleOf(r.variant))),
          h('td', {}, `${rating(r.rating)} ± ${rating(2 * r.deviation)}`),
          h('td', {}, r.games), h('td', {}, record(r))))))
        : h('p', { class: 'muted' }, 'No rated game finished yet.')),
    h('section', { class: 'card', 'aria-labelledby': 'recent-h' }, h('h2', { id: 'recent-h' }, 'Recent games'),
      h('ul', { class: 'list', id: 'recent' }, ...(p.recent_games.length ? p.recent_games.map((g) => gameRow(g, me))
        : [h('li', { class: 'muted' }, 'No finished game yet.')])))].filter(Boolean));
}

// ---------------------------------------------------------------- the leaderboard

export async function leaderboardView(main) {
  const vs = await variants();
  const me = account();
  const pre = new URLSearchParams(location.hash.split('?')[1] || '');
  const filter = variantFilter('leaderboard-variant', vs, pre.get('variant') || vs[0].name);
  const body = h('div', { id: 'leaderboard' });
  main.append(h('section', { class: 'card', 'aria-labelledby': 'leaders-h' },
    h('h1', { id: 'leaders-h' }, 'Leaderboard'),
    h('div', { class: 'row' }, h('label', { for: 'leaderboard-variant', class: 'inline' }, 'Game'), filter), body));
  const load = async () => {
    const b = await api('GET', `/v1/leaderboard?variant=${encodeURIComponent(filter.value)}`, { auth: false });
    body.replaceChildren(
      h('p', { class: 'help' }, `Players whose rating is settled (after about ten rated games), best first.`),
      b.players.length ? h('table', { class: 'table' },
        h('thead', {}, h('tr', {}, ...['#', 'Player', 'Rating', 'Games', 'Won–lost–drawn'].map((t) => h('th', { scope: 'col' }, t)))),
        h('tbody', {}, ...b.players.map((r, i) => h('tr', {},
          h('td', {}, i + 1), h('th', { scope: 'row' }, playerLink(r.player_id, r.name, { you: me && me.id === r.player_id })),
          h('td', {}, rating(r.rating)), h('td', {}, r.games), h('td', {}, record(r))))))
        : h('p', { class: 'muted', id: 'no-leaders' }, `Nobody has a settled rating in ${titleOf(filter.value)} yet.`));
  };
  filter.addEventListener('change', () => {
    history.replaceState(null, '', `#/leaderboard?variant=${filter.value}`);
    load().catch(() => {});
  });
  await load();
}
