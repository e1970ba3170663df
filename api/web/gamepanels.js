// The parts of a game's page around its board: the page of an unknown game, the panel of
// a finished game (result, reason, rating changes, export and audit), and the messages.
import { h, api, toast, playerLink, ENDINGS, gameEnding } from './core.js';

export function notFound(main) {
  main.append(h('section', { class: 'card', id: 'not-found', 'aria-labelledby': 'nf-h' },
    h('h1', { id: 'nf-h' }, 'No such game'),
    h('p', {}, 'There is no game at this address. The link may be mistyped, or from another server.'),
    h('p', { class: 'row' }, h('a', { class: 'button', href: '#/' }, 'Your games'), h('a', { class: 'button secondary', href: '#/lobby' }, 'The lobby'))));
}

/** Why a game ended, as a sentence; `who` names the seat that left, when one did. */
function reasonSentence(reason, who) {
  switch (reason) {
    case 'goal': return 'The winner reached the goal.';
    case 'no_pawns_left': return 'A player had no pawns left.';
    case 'cannot_move': return 'A player could not move.';
    case 'quiet_moves': return 'Too many moves without a capture: a draw.';
    case 'all_pawns_removed': return 'All pawns were removed.';
    case 'resigned': return who ? `${who} resigned.` : 'A player resigned.';
    case 'timed_out': return who ? `${who} ran out of time.` : 'A player ran out of time.';
    case 'double_passed': return 'A double was passed (declined): the doubler wins the stakes before the double.';
    case 'resignation_accepted': return 'A resignation offer was accepted.';
    default: return reason ? `${reason.replace(/_/g, ' ')}.` : null;
  }
}

/** A backgammon match's sides by seat. */
const SIDES = ['white', 'black'];

/** The match of a finished backgammon match (not a single game), else null. */
export function matchOver(g) {
  const m = g.variant === 'backgammon' && g.status === 'finished' && g.state && g.state.match;
  return m && m.length > 0 ? m : null;
}

/** Why a finished game changed no rating (`not_rated`, `aborted`), in words. */
function notRatedText(g) {
  if (g.aborted) return 'Aborted: a player left before making their first moves. Not rated.';
  switch (g.not_rated) {
    case 'new_player': return 'Not rated: a player has made fewer than ten moves in finished games so far.';
    case 'same_opponents': return 'Not rated: these players already had three rated games together in the past 24 hours.';
    default: return g.rated ? 'Ratings are being updated.' : 'Not rated.';
  }
}

/**
 * The panel of a finished game. `label(seat)` names a seat ("White", or "Player 2" in a game without colours), `me` is
 * the account or null.
 */
export function finishedPanel(g, label, me) {
  const r = g.result || {};
  const nameOf = (seat) => {
    const s = g.seats[seat];
    const n = s && (s.name || (s.bot ? `the computer (${s.bot})` : null));
    const mine = me && s && s.player_id === me.id;
    return `${n || label(seat)}${mine ? ' (you)' : ''}`;
  };
  let result;
  const m = matchOver(g);
  if (!r.winners || r.winners.length === 0) result = 'A draw.';
  else if (m) {
    // A match says it was one: "Bob won the match 5–0", then how its last game ended.
    const side = SIDES[r.winners[0]];
    const last = m.games[m.games.length - 1];
    result = `${nameOf(r.winners[0])} won the match ${m.score[side]}–${m.score[SIDES[1 - r.winners[0]]]}${last ? ` (the last game: ${gameEnding(last)})` : ''}.`;
  } else {
    const how = r.ending && r.ending !== 'won' ? ENDINGS[r.ending] || r.ending.replace(/_/g, ' ') : 'won';
    result = `${r.winners.map(nameOf).join(', ')} ${how.startsWith('won') ? how : `won (${how})`}${r.points > 1 ? `: ${r.points} points` : ''}.`;
  }
  const left = g.seats.filter((s) => s.retired);
  const why = reasonSentence(g.reason, left.length === 1 ? nameOf(left[0].seat) : null);
  const changes = g.rating_changes || [];
  const exports = [h('a', { href: `/v1/games/${g.id}/export`, download: `worp-${g.id}.json`, id: 'export-json' }, 'Export (JSON)')];
  if (g.variant === 'backgammon') exports.push(h('a', { href: `/v1/games/${g.id}/export?format=mat`, download: `worp-${g.id}.mat`, id: 'export-mat' }, 'Match file (.mat, for GNU Backgammon)'));
  exports.push(h('a', { href: `/v1/games/${g.id}/audit`, id: 'audit-link' }, 'Audit (check every roll and move)'));
  return h('section', { class: 'card finished', id: 'finished', 'aria-labelledby': 'finished-h' },
    h('h2', { id: 'finished-h' }, g.aborted ? 'Game aborted' : m ? 'Match over' : 'Game over'),
    h('p', { id: 'result' }, result),
    why ? h('p', { id: 'reason' }, why) : null,
    changes.length ? h('table', { class: 'table', id: 'rating-changes' },
      h('caption', {}, 'Rating changes'),
      h('thead', {}, h('tr', {}, h('th', { scope: 'col' }, 'Player'), h('th', { scope: 'col' }, 'Before'), h('th', { scope: 'col' }, 'After'), h('th', { scope: 'col' }, 'Change'))),
      h('tbody', {}, ...changes.map((c) => {
        const d = Math.round(c.after) - Math.round(c.before);
        const s = g.seats[c.seat];
        return h('tr', {}, h('th', { scope: 'row' }, playerLink(c.player_id, s && s.name, { you: me && me.id === c.player_id })),
          h('td', {}, Math.round(c.before)), h('td', {}, Math.round(c.after)), h('td', {}, d > 0 ? `+${d}` : String(d)));
      }))) : h('p', { class: 'muted', id: 'not-rated' }, notRatedText(g)),
    h('ul', { class: 'plain links' }, ...exports.map((a) => h('li', {}, a))));
}

