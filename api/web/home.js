// The home page: challenges (invitations addressed to me, to accept or decline), the games
// awaiting my move, and all my games, each with the names of its players.
import { h, api, toast, account, setAccount, playerStream, variants, titleOf, fmtTime, agoText, deadlineText, seatNames, reasonText, ENDINGS } from './core.js';
import { describeOptions } from './options.js';

/** A game in a list: its title as a link, its players, and how it stands. */
export function gameRow(g, me, extra) {
  const mine = me && g.to_move_player === me.id && g.status === 'active';
  let state = g.status;
  if (mine) state = g.question ? 'answer the offer' : 'your turn';
  else if (g.status === 'finished') state = finishedWords(g, me);
  else if (g.status === 'waiting') state = 'waiting for players';
  else if (g.status === 'active') state = (g.names || [])[g.to_move] ? `${g.names[g.to_move]} to move` : 'in play';
  return h('li', {},
    h('a', { href: `#/game/${g.id}`, class: 'game-link', 'data-game': g.id }, titleOf(g.variant)),
    // A match is not a single game: say so in the list.
    g.options && g.options.match_length > 0 ? h('span', { class: 'badge match' }, `match to ${g.options.match_length}`) : null,
    seatNames(g, me),
    h('span', { class: `badge${mine ? ' turn' : ''}` }, state),
    g.deadline ? h('span', { class: 'deadline' }, `Deadline: ${deadlineText(g.deadline)}`) : null,
    h('span', { class: 'muted', title: fmtTime(g.updated_at) }, `updated ${agoText(g.updated_at)}`),
    extra || null);
}

/** "you won", "Alice won (resigned)", "draw". */
function finishedWords(g, me) {
  const r = g.result;
  if (!r) return 'finished';
  if (r.winner === null || r.winner === undefined) return ENDINGS[r.ending] || 'draw';
  const nameOf = (i) => (me && g.seats[i] === me.id ? 'you' : ((g.names || [])[i] || (g.seats[i] ? `player ${i + 1}` : 'the computer')));
  const who = nameOf(r.winner);
  let why = reasonText(g.reason);
  // With two seats, the one that left is the other one.
  if (g.seats.length === 2 && (g.reason === 'resigned' || g.reason === 'timed_out')) why = `${nameOf(1 - r.winner)} ${why}`;
  return `${who} won${why ? ` (${why})` : ''}${g.aborted ? ', aborted' : ''}`;
}

export async function homeView(main, { accountForm, setCleanup, route }) {
  await variants();
  const me = account();
  if (!me) {
    main.append(accountForm({ title: 'Welcome to Worp' }));
    return;
  }
  const challenges = h('ul', { class: 'list', id: 'challenges' });
  const inbox = h('ul', { class: 'list', id: 'inbox' });
  const mine = h('ul', { class: 'list', id: 'my-games' });
  const challengeBox = h('section', { class: 'card', 'aria-labelledby': 'challenges-h', hidden: true },
    h('h2', { id: 'challenges-h' }, 'Challenges to you'), challenges);
  main.append(
    h('section', { class: 'card', 'aria-labelledby': 'inbox-h' }, h('h1', { id: 'inbox-h' }, 'Your turn'), inbox),
    challengeBox,
    h('p', { class: 'row' }, h('a', { class: 'button', href: '#/new' }, 'New game'),
      h('a', { class: 'button secondary', href: '#/lobby' }, 'Find a game in the lobby')),
    h('section', { class: 'card', 'aria-labelledby': 'mine-h' }, h('h2', { id: 'mine-h' }, 'Your other games'), mine),
    // A player signed in with a token kept here (from before passwords) may copy it, or
    // better set a password.
    me.token ? h('details', { class: 'card' }, h('summary', {}, 'Your token (to sign in from another browser)'),
      h('p', { class: 'help' }, 'Keep it secret: whoever has it plays as you. ',
        h('a', { href: '#/account' }, 'Set a password'), ' to sign in on any device with your name instead.'),
      h('input', { readonly: true, value: me.token, 'aria-label': 'Your token', class: 'mono', style: 'width:100%', onfocus: (e) => e.target.select() })) : null);
  const answer = async (g, seat, take) => {
    try {
      if (take) {
        await api('POST', `/v1/games/${g.id}/seats/${seat}`, { body: {} });
        location.hash = `#/game/${g.id}`;
      } else {
        await api('POST', `/v1/games/${g.id}/seats/${seat}/decline`, { body: {} });
        toast('Challenge declined.');
        load();
      }
    } catch (e) { toast(e.message, 6000); }
  };
  const load = async () => {
    try {
      const [a, b] = await Promise.all([
        api('GET', '/v1/games?my_turn=true&limit=100'),
        api('GET', `/v1/games?player=${encodeURIComponent(me.id)}&limit=50`),
      ]);
      inbox.replaceChildren(...(a.games.length ? a.games.map((g) => gameRow(g, me))
        : [h('li', { class: 'muted' }, 'No game is waiting for your move.')]));
      const invitations = [];
      const others = [];
      // A game awaiting my move is listed once, under "Your turn".
      const turns = new Set(a.games.map((g) => g.id));
      for (const g of b.games) {
        if (turns.has(g.id)) continue;
        const seat = g.status === 'waiting' ? (g.invited || []).indexOf(me.id) : -1;
        if (seat >= 0) invitations.push([g, seat]); else others.push(g);
      }
      challengeBox.hidden = !invitations.length;
      challenges.replaceChildren(...invitations.map(([g, seat]) => {
        const opts = describeOptions(g.variant, g.options);
        return gameRow(g, me, h('span', { class: 'row' },
          opts ? h('span', { class: 'muted' }, opts) : null,
          h('button', { type: 'button', class: 'accept', onclick: () => answer(g, seat, true) }, 'Accept'),
          h('button', { type: 'button', class: 'secondary decline', onclick: () => answer(g, seat, false) }, 'Decline')));
      }));
      mine.replaceChildren(...(others.length ? others.map((g) => gameRow(g, me))
        : [h('li', { class: 'muted' }, a.games.length ? 'None: every game of yours awaits your move.' : 'No games yet.')]));
    } catch (e) {
      // A token the server no longer knows is forgotten (a session that ended is
      // handled where every call is made).
      if (e.status === 401) { if (me.token) { setAccount(null); route(); } return; }
      toast(e.message);
    }
  };
  await load();
  const timer = setInterval(load, 10000);
  // Live: a notice (your turn, a challenge, a message, an end) reloads the lists.
  let soon = null;
  const stop = playerStream((type, d) => {
    if (type === 'message' && d) toast(`New message in your game of ${titleOf(d.variant)}.`);
    if (type === 'invited') toast('You have a new challenge.');
    if (!soon) soon = setTimeout(() => { soon = null; load(); }, 100);
  });
  setCleanup(() => { clearInterval(timer); clearTimeout(soon); stop(); });
}