/** The most messages one request reads (the server's bound). */
const MESSAGES_PAGE = 1000;

/**
 * The messages of a game: `el` to place in the page, `reload()` after the game moved on.
 * `game()` gives the current game view, `mine()` my seats in it.
 */
export function chatPanel(id, game, mine) {
  const list = h('ol', { class: 'messages', id: 'messages', 'aria-live': 'polite', 'aria-label': 'Messages' });
  const input = h('input', { id: 'message-text', name: 'text', maxlength: 500, autocomplete: 'off', required: true });
  const err = h('p', { class: 'error', role: 'alert', id: 'message-error' });
  const send = h('button', { type: 'submit', id: 'send-message' }, 'Send');
  const form = h('form', { id: 'message-form', onsubmit: async (ev) => {
    ev.preventDefault();
    err.textContent = '';
    const text = input.value.trim();
    if (!text) return;
    send.disabled = true;
    try {
      await api('POST', `/v1/games/${id}/messages`, { body: { text } });
      input.value = '';
      await reload();
    } catch (e) { err.textContent = e.message; toast(e.message); }
    send.disabled = false;
  } }, h('label', { for: 'message-text' }, 'Your message'), h('div', { class: 'row' }, input, send), err);
  const note = h('p', { class: 'help' });
  const el = h('section', { class: 'card', id: 'chat', 'aria-labelledby': 'chat-h' }, h('h2', { id: 'chat-h' }, 'Messages'), note, list, form);
  // Only the messages after the last one shown are read again: their own index makes
  // that cost what the new messages cost, however long the game.
  let last = 0;
  let shown = 0;
  // One read at a time: a message sent and a move heard at once must not both append.
  let reading = Promise.resolve();
  const reload = () => (reading = reading.then(load, load));
  async function load() {
    const g = game();
    if (!g) return;
    form.hidden = !mine().length;
    try {
      const fresh = [];
      for (;;) {
        const page = await api('GET', `/v1/games/${id}/messages?after=${last}&limit=${MESSAGES_PAGE}`);
        const msgs = ((page && (page.messages || page)) || []).filter((x) => x.seq > last);
        fresh.push(...msgs);
        if (msgs.length) last = msgs[msgs.length - 1].seq;
        if (msgs.length < MESSAGES_PAGE) break;
      }
      shown += fresh.length;
      note.textContent = shown ? '' : 'No messages yet.';
      if (!fresh.length) return;
      list.append(...fresh.map((x) => {
        const s = g.seats[x.seat];
        return h('li', { 'data-seq': x.seq }, h('strong', {}, playerLink(x.player_id, s && s.name)), ': ', x.text,
          h('span', { class: 'muted' }, ` ${new Date(x.recorded_at).toLocaleTimeString()}`));
      }));
      list.scrollTop = list.scrollHeight;
    } catch (e) {
      if (e.status === 403) {
        note.textContent = 'Only the players read the messages of this game.';
        list.replaceChildren();
        last = 0;
        shown = 0;
      } else note.textContent = e.message;
    }
  }
  return { el, reload };
}
